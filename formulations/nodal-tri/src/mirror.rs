//! The operator folded by the reference triangle's mirror symmetry (r, s) ↦ (s, r), for the mirror tiles
//! ([`crate::variant::Partition::Mirror`]).
//!
//! The warp-and-blend nodes are symmetric under the reflection P that swaps r and s: each node is either on the line
//! r = s (a fixed node) or one of a pair (i, P(i)). With D± = (Dr ± Ds)/2, P·D+·P = D+ and P·D−·P = −D− (because
//! P·Dr·P = Ds), and P·LIFT = LIFT·P_Γ (P_Γ swaps faces 0 and 2 and reverses face 1). Written in the basis of the
//! pairs' sums and differences, a matrix that commutes with P maps sums to sums and differences to differences, and
//! one that anticommutes maps sums to differences and back: half its entries are zero. The strong-form divergence
//! Dr·gr + Ds·gs = D+·(gr + gs) + D−·(gr − gs) then costs np² multiply-adds per product instead of 2·np², and the
//! lift about half of np·3·nfp (the 1D analogue is the even–odd decomposition of spectral derivative matrices).
//!
//! Each *representative* r (the pairs' first nodes, then the fixed nodes) has a symmetric output row (the mean of
//! the outputs at its two nodes) and an antisymmetric one (half their difference; zero for a fixed node), so a
//! work item keeps both rows of a representative and writes y_i = sym + anti and y_P(i) = sym − anti itself. The
//! columns of the folded volume operator are the representatives' sums (one per representative) and the pairs'
//! differences (one per pair): np columns. Which input a row multiplies follows from the symmetry (see
//! [`Mirror::volume_operator`]), and the entries this leaves out are checked to vanish when the operator is built.

use dg_core::matrix::Matrix;
use dg_core::triangle::ReferenceTriangle;

/// The reference triangle's mirror pairs, of nodes and of face nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mirror {
    /// The representatives' nodes: each pair's first node (the smaller index), then the fixed nodes.
    pub nodes: Vec<usize>,
    /// Each representative's mirror node (itself for a fixed node).
    pub partners: Vec<usize>,
    /// Pairs among the representatives (the first `pairs` of them).
    pub pairs: usize,
    /// The face representatives' columns of the face data (face·nfp + i, as LIFT's columns): each pair's first
    /// column, then the columns that are their own mirror (the middle of face 1 at even orders).
    pub face_columns: Vec<usize>,
    /// Each face representative's mirror column.
    pub face_partners: Vec<usize>,
    /// Pairs among the face representatives.
    pub face_pairs: usize,
}

/// Why an element has no mirror folding.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MirrorError {
    /// A node's mirror image is not a node.
    #[error("node {node} at (r, s) = ({r}, {s}) has no mirror node at (s, r)")]
    NoMirrorNode {
        /// The node.
        node: usize,
        /// Its r.
        r: f64,
        /// Its s.
        s: f64,
    },
    /// An operator does not have the symmetry the folding relies on.
    #[error("the folded {operator} keeps an entry of {size:e} where the symmetry needs zero")]
    NotSymmetric {
        /// Which operator.
        operator: &'static str,
        /// The largest entry the folding drops, relative to the largest entry kept.
        size: f64,
    },
}

/// Relative size below which a dropped entry counts as zero (the operators are built in f64 from a Vandermonde
/// inverse; their symmetric parts agree to about 1e-13 at N = 10).
const ZERO: f64 = 1e-9;

impl Mirror {
    /// The mirror pairs of `element`'s nodes and face nodes.
    pub fn of(element: &ReferenceTriangle) -> Result<Self, MirrorError> {
        let np = element.np;
        let mirror_of = |i: usize| -> Result<usize, MirrorError> {
            let (r, s) = (element.r[i], element.s[i]);
            (0..np)
                .find(|&j| (element.r[j] - s).abs() < 1e-10 && (element.s[j] - r).abs() < 1e-10)
                .ok_or(MirrorError::NoMirrorNode { node: i, r, s })
        };
        let image: Vec<usize> = (0..np).map(mirror_of).collect::<Result<_, _>>()?;
        let (mut nodes, mut partners): (Vec<usize>, Vec<usize>) =
            (0..np).filter(|&i| image[i] > i).map(|i| (i, image[i])).unzip();
        let pairs = nodes.len();
        for i in (0..np).filter(|&i| image[i] == i) {
            nodes.push(i);
            partners.push(i);
        }
        // face f's node a is column f·nfp + a; the mirror takes face 0 (s = −1) to face 2 (r = −1) and face 1 to itself
        let nfp = element.nfp;
        let face_image = |column: usize| -> Result<usize, MirrorError> {
            let (face, a) = (column / nfp, column % nfp);
            let target = [2, 1, 0][face];
            let node = image[element.fmask[face][a]];
            element.fmask[target].iter().position(|&n| n == node).map(|b| target * nfp + b).ok_or(
                MirrorError::NoMirrorNode {
                    node: element.fmask[face][a],
                    r: element.r[element.fmask[face][a]],
                    s: element.s[element.fmask[face][a]],
                },
            )
        };
        let face_image: Vec<usize> = (0..3 * nfp).map(face_image).collect::<Result<_, _>>()?;
        let (mut face_columns, mut face_partners): (Vec<usize>, Vec<usize>) =
            (0..3 * nfp).filter(|&c| face_image[c] > c).map(|c| (c, face_image[c])).unzip();
        let face_pairs = face_columns.len();
        for c in (0..3 * nfp).filter(|&c| face_image[c] == c) {
            face_columns.push(c);
            face_partners.push(c);
        }
        Ok(Self { nodes, partners, pairs, face_columns, face_partners, face_pairs })
    }

    /// Representatives (pairs and fixed nodes): the folded operators have twice as many rows.
    pub fn reps(&self) -> usize {
        self.nodes.len()
    }

    /// The fixed representatives at order `order` (the nodes on r = s of the warp-and-blend set): ⌊N/2⌋ + 1.
    pub fn fixed_nodes(order: usize) -> usize {
        order / 2 + 1
    }

    /// Representatives at order `order`, without building the element: (np + fixed) / 2.
    pub fn reps_at(order: usize) -> usize {
        (dg_core::triangle::num_nodes(order) + Self::fixed_nodes(order)) / 2
    }

    /// Face representatives at order `order`: the pairs of face 0 with face 2 (nfp), face 1's pairs and its middle
    /// node at even orders.
    pub fn face_reps_at(order: usize) -> usize {
        let nfp = order + 1;
        nfp + nfp.div_ceil(2)
    }

    /// Entry (row `n`, folded column) of `a` for representative `c`'s sum (`odd` false: (a_j + a_g) carries the
    /// weight, halved again at a fixed node whose sum is 2·a_j) or a pair's difference (`odd` true).
    fn column_weight(a: &Matrix, n: usize, j: usize, g: usize, odd: bool) -> f64 {
        match (odd, j == g) {
            (false, false) => (a[(n, j)] + a[(n, g)]) / 2.0,
            (false, true) => a[(n, j)] / 2.0,
            (true, _) => (a[(n, j)] - a[(n, g)]) / 2.0,
        }
    }

    /// `a`'s folded row pair of representative `r` at one folded column: (symmetric row, antisymmetric row).
    fn row_pair(&self, weight: impl Fn(usize) -> f64, r: usize) -> (f64, f64) {
        let (i, h) = (self.nodes[r], self.partners[r]);
        let (wi, wh) = (weight(i), weight(h));
        ((wi + wh) / 2.0, if i == h { 0.0 } else { (wi - wh) / 2.0 })
    }

    /// The folded volume operator: 2·reps rows (representative r's symmetric row 2r, its antisymmetric row 2r + 1)
    /// by np columns (representative c's sum a_j + a_g at column c, pair c's difference a_j − a_g at column
    /// reps + c). Symmetric rows take D+ at the sums and D− at the differences, antisymmetric rows D− at the sums
    /// and D+ at the differences, D± = (Dr ± Ds)/2; so with gr, gs the contravariant fluxes, a = gr + gs and
    /// b = gr − gs, Dr·gr + Ds·gs is: symmetric rows times [sums of a | differences of b], antisymmetric rows times
    /// [sums of b | differences of a]. Refused when a dropped entry (D+ between sums and differences, D− within
    /// them) is not zero.
    pub fn volume_operator(&self, element: &ReferenceTriangle) -> Result<Matrix, MirrorError> {
        let plus = (&element.dr + &element.ds) / 2.0;
        let minus = (&element.dr - &element.ds) / 2.0;
        let (reps, np) = (self.reps(), element.np);
        let mut out = Matrix::zeros(2 * reps, np);
        let (mut kept, mut dropped) = (0.0f64, 0.0f64);
        for column in 0..np {
            let odd = column >= reps;
            let c = if odd { column - reps } else { column };
            let (j, g) = (self.nodes[c], self.partners[c]);
            for r in 0..reps {
                let (p_sym, p_anti) = self.row_pair(|n| Self::column_weight(&plus, n, j, g, odd), r);
                let (m_sym, m_anti) = self.row_pair(|n| Self::column_weight(&minus, n, j, g, odd), r);
                // sums: D+ to symmetric rows, D− to antisymmetric ones; differences the other way round
                let (sym, anti, drop) =
                    if odd { (m_sym, p_anti, [p_sym, m_anti]) } else { (p_sym, m_anti, [m_sym, p_anti]) };
                out[(2 * r, column)] = sym;
                out[(2 * r + 1, column)] = anti;
                kept = largest(kept, &[sym, anti]);
                dropped = largest(dropped, &drop);
            }
        }
        Self::check("volume operator", kept, dropped)?;
        Ok(out)
    }

    /// The folded lift: 2·reps rows by the face representatives' columns; symmetric rows multiply the face jumps'
    /// sums J_f + J_g, antisymmetric rows their differences J_f − J_g (zero at a column that is its own mirror).
    pub fn lift_operator(&self, element: &ReferenceTriangle) -> Result<Matrix, MirrorError> {
        let reps = self.reps();
        let lift = &element.lift;
        let mut out = Matrix::zeros(2 * reps, self.face_columns.len());
        let (mut kept, mut dropped) = (0.0f64, 0.0f64);
        for (c, (&f, &g)) in self.face_columns.iter().zip(&self.face_partners).enumerate() {
            for r in 0..reps {
                let (sym, anti_of_sum) = self.row_pair(|n| Self::column_weight(lift, n, f, g, false), r);
                let (sym_of_diff, anti) = self.row_pair(|n| Self::column_weight(lift, n, f, g, true), r);
                out[(2 * r, c)] = sym;
                out[(2 * r + 1, c)] = anti;
                kept = largest(kept, &[sym, anti]);
                dropped = largest(dropped, &[anti_of_sum, sym_of_diff]);
            }
        }
        Self::check("lift", kept, dropped)?;
        Ok(out)
    }

    fn check(operator: &'static str, kept: f64, dropped: f64) -> Result<(), MirrorError> {
        let size = dropped / kept;
        if size.is_nan() || size > ZERO {
            return Err(MirrorError::NotSymmetric { operator, size });
        }
        Ok(())
    }
}

/// The largest of `so_far` and the magnitudes of `values`; NaN once any is NaN (`f64::max` would drop it).
fn largest(so_far: f64, values: &[f64]) -> f64 {
    values.iter().fold(so_far, |m, x| if m.is_nan() || x.is_nan() { f64::NAN } else { m.max(x.abs()) })
}

/// One class of an element's work items in a [`RowShare`]: `items` work items from work item `first` on, each
/// keeping both rows of `pairs` pairs (pair u's symmetric row at 2u of its block, its antisymmetric row at 2u + 1), then
/// the symmetric rows of `fixed` fixed nodes (at 2·`pairs` + j; a fixed node's antisymmetric row is zero and is not
/// kept), in a block of `item_rows` rows of each folded column; its blocks start at row `base`. The pairs (and the
/// fixed nodes) of a class's work items follow one another from the first on: a class holds all pairs or none, and
/// all fixed nodes or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShareClass {
    /// The class's first work item.
    pub first: usize,
    /// Its work items.
    pub items: usize,
    /// Pairs per work item.
    pub pairs: usize,
    /// Fixed nodes per work item.
    pub fixed: usize,
    /// Rows of a work item's block: its 2·`pairs` + `fixed` rows rounded up to the vector width.
    pub item_rows: usize,
    /// The first row of the class's first block.
    pub base: usize,
}

impl ShareClass {
    /// Rows a work item of the class computes: both rows of its pairs, the symmetric rows of its fixed nodes.
    pub fn rows(&self) -> usize {
        2 * self.pairs + self.fixed
    }
}

/// How the folded rows of the whole-element mirror tiles are shared out among an element's work items, when not
/// consecutively (two rows per representative, a fixed node's zero antisymmetric row and the padding included: at
/// N = 8, 20 pairs and 5 fixed nodes, with seven work items 56 rows for 45 values). `balanced<t>`
/// ([`RowShare::balanced`]): one class, every work item an even share of the pairs and of the fixed nodes (N = 8,
/// five work items: 45 rows). `segregated<t>` ([`RowShare::segregated`]): the pairs on the first t − 1 work items,
/// the fixed nodes on the last, which then forms and reads no antisymmetric input (N = 7, five work items: four of
/// eight rows, one of four). Work items of one class run the same code; with groups of 32 elements a warp holds one
/// work item of each of 32 elements, so the classes never diverge within a warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RowShare {
    /// The classes in work-item order; a second class of no work items is absent.
    pub classes: [ShareClass; 2],
}

impl RowShare {
    /// Every work item of `threads` an even share of the pairs and of the fixed nodes at order `order`, each block
    /// rounded up to `width` rows.
    pub fn balanced(order: usize, threads: usize, width: usize) -> Self {
        let threads = threads.max(1);
        let fixed_nodes = Mirror::fixed_nodes(order);
        let pairs = (Mirror::reps_at(order) - fixed_nodes).div_ceil(threads);
        let fixed = fixed_nodes.div_ceil(threads);
        let item_rows = (2 * pairs + fixed).next_multiple_of(width.max(1));
        let class = ShareClass { first: 0, items: threads, pairs, fixed, item_rows, base: 0 };
        Self { classes: [class, ShareClass { first: threads, items: 0, base: threads * item_rows, ..class }] }
    }

    /// The pairs evenly on the first `threads` − 1 work items, every fixed node on the last (one work item: all on
    /// it, as [`RowShare::balanced`]).
    pub fn segregated(order: usize, threads: usize, width: usize) -> Self {
        if threads <= 1 {
            return Self::balanced(order, threads, width);
        }
        let width = width.max(1);
        let fixed_nodes = Mirror::fixed_nodes(order);
        let pairs = (Mirror::reps_at(order) - fixed_nodes).div_ceil(threads - 1);
        let pair_rows = (2 * pairs).next_multiple_of(width);
        let pair_class = ShareClass { first: 0, items: threads - 1, pairs, fixed: 0, item_rows: pair_rows, base: 0 };
        let fixed_class = ShareClass {
            first: threads - 1,
            items: 1,
            pairs: 0,
            fixed: fixed_nodes,
            item_rows: fixed_nodes.next_multiple_of(width),
            base: (threads - 1) * pair_rows,
        };
        Self { classes: [pair_class, fixed_class] }
    }

    /// The classes that hold work items.
    pub fn active(&self) -> impl Iterator<Item = &ShareClass> {
        self.classes.iter().filter(|c| c.items > 0)
    }

    /// The most rows a work item computes (its accumulators).
    pub fn rows(&self) -> usize {
        self.active().map(ShareClass::rows).max().unwrap_or(0)
    }

    /// The longest block of a work item.
    pub fn item_rows(&self) -> usize {
        self.active().map(|c| c.item_rows).max().unwrap_or(0)
    }

    /// Rows of a folded column the work items' blocks cover.
    pub fn covered_rows(&self) -> usize {
        self.active().map(|c| c.items * c.item_rows).sum()
    }

    /// Whether work item `item` keeps no row at order `order` (past every pair and every fixed node of its class).
    pub fn is_idle(&self, order: usize, item: usize) -> bool {
        let fixed_nodes = Mirror::fixed_nodes(order);
        let pairs = Mirror::reps_at(order) - fixed_nodes;
        self.active().find(|c| (c.first..c.first + c.items).contains(&item)).is_none_or(|c| {
            let local = item - c.first;
            let has_pair = c.pairs > 0 && local * c.pairs < pairs;
            let has_fixed = c.fixed > 0 && local * c.fixed < fixed_nodes;
            !(has_pair || has_fixed)
        })
    }
}

/// Which folded row (of [`Mirror::volume_operator`] and [`Mirror::lift_operator`]) each of a kernel's `stride` rows
/// holds: the first 2·reps in order (the consecutive mirror tiles, `share` `None`), or work item by work item in
/// `share`'s blocks; `None` for a zero row.
pub fn kernel_rows(mirror: &Mirror, share: Option<RowShare>, stride: usize) -> Vec<Option<usize>> {
    let reps = mirror.reps();
    (0..stride)
        .map(|i| match share {
            None => (i < 2 * reps).then_some(i),
            Some(share) => {
                share.active().find(|c| (c.base..c.base + c.items * c.item_rows).contains(&i)).and_then(|c| {
                    let (item, row) = ((i - c.base) / c.item_rows, (i - c.base) % c.item_rows);
                    if row < 2 * c.pairs {
                        let pair = item * c.pairs + row / 2;
                        (pair < mirror.pairs).then_some(2 * pair + row % 2)
                    } else if row < c.rows() {
                        let rep = mirror.pairs + item * c.fixed + (row - 2 * c.pairs);
                        (rep < reps).then_some(2 * rep)
                    } else {
                        None
                    }
                })
            }
        })
        .collect()
}

/// The mirror tiles' operator as the kernels read it: the folded volume operator's columns, then the folded lift's,
/// each column the `stride` values of its rows in the order [`kernel_rows`] gives (zero where it gives none).
pub fn mirror_matrices<T: dg_core::Real>(
    element: &ReferenceTriangle,
    share: Option<RowShare>,
    stride: usize,
) -> Result<Vec<T>, MirrorError> {
    let mirror = Mirror::of(element)?;
    let volume = mirror.volume_operator(element)?;
    let lift = mirror.lift_operator(element)?;
    let rows = kernel_rows(&mirror, share, stride);
    let mut out = Vec::with_capacity((volume.ncols() + lift.ncols()) * stride);
    for m in [&volume, &lift] {
        for j in 0..m.ncols() {
            out.extend(rows.iter().map(|row| T::from_f64(row.map_or(0.0, |i| m[(i, j)]))));
        }
    }
    Ok(out)
}

// (the unit tests live in their own file, outside the code fingerprint: editing them moves no tuning entry)
#[cfg(test)]
mod tests;
