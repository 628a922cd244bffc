//! Splitting a mesh's elements into parts: METIS k-way on the element graph (elements joined through faces), or
//! blocks of a structured box ([`crate::blocks`]), as [`Partitioner`] asks.

use std::sync::Mutex;

use crate::ParallelError;

/// METIS (through GKlib) keeps its random-number state in process-global variables: two partitionings running at
/// once in one process interleave their draws and give different parts for the same graph (seen in CI: threads of
/// the test harness). Every call holds this lock, so a partition depends on its graph and seed only.
static METIS_LOCK: Mutex<()> = Mutex::new(());

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
    // a panic elsewhere while the lock was held leaves no METIS state behind: the poisoned guard is still good
    let _only_one_at_a_time = METIS_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
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

/// How a run splits its mesh over ranks (`dg run --partition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Partitioner {
    /// Blocks where the mesh is a structured box and a grid of blocks fits the ranks, METIS otherwise.
    #[default]
    Auto,
    /// METIS k-way on the element graph.
    Metis,
    /// Blocks of a structured box; any other mesh is an error.
    Blocks,
}

impl Partitioner {
    /// Every partitioner, as `--partition` spells it.
    pub const NAMES: [&'static str; 3] = ["auto", "metis", "blocks"];
}

impl std::str::FromStr for Partitioner {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "metis" => Ok(Self::Metis),
            "blocks" => Ok(Self::Blocks),
            other => Err(format!("unknown partitioner `{other}` (expected one of {})", Self::NAMES.join(", "))),
        }
    }
}

/// How a mesh was split (the report's `"partition"`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Partition {
    /// METIS k-way on the element graph into `parts` parts.
    Metis {
        /// Parts.
        parts: usize,
    },
    /// A grid of blocks of a structured box.
    Blocks {
        /// Blocks per direction.
        grid: [usize; 3],
        /// The box's cells per direction.
        cells: [usize; 3],
    },
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Metis { parts } => write!(f, "METIS k-way, {parts} parts"),
            Self::Blocks { grid: [a, b, c], cells: [x, y, z] } => {
                write!(f, "blocks {a}×{b}×{c} of {x}×{y}×{z} cells")
            }
        }
    }
}

/// The part of each element and how it was found: `how` on the element graph `neighbours` (see
/// [`partition_elements`]) or, for blocks, on `lattice` (the cells of a structured box, if the mesh is one). `Auto`
/// takes blocks where `lattice` is given, holds every element and a grid of blocks fits `parts`; METIS otherwise.
pub fn owners(
    neighbours: &[Vec<usize>],
    parts: usize,
    how: Partitioner,
    lattice: Option<&dg_core::lattice::CellLattice>,
) -> Result<(Vec<usize>, Partition), ParallelError> {
    let elements = neighbours.len();
    if parts == 0 || parts > elements {
        return Err(ParallelError::TooManyParts { elements, parts });
    }
    let lattice = lattice.filter(|l| l.elements() == elements);
    let grid = lattice.and_then(|l| crate::blocks::block_grid(l, parts).map(|grid| (l, grid)));
    match (how, grid) {
        (Partitioner::Auto | Partitioner::Blocks, Some((lattice, grid))) => {
            Ok((crate::blocks::partition_blocks(lattice, grid), Partition::Blocks { grid, cells: lattice.cells }))
        }
        (Partitioner::Blocks, None) => Err(ParallelError::NoBlocks(match lattice {
            None => "the mesh is not a case's structured rectangle or box (read from a file, refined or curved): give \
                     --partition metis or auto"
                .into(),
            Some(l) => format!(
                "no grid of blocks splits the {}×{}×{} box into {parts} parts (each direction needs at least as many \
                 cells as blocks): give --partition metis or auto",
                l.cells[0], l.cells[1], l.cells[2]
            ),
        })),
        (Partitioner::Auto | Partitioner::Metis, _) => {
            Ok((partition_elements(neighbours, parts)?, Partition::Metis { parts }))
        }
    }
}

/// The element across each face of each element (`links`: per element, per face; periodic faces included; `None`
/// on the boundary).
pub fn elements_across<const N: usize>(links: &[[dg_core::mesh::FaceLink; N]]) -> Vec<Vec<Option<usize>>> {
    use dg_core::mesh::FaceLink;
    links
        .iter()
        .map(|faces| {
            faces
                .iter()
                .map(|link| match link {
                    FaceLink::Interior { element, .. } => Some(*element),
                    FaceLink::Boundary { .. } => None,
                })
                .collect()
        })
        .collect()
}

/// The face links of the elements `elements` (global indices) among themselves, numbered by their position in
/// `elements`: a face between two of them as in `links` (the whole mesh's), a boundary face as it is, and a face to
/// an element outside linked to itself.
pub fn local_links<const N: usize>(
    links: &[[dg_core::mesh::FaceLink; N]],
    elements: &[usize],
) -> Vec<[dg_core::mesh::FaceLink; N]> {
    use dg_core::mesh::FaceLink;
    let mut local = vec![usize::MAX; links.len()];
    for (l, &k) in elements.iter().enumerate() {
        local[k] = l;
    }
    elements
        .iter()
        .enumerate()
        .map(|(l, &k)| {
            let mut faces = links[k];
            for (f, link) in faces.iter_mut().enumerate() {
                if let FaceLink::Interior { element, face } = *link {
                    *link = match local[element] {
                        usize::MAX => FaceLink::Interior { element: l, face: f },
                        other => FaceLink::Interior { element: other, face },
                    };
                }
            }
            faces
        })
        .collect()
}

/// One rank's part of a partitioned mesh: its halo plan, its space on own elements then halo, and its space on own
/// elements alone.
#[derive(Debug, Clone)]
pub struct MeshPart<S> {
    /// Own elements (the interior first) and halo.
    pub plan: crate::halo::HaloPlan,
    /// The space on the own elements, then the halo (what the rank's operator runs on).
    pub space: S,
    /// The space on the own elements alone (norms, errors, output): its states are the first `plan.owned.len()`
    /// elements of `space`'s.
    pub owned: S,
    /// Which rank owns each element of the whole mesh.
    pub owner: Vec<usize>,
    /// How the mesh was split.
    pub partition: Partition,
}

/// How to split a mesh: the partitioner asked, and the mesh's cells as a structured box if it is one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Split<'a> {
    /// The partitioner asked.
    pub how: Partitioner,
    /// The structured box's cells, for blocks.
    pub lattice: Option<&'a dg_core::lattice::CellLattice>,
}

/// Splits a mesh whose face links are `links` into `parts` parts ([`owners`]: METIS on the element graph, or blocks
/// of a structured box) and builds part `rank`'s spaces with `space_of(elements, their local links)`. Every rank
/// computes the same partition.
pub fn split_mesh<S, const N: usize>(
    links: &[[dg_core::mesh::FaceLink; N]],
    (parts, rank): (usize, usize),
    split: Split<'_>,
    space_of: impl Fn(&[usize], Vec<[dg_core::mesh::FaceLink; N]>) -> Result<S, ParallelError>,
) -> Result<MeshPart<S>, ParallelError> {
    let neighbours = element_graph(&elements_across(links));
    let (owner, partition) = owners(&neighbours, parts, split.how, split.lattice)?;
    let plan = crate::halo::HaloPlan::new(&neighbours, &owner, rank);
    let local: Vec<usize> = (0..plan.local_elements()).map(|l| plan.global(l)).collect();
    let space = space_of(&local, local_links(links, &local))?;
    let own = &local[..plan.owned.len()];
    let owned = space_of(own, local_links(links, own))?;
    Ok(MeshPart { plan, space, owned, owner, partition })
}

/// The element graph of [`elements_across`]: for each element, the elements across its faces.
pub fn element_graph(across: &[Vec<Option<usize>>]) -> Vec<Vec<usize>> {
    across.iter().map(|faces| faces.iter().flatten().copied().collect()).collect()
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
    fn partitions_running_at_once_in_one_process_agree() {
        // METIS's random state is global to the process: without the lock, threads partitioning at once disagree
        let graph = ring(2003);
        let alone = partition_elements(&graph, 4).unwrap();
        let together: Vec<Vec<usize>> = std::thread::scope(|scope| {
            let runs: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| (0..4).map(|_| partition_elements(&graph, 4).unwrap()).collect::<Vec<_>>()))
                .collect();
            runs.into_iter().flat_map(|run| run.join().unwrap()).collect()
        });
        for part in together {
            assert_eq!(part, alone);
        }
    }

    #[test]
    fn blocks_where_the_mesh_is_a_box_metis_elsewhere_and_blocks_refused_where_they_cannot_split() {
        use dg_core::lattice::CellLattice;
        // a 4×3×2 box's cell graph (no periodic faces)
        let box_of = CellLattice { cells: [4, 3, 2], periodic: [false; 3], per_cell: 1 };
        let cell = |i: usize, j: usize, k: usize| i + 4 * (j + 3 * k);
        let mut graph = vec![Vec::new(); 24];
        for (k, j, i) in (0..2).flat_map(|k| (0..3).flat_map(move |j| (0..4).map(move |i| (k, j, i)))) {
            for (di, dj, dk) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                if i + di < 4 && j + dj < 3 && k + dk < 2 {
                    graph[cell(i, j, k)].push(cell(i + di, j + dj, k + dk));
                    graph[cell(i + di, j + dj, k + dk)].push(cell(i, j, k));
                }
            }
        }
        let (part, how) = owners(&graph, 2, Partitioner::Auto, Some(&box_of)).unwrap();
        assert_eq!(how, Partition::Blocks { grid: [2, 1, 1], cells: [4, 3, 2] });
        assert!((0..24).all(|c| part[c] == usize::from(c % 4 >= 2)), "{part:?}");
        assert_eq!(how.to_string(), "blocks 2×1×1 of 4×3×2 cells");
        // no lattice, or one that does not hold every element (stale): METIS for auto, an error for blocks
        let stale = CellLattice { cells: [4, 3, 1], periodic: [false; 3], per_cell: 1 };
        for lattice in [None, Some(&stale)] {
            let (_, how) = owners(&graph, 2, Partitioner::Auto, lattice).unwrap();
            assert_eq!(how, Partition::Metis { parts: 2 });
            let err = owners(&graph, 2, Partitioner::Blocks, lattice).unwrap_err().to_string();
            assert!(err.contains("not a case's structured rectangle or box"), "{err}");
        }
        // 5 parts: no direction has 5 cells
        assert_eq!(owners(&graph, 5, Partitioner::Auto, Some(&box_of)).unwrap().1, Partition::Metis { parts: 5 });
        let err = owners(&graph, 5, Partitioner::Blocks, Some(&box_of)).unwrap_err().to_string();
        assert!(err.contains("no grid of blocks splits the 4×3×2 box into 5 parts"), "{err}");
        assert_eq!(owners(&graph, 3, Partitioner::Metis, Some(&box_of)).unwrap().1, Partition::Metis { parts: 3 });
        assert_eq!("blocks".parse::<Partitioner>(), Ok(Partitioner::Blocks));
        assert!("grid".parse::<Partitioner>().unwrap_err().contains("auto, metis, blocks"));
    }

    #[test]
    fn too_many_parts_or_none_are_refused() {
        assert!(matches!(partition_elements(&ring(3), 4), Err(ParallelError::TooManyParts { .. })));
        assert!(matches!(partition_elements(&ring(3), 0), Err(ParallelError::TooManyParts { .. })));
        assert_eq!(partition_elements(&ring(3), 1).unwrap(), vec![0, 0, 0]);
    }
}
