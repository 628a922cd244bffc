//! Which elements a rank owns, which it must receive (its halo) and which it must send.

/// One rank's view of a partition: its own elements, its halo and the messages of a halo exchange.
///
/// Local element numbering: own elements first — those with no face to another rank's element (the *interior*),
/// then the rest, each ascending by global index —, then the halo grouped by owner rank (ascending), ascending
/// global index within a group. A rank can thus compute its interior while the halo travels. The list a rank sends to a neighbour and the list that
/// neighbour receives from it hold the same elements (the sender's elements across a face from the receiver's) in
/// the same order (ascending global index), so messages need no element indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaloPlan {
    /// This rank.
    pub rank: usize,
    /// Global index of each own element (local elements `0..owned.len()`): the interior first.
    pub owned: Vec<usize>,
    /// How many of the own elements have no face to another rank's element (local elements `0..interior`).
    pub interior: usize,
    /// Global index of each halo element (local elements `owned.len()..`).
    pub halo: Vec<usize>,
    /// Per neighbouring rank (ascending): the local indices of the own elements it receives.
    pub sends: Vec<(usize, Vec<usize>)>,
    /// Per neighbouring rank (ascending): the local indices of the halo elements it sends, in its sending order.
    pub receives: Vec<(usize, Vec<usize>)>,
}

impl HaloPlan {
    /// The plan of `rank` for the element graph `neighbours` (for each element, the elements across its faces)
    /// split as `part` gives.
    pub fn new(neighbours: &[Vec<usize>], part: &[usize], rank: usize) -> Self {
        let mine = |k: &usize| part[*k] == rank;
        let touches_other = |k: &usize| neighbours[*k].iter().any(|&j| part[j] != rank);
        let mut owned: Vec<usize> = (0..part.len()).filter(|k| mine(k) && !touches_other(k)).collect();
        let interior = owned.len();
        owned.extend((0..part.len()).filter(|k| mine(k) && touches_other(k)));
        // (owner, global) of every element of another rank across a face from an own element
        let mut halo: Vec<(usize, usize)> = owned
            .iter()
            .flat_map(|&k| neighbours[k].iter().copied())
            .filter(|&j| part[j] != rank)
            .map(|j| (part[j], j))
            .collect();
        halo.sort_unstable();
        halo.dedup();
        let mut local = vec![usize::MAX; part.len()];
        for (l, &k) in owned.iter().chain(halo.iter().map(|(_, k)| k)).enumerate() {
            local[k] = l;
        }
        let mut receives: Vec<(usize, Vec<usize>)> = Vec::new();
        for &(owner, k) in &halo {
            match receives.last_mut() {
                Some((r, list)) if *r == owner => list.push(local[k]),
                _ => receives.push((owner, vec![local[k]])),
            }
        }
        // own elements across a face from an element of rank r, ascending: what r holds as its halo from this rank
        let mut sends: Vec<(usize, usize)> = owned
            .iter()
            .flat_map(|&k| neighbours[k].iter().filter(|&&j| part[j] != rank).map(move |&j| (part[j], k)))
            .collect();
        sends.sort_unstable();
        sends.dedup();
        let mut send_lists: Vec<(usize, Vec<usize>)> = Vec::new();
        for (r, k) in sends {
            match send_lists.last_mut() {
                Some((q, list)) if *q == r => list.push(local[k]),
                _ => send_lists.push((r, vec![local[k]])),
            }
        }
        Self { rank, owned, interior, halo: halo.into_iter().map(|(_, k)| k).collect(), sends: send_lists, receives }
    }

    /// Own and halo elements together.
    pub fn local_elements(&self) -> usize {
        self.owned.len() + self.halo.len()
    }

    /// Global index of local element `l`.
    pub fn global(&self, l: usize) -> usize {
        if l < self.owned.len() {
            self.owned[l]
        } else {
            self.halo[l - self.owned.len()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_one_rank_sends_is_what_its_neighbour_receives_in_the_same_order() {
        // a periodic ring of 12 elements, parts of three consecutive elements, and one element (5) joined to 10
        let mut neighbours: Vec<Vec<usize>> = (0..12).map(|k| vec![(k + 11) % 12, (k + 1) % 12]).collect();
        neighbours[5].push(10);
        neighbours[10].push(5);
        let part: Vec<usize> = (0..12).map(|k| k / 3).collect();
        let plans: Vec<HaloPlan> = (0..4).map(|r| HaloPlan::new(&neighbours, &part, r)).collect();
        assert_eq!(plans[1].owned, vec![4, 3, 5], "the interior (4) first");
        assert_eq!(plans[1].interior, 1);
        assert_eq!(plans[1].halo, vec![2, 6, 10], "grouped by owner (0, 2, 3)");
        for a in &plans {
            for (b, sent) in &a.sends {
                let received = &plans[*b].receives.iter().find(|(r, _)| *r == a.rank).expect("a receive list").1;
                let sent: Vec<usize> = sent.iter().map(|&l| a.global(l)).collect();
                let received: Vec<usize> = received.iter().map(|&l| plans[*b].global(l)).collect();
                assert_eq!(sent, received, "{} -> {b}", a.rank);
            }
            assert_eq!(a.sends.len(), a.receives.len());
        }
    }
}
