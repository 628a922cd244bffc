//! Splitting a mesh's elements into parts: METIS k-way on the element graph (elements joined through faces).

use crate::ParallelError;

/// The part (rank) of each element: METIS 5 k-way partitioning of the element graph `neighbours` (for each element,
/// the elements across its faces, periodic faces included; each pair listed from both sides), minimising the faces
/// cut with balanced element counts. Deterministic (a fixed seed): every rank computes the same partition. One part
/// puts every element in part 0. Every part gets at least one element, else an error.
pub fn partition_elements(neighbours: &[Vec<usize>], parts: usize) -> Result<Vec<usize>, ParallelError> {
    let elements = neighbours.len();
    if parts == 0 || parts > elements {
        return Err(ParallelError::TooManyParts { elements, parts });
    }
    if parts == 1 {
        return Ok(vec![0; elements]);
    }
    let index = |v: usize| {
        metis::Idx::try_from(v).map_err(|_| ParallelError::Partitioner(format!("{v} exceeds METIS's index type")))
    };
    let mut xadj = Vec::with_capacity(elements + 1);
    let mut adjncy = Vec::new();
    xadj.push(0);
    for (k, list) in neighbours.iter().enumerate() {
        // METIS takes a simple graph: no self-loops, no repeated edges
        let mut list: Vec<usize> = list.iter().copied().filter(|&j| j != k).collect();
        list.sort_unstable();
        list.dedup();
        for j in list {
            if j >= elements {
                return Err(ParallelError::Partitioner(format!("element {k} has a neighbour {j} out of range")));
            }
            adjncy.push(index(j)?);
        }
        xadj.push(index(adjncy.len())?);
    }
    let mut part = vec![0 as metis::Idx; elements];
    metis::Graph::new(1, index(parts)?, &xadj, &adjncy)
        .map_err(|e| ParallelError::Partitioner(e.to_string()))?
        .set_option(metis::option::Seed(7))
        .part_kway(&mut part)
        .map_err(|e| ParallelError::Partitioner(e.to_string()))?;
    let part: Vec<usize> = part.into_iter().map(|p| usize::try_from(p).unwrap_or(usize::MAX)).collect();
    let mut count = vec![0usize; parts];
    for &p in &part {
        match count.get_mut(p) {
            Some(c) => *c += 1,
            None => return Err(ParallelError::Partitioner(format!("part {p} of {parts} returned"))),
        }
    }
    if let Some(empty) = count.iter().position(|&c| c == 0) {
        return Err(ParallelError::Partitioner(format!("part {empty} of {parts} has no element")));
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A periodic ring of `n` elements: each joined to the next.
    fn ring(n: usize) -> Vec<Vec<usize>> {
        (0..n).map(|k| vec![(k + n - 1) % n, (k + 1) % n]).collect()
    }

    #[test]
    fn parts_are_balanced_deterministic_and_cut_a_ring_few_times() {
        let graph = ring(101);
        for parts in [2, 3, 4] {
            let part = partition_elements(&graph, parts).unwrap();
            assert_eq!(part, partition_elements(&graph, parts).unwrap(), "deterministic");
            for p in 0..parts {
                let count = part.iter().filter(|&&q| q == p).count();
                assert!(
                    count * parts >= 101 * 9 / 10 && count * parts <= 101 * 11 / 10,
                    "{parts}: part {p} has {count}"
                );
            }
            // a ring cut into contiguous arcs crosses parts exactly `parts` times
            let cuts = (0..101).filter(|&k| part[k] != part[(k + 1) % 101]).count();
            assert!(cuts <= 2 * parts, "{parts} parts: {cuts} cut faces");
        }
    }

    #[test]
    fn too_many_parts_or_none_are_refused() {
        assert!(matches!(partition_elements(&ring(3), 4), Err(ParallelError::TooManyParts { .. })));
        assert!(matches!(partition_elements(&ring(3), 0), Err(ParallelError::TooManyParts { .. })));
        assert_eq!(partition_elements(&ring(3), 1).unwrap(), vec![0, 0, 0]);
    }
}
