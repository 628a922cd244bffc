//! Splitting a structured box of cells into blocks (seed 003's "structured boxes by blocks"): a grid of p₀×p₁×p₂
//! blocks with p₀p₁p₂ parts, each direction cut into near-equal ranges of cells, the grid chosen so that the
//! busiest part's cut faces are fewest. Every cut is a plane: a part's halo is whole layers of cells, each joined to
//! it through one face (two or three along the block's edges), where a graph partitioner's cuts are jagged.

use dg_core::hexmesh::CellLattice;

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

/// The block (part) of each cell of `lattice` cut by `grid`: direction d's cells split into `grid[d]` ranges,
/// range r holding cells ⌊r·n/p⌋ … ⌊(r + 1)·n/p⌋ − 1; block (r₀, r₁, r₂) is part r₀ + p₀·(r₁ + p₁·r₂).
pub fn partition_blocks(lattice: &CellLattice, grid: [usize; 3]) -> Vec<usize> {
    let [n0, n1, n2] = lattice.cells;
    // the range of cell i among n cut into p: the largest r with ⌊r·n/p⌋ ≤ i
    let range = |i: usize, n: usize, p: usize| ((i + 1) * p - 1) / n;
    let mut part = Vec::with_capacity(n0 * n1 * n2);
    for k in 0..n2 {
        let r2 = range(k, n2, grid[2]);
        for j in 0..n1 {
            let r1 = range(j, n1, grid[1]);
            for i in 0..n0 {
                part.push(range(i, n0, grid[0]) + grid[0] * (r1 + grid[1] * r2));
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lattice(cells: [usize; 3], periodic: [bool; 3]) -> CellLattice {
        CellLattice { cells, periodic }
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
            // each direction's ranges differ by one cell at most: a part holds at most Π⌈n/p⌉ and at least Π⌊n/p⌋
            let most: usize = (0..3).map(|d| cells[d].div_ceil(grid[d])).product();
            let least: usize = (0..3).map(|d| cells[d] / grid[d]).product();
            assert!(count.iter().all(|&c| c >= least.max(1) && c <= most), "{cells:?} {grid:?}: {count:?}");
            // cell (i, j, k) lies in block (r₀, r₁, r₂) with ⌊r·n/p⌋ ≤ index < ⌊(r + 1)·n/p⌋ in every direction
            for (c, &p) in part.iter().enumerate() {
                let index = [c % cells[0], (c / cells[0]) % cells[1], c / (cells[0] * cells[1])];
                let block = [p % grid[0], (p / grid[0]) % grid[1], p / (grid[0] * grid[1])];
                for d in 0..3 {
                    let (r, n, q) = (block[d], cells[d], grid[d]);
                    assert!(r * n / q <= index[d] && index[d] < (r + 1) * n / q, "{cells:?} {grid:?}: cell {c}");
                }
            }
        }
    }

    #[test]
    fn the_grid_cuts_fewest_faces_around_the_busiest_part() {
        // 81³ walls on 4 ranks: 2×2×1 (two faces of 41×81 around a part), not slabs (two of 81×81)
        let walls = lattice([81, 81, 81], [false; 3]);
        let grid = block_grid(&walls, 4).unwrap();
        // among equal grids the fastest-varying directions are cut first (short layers: closer face neighbours)
        assert_eq!(grid, [2, 2, 1]);
        assert_eq!(block_grid(&lattice([64, 64, 64], [false; 3]), 2), Some([2, 1, 1]));
        let around = faces_cut_per_part(&walls, &partition_blocks(&walls, grid), 4);
        assert_eq!(around.iter().max(), Some(&(2 * 41 * 81)), "{around:?}");
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

    #[test]
    fn no_grid_where_a_direction_has_too_few_cells() {
        // 7 is prime and every direction has 4 cells
        assert_eq!(block_grid(&lattice([4, 4, 4], [false; 3]), 7), None);
        assert_eq!(block_grid(&lattice([1, 1, 1], [false; 3]), 2), None);
        assert_eq!(block_grid(&lattice([1, 1, 1], [false; 3]), 1), Some([1, 1, 1]));
    }
}
