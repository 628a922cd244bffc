//! The values a halo exchange must carry: the nodes on the faces two ranks share (traces), not whole elements.

use crate::halo::HaloPlan;

/// Per neighbouring rank, the `(local element, node)` pairs of a halo exchange's message, in message order: what
/// this rank sends (nodes of its own elements) and what it receives (nodes of its halo elements). A pair stands
/// for the node's value of every variable.
///
/// The message between two ranks lists, for each element of the sender across a face from the receiver
/// (ascending global index), the nodes of each such face (ascending face index): both sides enumerate it alike
/// from the whole mesh, so the values travel without indices. A node on two such faces travels twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracePlan {
    /// Per neighbouring rank (as [`HaloPlan::sends`]): the own nodes it receives.
    pub sends: Vec<(usize, Vec<(usize, usize)>)>,
    /// Per neighbouring rank (as [`HaloPlan::receives`]): the halo nodes it sends.
    pub receives: Vec<(usize, Vec<(usize, usize)>)>,
}

impl TracePlan {
    /// The traces of `plan`'s exchange: `faces[k][f]` is the element across face `f` of element `k` (global
    /// indices, `None` on the boundary), `part` the owner of every element and `face_nodes[f]` the reference
    /// element's nodes on face `f`.
    pub fn new(plan: &HaloPlan, part: &[usize], faces: &[Vec<Option<usize>>], face_nodes: &[Vec<usize>]) -> Self {
        // the nodes of local element `l`'s faces to elements of rank `r`
        let traces = |l: usize, r: usize| -> Vec<(usize, usize)> {
            let k = plan.global(l);
            faces[k]
                .iter()
                .enumerate()
                .filter(|(_, across)| across.is_some_and(|j| part[j] == r))
                .flat_map(|(f, _)| face_nodes[f].iter().map(move |&i| (l, i)))
                .collect()
        };
        let sends =
            plan.sends.iter().map(|(r, list)| (*r, list.iter().flat_map(|&l| traces(l, *r)).collect())).collect();
        let receives = plan
            .receives
            .iter()
            .map(|(r, list)| (*r, list.iter().flat_map(|&l| traces(l, plan.rank)).collect()))
            .collect();
        Self { sends, receives }
    }

    /// Whole halo elements, `np` nodes each, in the order of `plan`'s lists: for formulations whose face values
    /// are extrapolated from every node of the element (hexahedra on Gauss–Legendre nodes), where a face's nodes
    /// are not enough.
    pub fn whole_elements(plan: &HaloPlan, np: usize) -> Self {
        let nodes = |lists: &[(usize, Vec<usize>)]| -> Vec<(usize, Vec<(usize, usize)>)> {
            lists
                .iter()
                .map(|(r, list)| (*r, list.iter().flat_map(|&l| (0..np).map(move |i| (l, i))).collect()))
                .collect()
        };
        Self { sends: nodes(&plan.sends), receives: nodes(&plan.receives) }
    }

    /// Nodes this rank sends in one exchange (each for every variable).
    pub fn nodes_sent(&self) -> usize {
        self.sends.iter().map(|(_, list)| list.len()).sum()
    }

    /// Nodes this rank receives in one exchange.
    pub fn nodes_received(&self) -> usize {
        self.receives.iter().map(|(_, list)| list.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_one_rank_sends_is_what_its_neighbour_receives_node_for_node() {
        // a strip of 8 two-faced elements (face 0 to the left, face 1 to the right), periodic, in parts of 2;
        // 2 nodes per face, nodes 0 and 1 on face 0, nodes 1 and 2 on face 1 (node 1 is on both)
        let faces: Vec<Vec<Option<usize>>> = (0..8).map(|k| vec![Some((k + 7) % 8), Some((k + 1) % 8)]).collect();
        let neighbours: Vec<Vec<usize>> = faces.iter().map(|f| f.iter().flatten().copied().collect()).collect();
        let part: Vec<usize> = (0..8).map(|k| k / 2).collect();
        let face_nodes = vec![vec![0, 1], vec![1, 2]];
        let plans: Vec<HaloPlan> = (0..4).map(|r| HaloPlan::new(&neighbours, &part, r)).collect();
        let traces: Vec<TracePlan> = plans.iter().map(|p| TracePlan::new(p, &part, &faces, &face_nodes)).collect();
        // rank 1 owns 2 and 3: it sends element 2's face 0 to rank 0 and element 3's face 1 to rank 2
        let global = |r: usize, list: &[(usize, usize)]| -> Vec<(usize, usize)> {
            list.iter().map(|&(l, i)| (plans[r].global(l), i)).collect()
        };
        assert_eq!(global(1, &traces[1].sends[0].1), vec![(2, 0), (2, 1)]);
        assert_eq!(global(1, &traces[1].sends[1].1), vec![(3, 1), (3, 2)]);
        for (a, trace) in traces.iter().enumerate() {
            for (b, sent) in &trace.sends {
                let received = &traces[*b].receives.iter().find(|(r, _)| *r == a).expect("a receive list").1;
                assert_eq!(global(a, sent), global(*b, received), "{a} -> {b}");
            }
            assert_eq!(trace.nodes_sent(), 4);
            assert_eq!(trace.nodes_received(), 4);
        }
    }
}
