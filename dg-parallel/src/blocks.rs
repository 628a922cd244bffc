//! Splitting a structured box of cells (hexahedra, or the squares and cubes that structured triangle and
//! tetrahedral meshes cut into 2, 5 or 6 elements) into blocks (seed 003's "structured boxes by blocks"): a grid of
//! p₀×p₁×p₂ blocks with p₀p₁p₂ parts of equal cell counts, the grid chosen so that the busiest part's cut faces are
//! fewest. Every cut is a plane where the grid divides the box, and steps by one partial layer elsewhere: a part's
//! halo is layers of cells, each joined to it through one face (two or three along the block's edges), where a graph
//! partitioner's cuts are jagged.

use dg_core::lattice::CellLattice;

/// The grid of blocks for `parts` parts of `lattice`, or `None` where no grid fits (a direction would need more
/// blocks than it has cells: a prime number of parts above every direction's cells, for instance). Among the grids
/// that fit: the fewest faces cut around the busiest block, then the fewest in all, then the earlier directions cut
/// first (deterministic: every rank picks the same). Cutting the fastest-varying direction first keeps a part's
/// layers of cells short, so the cells across a face stay close in memory: on two H200s, a 64³ box cut across z
/// (each part's layers 64×64 cells) computed its own cells 2.4 % slower per cell than one GPU did its 51³, cut
/// across x (layers of 32×64) as fast as one GPU and as METIS's parts (`docs/performance.md`, 2026-11-30).
pub fn block_grid(lattice: &CellLattice, parts: usize) -> Option<[usize; 3]> {
    let n = lattice.cells;
    let mut best: Option<([usize; 3], (usize, usize))> = None;
    for p0 in (1..=parts).filter(|p| parts.is_multiple_of(*p)) {
        for p1 in (1..=parts / p0).filter(|p| (parts / p0).is_multiple_of(*p)) {
            let grid = [p0, p1, parts / (p0 * p1)];
            if (0..3).any(|d| grid[d] > n[d]) {
                continue;
            }
            let cost = cut_faces(lattice, grid);
            // earlier directions first among equals: more blocks across x, then y
            let better = match &best {
                None => true,
                Some((g, c)) => cost < *c || (cost == *c && grid > *g),
            };
            if better {
                best = Some((grid, cost));
            }
        }
    }
    best.map(|(grid, _)| grid)
}

/// The faces cut around the busiest block of `grid` (an inner block, its extents rounded up), and in all.
fn cut_faces(lattice: &CellLattice, grid: [usize; 3]) -> (usize, usize) {
    let n = lattice.cells;
    let (mut busiest, mut total) = (0, 0);
    for d in 0..3 {
        let (a, b) = ((d + 1) % 3, (d + 2) % 3);
        // cut planes across direction d, and how many of a block's two sides lie on one
        let (planes, sides) = match (grid[d], lattice.periodic[d]) {
            (1, _) => (0, 0),
            (p, true) => (p, 2),
            (2, false) => (1, 1),
            (p, false) => (p - 1, 2),
        };
        busiest += sides * n[a].div_ceil(grid[a]) * n[b].div_ceil(grid[b]);
        total += planes * n[a] * n[b];
    }
    (busiest, total)
}

/// The block (part) of each element of `lattice` cut by `grid` (each cell's elements in its cell's block), by count
/// so that every block holds as many cells as any other to within two: the cells are cut into `grid[0]` slabs
/// across x — ordered by x, then y, then z, and split into runs of equal length, so a slab is whole layers of cells
/// but for one partial layer where it meets the next —, each slab into `grid[1]` across y alike, each of those into
/// `grid[2]` across z. Block (r₀, r₁, r₂) is part r₀ + p₀·(r₁ + p₁·r₂). Where `grid[d]` divides the cells across d
/// every cut is a plane (ranges of n/p cells); elsewhere a cut steps by one layer, where ranges of ⌊n/p⌋ and ⌈n/p⌉
/// cells would leave the largest block up to a layer's cells per block above the average (2.5 % at 81³ on 2×2×1).
pub fn partition_blocks(lattice: &CellLattice, grid: [usize; 3]) -> Vec<usize> {
    let n = lattice.cells;
    let at = |c: usize| [c % n[0], (c / n[0]) % n[1], c / (n[0] * n[1])];
    let cells: usize = n.iter().product();
    let stride = [1, grid[0], grid[0] * grid[1]];
    // (cells, block so far): the whole box, then cut across x, y, z in turn
    let mut groups: Vec<(Vec<usize>, usize)> = vec![((0..cells).collect(), 0)];
    for d in 0..3 {
        let p = grid[d].max(1);
        if p == 1 {
            // nothing to cut across d: the groups stay as they are (no reordering needed)
            continue;
        }
        let mut next = Vec::with_capacity(groups.len() * p);
        for (mut group, block) in groups {
            group.sort_unstable_by_key(|&c| {
                let x = at(c);
                (x[d], x[(d + 1) % 3], x[(d + 2) % 3])
            });
            let m = group.len();
            for r in 0..p {
                next.push((group[r * m / p..(r + 1) * m / p].to_vec(), block + r * stride[d]));
            }
        }
        groups = next;
    }
    let mut block_of_cell = vec![0; cells];
    for (group, block) in groups {
        for c in group {
            block_of_cell[c] = block;
        }
    }
    block_of_cell.into_iter().flat_map(|b| std::iter::repeat_n(b, lattice.per_cell)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lattice(cells: [usize; 3], periodic: [bool; 3]) -> CellLattice {
        CellLattice { cells, periodic, per_cell: 1 }
    }

    /// The faces between cells of different parts, counted from the cells (periodic directions wrapping), around
    /// each part: an independent count of what `cut_faces` estimates.
    fn faces_cut_per_part(l: &CellLattice, part: &[usize], parts: usize) -> Vec<usize> {
        let n = l.cells;
        let mut around = vec![0; parts];
        for k in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    let here = [i, j, k];
                    let cell = i + n[0] * (j + n[1] * k);
                    for d in 0..3 {
                        let mut next = here;
                        if here[d] + 1 == n[d] {
                            if !l.periodic[d] {
                                continue;
                            }
                            next[d] = 0;
                        } else {
                            next[d] += 1;
                        }
                        let other = next[0] + n[0] * (next[1] + n[1] * next[2]);
                        if part[cell] != part[other] {
                            around[part[cell]] += 1;
                            around[part[other]] += 1;
                        }
                    }
                }
            }
        }
        around
    }

    #[test]
    fn blocks_are_balanced_planes_and_every_part_is_used() {
        for (cells, periodic, parts) in [
            ([81, 81, 81], [false; 3], 4),
            ([64, 64, 64], [false; 3], 2),
            ([7, 5, 3], [false; 3], 6),
            ([9, 9, 9], [true; 3], 8),
            ([3, 3, 3], [false; 3], 4),
            ([10, 1, 1], [false; 3], 5),
            ([8, 6, 4], [false; 3], 4),
            ([12, 12, 12], [true, false, true], 8),
        ] {
            let l = lattice(cells, periodic);
            let grid = block_grid(&l, parts).expect("a grid fits");
            assert_eq!(grid.iter().product::<usize>(), parts);
            let part = partition_blocks(&l, grid);
            assert_eq!(part.len(), cells.iter().product::<usize>());
            let mut count = vec![0usize; parts];
            for &p in &part {
                count[p] += 1;
            }
            // every block holds the average to within two cells
            let (least, most) = (count.iter().min().copied().unwrap_or(0), count.iter().max().copied().unwrap_or(0));
            let average = part.len() / parts;
            assert!(least + 2 >= average && most <= average + 2 && least > 0, "{cells:?} {grid:?}: {count:?}");
            // where the grid divides the cells, block (r₀, r₁, r₂) is the ranges r·n/p … (r + 1)·n/p − 1: planes
            if (0..3).all(|d| cells[d] % grid[d] == 0) {
                for (c, &p) in part.iter().enumerate() {
                    let index = [c % cells[0], (c / cells[0]) % cells[1], c / (cells[0] * cells[1])];
                    let block = [p % grid[0], (p / grid[0]) % grid[1], p / (grid[0] * grid[1])];
                    for d in 0..3 {
                        let width = cells[d] / grid[d];
                        assert_eq!(index[d] / width, block[d], "{cells:?} {grid:?}: cell {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_grid_cuts_fewest_faces_around_the_busiest_part() {
        // 80³ walls on 4 ranks: 2×2×1 (two faces of 40×80 around a part), not slabs (two of 80×80)
        let walls = lattice([80, 80, 80], [false; 3]);
        let grid = block_grid(&walls, 4).unwrap();
        // among equal grids the fastest-varying directions are cut first (short layers: closer face neighbours)
        assert_eq!(grid, [2, 2, 1]);
        assert_eq!(block_grid(&lattice([64, 64, 64], [false; 3]), 2), Some([2, 1, 1]));
        assert_eq!(block_grid(&lattice([81, 81, 81], [false; 3]), 4), Some([2, 2, 1]));
        let around = faces_cut_per_part(&walls, &partition_blocks(&walls, grid), 4);
        assert_eq!(around.iter().max(), Some(&(2 * 40 * 80)), "{around:?}");
        // every other grid of 4 parts leaves its busiest part more cut faces (counted cell by cell)
        for other in [[4, 1, 1], [1, 4, 1], [1, 1, 4], [2, 1, 2], [1, 2, 2], [2, 2, 1]] {
            let count = faces_cut_per_part(&walls, &partition_blocks(&walls, other), 4);
            assert!(count.iter().max() >= around.iter().max(), "{other:?}: {count:?}");
        }
        // two parts of a box periodic in x: cut across y or z (one plane pair through the wrap costs two planes)
        let wrap = lattice([16, 16, 16], [true, false, false]);
        let grid = block_grid(&wrap, 2).unwrap();
        assert_eq!(grid[0], 1, "{grid:?}");
        let around = faces_cut_per_part(&wrap, &partition_blocks(&wrap, grid), 2);
        assert_eq!(around, vec![256, 256]);
        // a long box is cut across its length
        assert_eq!(block_grid(&lattice([40, 4, 4], [false; 3]), 4), Some([4, 1, 1]));
    }

    /// The block of each element of the generated meshes (triangles of a rectangle, tetrahedra of a box in both
    /// splits, hexahedra; cell counts the grid divides, so that blocks are ranges) holds its centroid: the lattice the
    /// generators record matches where their elements are.
    #[test]
    fn every_generated_element_lies_in_its_block() {
        use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec};
        use dg_core::mesh::{rectangle, RectangleSpec};
        use dg_core::mesh3d::{box_mesh, BoxSpec, CubeSplit};
        // the block of a point of the unit box cut by `grid` over `cells`: as `partition_blocks` cuts the cells
        let block_of = |x: [f64; 3], cells: [usize; 3], grid: [usize; 3]| {
            let r: Vec<usize> = (0..3)
                .map(|d| {
                    assert_eq!(cells[d] % grid[d], 0, "{cells:?} {grid:?}");
                    ((x[d] * cells[d] as f64) as usize).min(cells[d] - 1) / (cells[d] / grid[d])
                })
                .collect();
            r[0] + grid[0] * (r[1] + grid[1] * r[2])
        };
        let check = |lattice: &CellLattice, centroids: Vec<[f64; 3]>, parts: usize| {
            assert_eq!(lattice.elements(), centroids.len());
            let grid = block_grid(lattice, parts).expect("a grid");
            let part = partition_blocks(lattice, grid);
            for (e, c) in centroids.iter().enumerate() {
                assert_eq!(part[e], block_of(*c, lattice.cells, grid), "{lattice:?} {grid:?}: element {e} at {c:?}");
            }
        };
        // each element's centroid in three coordinates (a triangle's at z = ½)
        fn centroids<const N: usize, const D: usize>(elements: &[[usize; N]], vertices: &[[f64; D]]) -> Vec<[f64; 3]> {
            let mean = |e: &[usize; N], d: usize| e.iter().map(|&v| vertices[v][d]).sum::<f64>() / N as f64;
            elements.iter().map(|e| std::array::from_fn(|d| if d < D { mean(e, d) } else { 0.5 })).collect()
        }
        let tri = rectangle(&RectangleSpec { nx: 8, ny: 6, ..RectangleSpec::unit_square(8) }).expect("a rectangle");
        check(tri.lattice.as_ref().expect("a lattice"), centroids(&tri.elements, &tri.vertices), 4);
        for split in [CubeSplit::Six, CubeSplit::Five] {
            let tets = box_mesh(&BoxSpec { cells: [4, 3, 2], split, ..BoxSpec::unit_cube(4) }).expect("a box");
            check(tets.lattice.as_ref().expect("a lattice"), centroids(&tets.elements, &tets.vertices), 6);
        }
        let hexes = hex_box_mesh(&HexBoxSpec { cells: [6, 4, 3], ..HexBoxSpec::unit_cube(6, false) }).expect("a box");
        check(hexes.lattice.as_ref().expect("a lattice"), centroids(&hexes.elements, &hexes.vertices), 4);
    }

    #[test]
    fn no_grid_where_a_direction_has_too_few_cells() {
        // 7 is prime and every direction has 4 cells
        assert_eq!(block_grid(&lattice([4, 4, 4], [false; 3]), 7), None);
        assert_eq!(block_grid(&lattice([1, 1, 1], [false; 3]), 2), None);
        // a rectangle's squares (one cell across z) take no cut across z
        assert_eq!(block_grid(&lattice([6, 6, 1], [false; 3]), 4), Some([2, 2, 1]));
        assert_eq!(block_grid(&lattice([1, 1, 1], [false; 3]), 1), Some([1, 1, 1]));
    }
}
