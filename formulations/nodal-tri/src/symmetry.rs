//! The reference triangle's whole symmetry group D3 (three rotations, three reflections): the bases in which the
//! nodal operators are block diagonal, and the multiply-adds that leaves them. Groundwork for tiles folded by D3, the
//! next step for issue 14's N = 8 f32 point (`docs/performance.md`, section "The submitted binary's points again"):
//! no kernel uses it yet.
//!
//! [`crate::mirror`] folds the operators by one reflection and halves their products. The warp-and-blend nodes are
//! symmetric under all six affine maps of the reference triangle onto itself (the permutations of its vertices), so by
//! Schur's lemma an operator that commutes with them has, in a basis adapted to the group's irreducible representations
//! (A1 and A2 of dimension 1, E of dimension 2), one block per representation, E's block acting on both of E's
//! components alike. Scalar fields (nodal values, face values) carry the permutations of their points; gradients and
//! contravariant fluxes carry them times the maps' linear parts, which are orthogonal in the frame of the equilateral
//! triangle ([`TriangleSymmetry::frame`]). [`TriangleSymmetry::blocks`] writes an operator in such bases and checks
//! that every entry outside the blocks vanishes; for the nodal Maxwell operator that leaves 54–56 % of the mirror
//! tiles' multiply-adds at N = 1..10 (`scripts/probe/d3_counts.py` counts the same from the orbits). The bases are
//! orbit-local, but the changes of basis are not free: done densely, orbit by orbit
//! ([`maxwell_transform_multiply_adds`]), they cost as much as the blocks save (N = 8: 2,648 against 5,940 − 3,270); a
//! kernel would need them structured (the mirror's sums and differences, then a 3-point transform per rotation triple).

use dg_core::matrix::Matrix;
use dg_core::triangle::ReferenceTriangle;

/// The six permutations of the triangle's vertices, the identity first: element g maps vertex k to `PERMS[g][k]`.
pub const PERMS: [[usize; 3]; 6] = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]];

/// Relative size below which an entry outside the blocks counts as zero (the operators are built in f64 from a
/// Vandermonde inverse, symmetric to about 1e-13 at N = 10).
const ZERO: f64 = 1e-9;

/// Why the symmetry-adapted form of an element or operator could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SymmetryError {
    /// A node's image under a group element is not a node.
    #[error("node {node} at (r, s) = ({r}, {s}) has no image under the vertex permutation {perm:?}")]
    NoImage {
        /// The node.
        node: usize,
        /// Its r.
        r: f64,
        /// Its s.
        s: f64,
        /// The group element.
        perm: [usize; 3],
    },
    /// An operator keeps an entry outside the blocks.
    #[error("the {operator} keeps an entry of {size:e} (relative to its largest) outside the blocks of D3")]
    NotEquivariant {
        /// Which operator.
        operator: &'static str,
        /// The largest entry outside the blocks, relative to the largest kept.
        size: f64,
    },
    /// The adapted basis does not have the dimensions the orbits give.
    #[error("the {space} splits into {got:?} (A1, A2, E) where its orbits give {want:?}")]
    Dimensions {
        /// Which space.
        space: &'static str,
        /// Multiplicities found.
        got: (usize, usize, usize),
        /// Multiplicities from the orbits.
        want: (usize, usize, usize),
    },
}

/// The group's action on one element's points.
#[derive(Debug, Clone)]
pub struct TriangleSymmetry {
    /// Node i goes to node `nodes[g][i]` under element g.
    pub nodes: Vec<Vec<usize>>,
    /// Face-node column f·nfp + a (LIFT's columns) goes to column `faces[g][f·nfp + a]`.
    pub faces: Vec<Vec<usize>>,
    /// The reference-to-equilateral map B (x_ref = B·x_eq + c), row-major 2 × 2.
    frame_map: [f64; 4],
}

/// A basis of a space adapted to D3: its columns are `a1` vectors of A1, `a2` of A2, then `e` first components of
/// E and their `e` partners in the same order, orthonormal.
#[derive(Debug, Clone)]
pub struct AdaptedBasis {
    /// The basis, one vector per column.
    pub q: Matrix,
    /// Multiplicity of A1.
    pub a1: usize,
    /// Multiplicity of A2.
    pub a2: usize,
    /// Multiplicity of E.
    pub e: usize,
}

impl AdaptedBasis {
    /// Multiply-adds of a change to or from this basis: its entries that are not zero (each basis vector lies on
    /// one orbit of at most 6 points, or 12 components).
    pub fn transform_multiply_adds(&self) -> usize {
        self.q.iter().filter(|x| x.abs() > 1e-12).count()
    }

    /// The column ranges of the four parts: A1, A2, E's first components, E's second.
    fn parts(&self) -> [std::ops::Range<usize>; 4] {
        let (a, b, e) = (self.a1, self.a2, self.e);
        [0..a, a..a + b, a + b..a + b + e, a + b + e..a + b + 2 * e]
    }
}

/// An operator in adapted bases: its blocks (A1 × A1, A2 × A2, and E's block, the same for both components) and
/// the multiply-adds applying them takes.
#[derive(Debug, Clone)]
pub struct Blocks {
    /// Rows × columns of the A1, A2 and E blocks.
    pub shapes: [(usize, usize); 3],
}

impl Blocks {
    /// Multiply-adds of one application: the A1 and A2 blocks once, E's block on each of E's two components.
    pub fn multiply_adds(&self) -> usize {
        let [a, b, e] = self.shapes;
        a.0 * a.1 + b.0 * b.1 + 2 * e.0 * e.1
    }
}

impl TriangleSymmetry {
    /// The group's action on `element`'s nodes and face nodes.
    pub fn of(element: &ReferenceTriangle) -> Result<Self, SymmetryError> {
        let np = element.np;
        // barycentric coordinates of the vertices (−1, −1), (1, −1), (−1, 1)
        let bary = |i: usize| {
            let (r, s) = (element.r[i], element.s[i]);
            [-(r + s) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0]
        };
        let mut nodes = Vec::with_capacity(6);
        for perm in PERMS {
            let image = |i: usize| -> Result<usize, SymmetryError> {
                let l = bary(i);
                let mut m = [0.0; 3];
                for k in 0..3 {
                    m[perm[k]] = l[k];
                }
                let (r, s) = (2.0 * m[1] - 1.0, 2.0 * m[2] - 1.0);
                (0..np)
                    .find(|&j| (element.r[j] - r).abs() < 1e-10 && (element.s[j] - s).abs() < 1e-10)
                    .ok_or(SymmetryError::NoImage { node: i, r: element.r[i], s: element.s[i], perm })
            };
            nodes.push((0..np).map(image).collect::<Result<Vec<_>, _>>()?);
        }
        // face f joins vertices f and f + 1 (face 0: s = −1, 1: r + s = 0, 2: r = −1); its image joins their images
        let nfp = element.nfp;
        let mut faces = Vec::with_capacity(6);
        for (g, perm) in PERMS.iter().enumerate() {
            let image = |column: usize| -> Result<usize, SymmetryError> {
                let (face, a) = (column / nfp, column % nfp);
                let ends = [perm[face], perm[(face + 1) % 3]];
                let own = element.fmask[face][a];
                let missing = SymmetryError::NoImage { node: own, r: element.r[own], s: element.s[own], perm: *perm };
                // (a permutation takes an edge to an edge: the face joining the two images always exists)
                let target = (0..3).find(|&f| ends.contains(&f) && ends.contains(&((f + 1) % 3)));
                let node = nodes[g][own];
                target
                    .and_then(|t| element.fmask[t].iter().position(|&n| n == node).map(|b| t * nfp + b))
                    .ok_or(missing)
            };
            faces.push((0..3 * nfp).map(image).collect::<Result<Vec<_>, _>>()?);
        }
        // the equilateral triangle (−1, −1/√3), (1, −1/√3), (0, 2/√3) onto the reference one: B's columns are the
        // images of its edge vectors' solution
        let h = 3f64.sqrt();
        let (e1, e2) = ([2.0, 0.0], [1.0, h]); // equilateral edges v1 − v0, v2 − v0
        let (r1, r2) = ([2.0, 0.0], [0.0, 2.0]); // reference edges
        let det = e1[0] * e2[1] - e2[0] * e1[1];
        // B = [r1 r2]·[e1 e2]⁻¹
        let inv = [e2[1] / det, -e2[0] / det, -e1[1] / det, e1[0] / det];
        let frame_map = [
            r1[0] * inv[0] + r2[0] * inv[2],
            r1[0] * inv[1] + r2[0] * inv[3],
            r1[1] * inv[0] + r2[1] * inv[2],
            r1[1] * inv[1] + r2[1] * inv[3],
        ];
        Ok(Self { nodes, faces, frame_map })
    }

    /// The permutation matrix of element g on a space whose points go to `image` (R·e_i = e_image(i)).
    fn permutation(image: &[usize]) -> Matrix {
        let n = image.len();
        let mut m = Matrix::zeros(n, n);
        for (i, &j) in image.iter().enumerate() {
            m[(j, i)] = 1.0;
        }
        m
    }

    /// Element g's linear part in the equilateral frame (orthogonal), row-major 2 × 2: O = B⁻¹·A·B with A the
    /// map's linear part in (r, s).
    pub fn frame(&self, g: usize) -> [f64; 4] {
        let perm = PERMS[g];
        // A maps the reference edge vectors v_k − v_0 to v_perm(k) − v_perm(0)
        let v = [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]];
        let d = |k: usize| [v[perm[k]][0] - v[perm[0]][0], v[perm[k]][1] - v[perm[0]][1]];
        let (d1, d2) = (d(1), d(2));
        // reference edges are (2, 0) and (0, 2): A = [d1 d2] / 2
        let a = [d1[0] / 2.0, d2[0] / 2.0, d1[1] / 2.0, d2[1] / 2.0];
        let b = self.frame_map;
        let det = b[0] * b[3] - b[1] * b[2];
        let b_inv = [b[3] / det, -b[1] / det, -b[2] / det, b[0] / det];
        mul2(&mul2(&b_inv, &a), &b)
    }

    /// The reference-to-equilateral map B, row-major: gradients in the equilateral frame are Bᵀ·(∂r, ∂s), and
    /// contravariant fluxes (g_r, g_s) are B·(their equilateral components).
    pub fn frame_map(&self) -> [f64; 4] {
        self.frame_map
    }

    /// E's matrices, orthogonal: the permutations' action on the plane Σx = 0 in the basis (1, −1, 0)/√2,
    /// (1, 1, −2)/√6.
    fn e_matrix(g: usize) -> [f64; 4] {
        let u =
            [[1.0 / 2f64.sqrt(), -1.0 / 2f64.sqrt(), 0.0], [1.0 / 6f64.sqrt(), 1.0 / 6f64.sqrt(), -2.0 / 6f64.sqrt()]];
        let perm = PERMS[g];
        let mut d = [0.0; 4];
        for i in 0..2 {
            for j in 0..2 {
                // (P·u_j)_perm(k) = u_j,k
                d[2 * i + j] = (0..3).map(|k| u[i][perm[k]] * u[j][k]).sum();
            }
        }
        d
    }

    /// The sign of element g (the A2 character): +1 for rotations, −1 for reflections.
    fn sign(g: usize) -> f64 {
        if g < 3 {
            1.0
        } else {
            -1.0
        }
    }

    /// The representation on nodal values.
    pub fn node_rep(&self, g: usize) -> Matrix {
        Self::permutation(&self.nodes[g])
    }

    /// The representation on face values (LIFT's columns).
    pub fn face_rep(&self, g: usize) -> Matrix {
        Self::permutation(&self.faces[g])
    }

    /// The representation on vector fields in the equilateral frame, stored component by component (first all nodes'
    /// first components): O_g ⊗ R_g.
    pub fn vector_rep(&self, g: usize) -> Matrix {
        let (o, r) = (self.frame(g), self.node_rep(g));
        let np = r.nrows();
        let mut m = Matrix::zeros(2 * np, 2 * np);
        for a in 0..2 {
            for b in 0..2 {
                m.view_mut((a * np, b * np), (np, np)).copy_from(&(&r * o[2 * a + b]));
            }
        }
        m
    }

    /// A basis of the space of `rep` adapted to D3, checked to have the multiplicities `want` (A1, A2, E). Each
    /// basis vector lies on one orbit (the points, or the points' components, that the group's elements carry into
    /// one another), so that a kernel's work item can transform the values of the orbits it holds by itself.
    pub fn adapted_basis(
        rep: impl Fn(usize) -> Matrix,
        space: &'static str,
        want: (usize, usize, usize),
    ) -> Result<AdaptedBasis, SymmetryError> {
        let reps: Vec<Matrix> = (0..6).map(&rep).collect();
        let n = reps[0].nrows();
        // the orbits: connected components of the coordinates the representation's matrices link
        let mut orbit = vec![usize::MAX; n];
        let mut orbits: Vec<Vec<usize>> = Vec::new();
        for start in 0..n {
            if orbit[start] != usize::MAX {
                continue;
            }
            let (id, mut members, mut todo) = (orbits.len(), Vec::new(), vec![start]);
            orbit[start] = id;
            while let Some(i) = todo.pop() {
                members.push(i);
                for r in &reps {
                    for j in 0..n {
                        if orbit[j] == usize::MAX && (r[(j, i)] != 0.0 || r[(i, j)] != 0.0) {
                            orbit[j] = id;
                            todo.push(j);
                        }
                    }
                }
            }
            members.sort_unstable();
            orbits.push(members);
        }
        // each orbit's parts from the representation restricted to it
        let (mut a1, mut a2, mut e1, mut e2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for members in &orbits {
            let m = members.len();
            let restricted: Vec<Matrix> =
                reps.iter().map(|r| Matrix::from_fn(m, m, |a, b| r[(members[a], members[b])])).collect();
            let combine = |weight: &dyn Fn(usize) -> f64| {
                restricted.iter().enumerate().fold(Matrix::zeros(m, m), |acc, (g, r)| acc + r * weight(g))
            };
            let embed = |v: &Matrix| {
                let mut full = Matrix::zeros(n, 1);
                for (a, &i) in members.iter().enumerate() {
                    full[(i, 0)] = v[(a, 0)];
                }
                full
            };
            let p_e21 = combine(&|g| Self::e_matrix(g)[2] / 3.0);
            a1.extend(range(&combine(&|_| 1.0 / 6.0)).iter().map(embed));
            a2.extend(range(&combine(&|g| Self::sign(g) / 6.0)).iter().map(embed));
            for v in range(&combine(&|g| Self::e_matrix(g)[0] / 3.0)) {
                e2.push(embed(&(&p_e21 * &v)));
                e1.push(embed(&v));
            }
        }
        let got = (a1.len(), a2.len(), e1.len());
        if got != want || got.0 + got.1 + 2 * got.2 != n {
            return Err(SymmetryError::Dimensions { space, got, want });
        }
        let mut q = Matrix::zeros(n, n);
        for (j, v) in a1.iter().chain(&a2).chain(&e1).chain(&e2).enumerate() {
            q.set_column(j, &v.column(0));
        }
        Ok(AdaptedBasis { q, a1: got.0, a2: got.1, e: got.2 })
    }

    /// `m` (rows in the space of `out`, columns in that of `inp`) in the adapted bases: its block shapes, checked to
    /// keep nothing outside the A1, A2 and E blocks and the same E block on both components.
    pub fn blocks(
        operator: &'static str,
        out: &AdaptedBasis,
        m: &Matrix,
        inp: &AdaptedBasis,
    ) -> Result<Blocks, SymmetryError> {
        let b = out.q.transpose() * m * &inp.q;
        let (ro, ci) = (out.parts(), inp.parts());
        let mut kept = 0.0f64;
        let mut dropped = 0.0f64;
        for i in 0..b.nrows() {
            for j in 0..b.ncols() {
                let (pi, pj) = (part_of(&ro, i), part_of(&ci, j));
                let x = b[(i, j)];
                if x.is_nan() {
                    return Err(SymmetryError::NotEquivariant { operator, size: f64::NAN });
                }
                if pi == pj {
                    kept = kept.max(x.abs());
                } else {
                    dropped = dropped.max(x.abs());
                }
            }
        }
        // E's block on the second components equals the one on the first
        let first = b.view((ro[2].start, ci[2].start), (out.e, inp.e)).into_owned();
        let second = b.view((ro[3].start, ci[3].start), (out.e, inp.e)).into_owned();
        dropped = dropped.max((first - second).abs().max());
        let size = dropped / kept;
        if size.is_nan() || size > ZERO {
            return Err(SymmetryError::NotEquivariant { operator, size });
        }
        Ok(Blocks { shapes: [(out.a1, inp.a1), (out.a2, inp.a2), (out.e, inp.e)] })
    }
}

/// The range of a projector `p` (symmetric up to rounding; eigenvalues 0 and 1): the eigenvectors of 1, each m × 1.
fn range(p: &Matrix) -> Vec<Matrix> {
    let sym = (p + p.transpose()) / 2.0;
    let eig = sym.symmetric_eigen();
    (0..p.nrows()).filter(|&i| eig.eigenvalues[i] > 0.5).map(|i| eig.eigenvectors.columns(i, 1).into_owned()).collect()
}

/// Which of the four column ranges holds index `i`.
fn part_of(parts: &[std::ops::Range<usize>; 4], i: usize) -> usize {
    parts.iter().position(|p| p.contains(&i)).unwrap_or(usize::MAX)
}

/// Product of two row-major 2 × 2 matrices.
fn mul2(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]]
}

/// The multiplicities (A1, A2, E) of the nodes of order `order` from their orbits under D3 (barycentric (i, j, k),
/// i + j + k = N: the centroid is an orbit of 1 carrying A1, two equal coordinates an orbit of 3 carrying A1 + E,
/// all different an orbit of 6 carrying A1 + A2 + 2E).
pub fn node_multiplicities(order: usize) -> (usize, usize, usize) {
    let one = usize::from(order.is_multiple_of(3));
    let three = (0..=order / 2).filter(|a| 3 * a != order).count();
    let six = (dg_core::triangle::num_nodes(order) - one - 3 * three) / 6;
    (one + three + six, six, three + 2 * six)
}

/// The multiplicities (A1, A2, E) of the face-node columns of order `order`: (face, a) and (face', N − a) pair into
/// orbits of 6 across the three faces, the faces' middles at even N an orbit of 3.
pub fn face_multiplicities(order: usize) -> (usize, usize, usize) {
    let three = usize::from(order.is_multiple_of(2));
    let six = (order + 1 - three) / 2;
    (three + six, six, three + 2 * six)
}

/// The multiplicities of a vector field over the nodes: the nodes' times E (A1·E = A2·E = E, E·E = A1 + A2 + E).
pub fn vector_multiplicities(order: usize) -> (usize, usize, usize) {
    let (a, b, e) = node_multiplicities(order);
    (e, e, a + b + e)
}

/// An element's symmetry and its three adapted bases: nodal values, vector fields over the nodes (equilateral
/// frame), face values.
#[derive(Debug, Clone)]
pub struct ElementBases {
    /// The group's action.
    pub symmetry: TriangleSymmetry,
    /// Nodal values.
    pub nodes: AdaptedBasis,
    /// Vector fields over the nodes, component by component.
    pub vectors: AdaptedBasis,
    /// Face values (LIFT's columns).
    pub faces: AdaptedBasis,
}

impl ElementBases {
    /// The bases of `element`, each checked to have its orbits' multiplicities.
    pub fn of(element: &ReferenceTriangle) -> Result<Self, SymmetryError> {
        let symmetry = TriangleSymmetry::of(element)?;
        let order = element.order;
        let sym = &symmetry;
        let nodes = TriangleSymmetry::adapted_basis(|g| sym.node_rep(g), "nodal values", node_multiplicities(order))?;
        let vectors =
            TriangleSymmetry::adapted_basis(|g| sym.vector_rep(g), "vector fields", vector_multiplicities(order))?;
        let faces = TriangleSymmetry::adapted_basis(|g| sym.face_rep(g), "face values", face_multiplicities(order))?;
        Ok(Self { symmetry, nodes, vectors, faces })
    }
}

/// The nodal Maxwell operator's multiply-adds per element in D3's blocks, checked on `element`: the flux-first
/// divergence [Dr Ds]·B (a vector field in the equilateral frame to nodal values) and the shared gradient
/// Bᵀ·[Dr; Ds] (the converse), and the lift of three fields. Returns (volume, lift).
pub fn maxwell_multiply_adds(element: &ReferenceTriangle) -> Result<(usize, usize), SymmetryError> {
    let b = ElementBases::of(element)?;
    let (gradient, divergence) = frame_derivatives(&b.symmetry, element);
    let g = TriangleSymmetry::blocks("gradient", &b.vectors, &gradient, &b.nodes)?;
    let d = TriangleSymmetry::blocks("divergence", &b.nodes, &divergence, &b.vectors)?;
    let l = TriangleSymmetry::blocks("lift", &b.nodes, &element.lift, &b.faces)?;
    Ok((g.multiply_adds() + d.multiply_adds(), 3 * l.multiply_adds()))
}

/// Multiply-adds per element of the changes of basis the nodal Maxwell operator in D3's blocks adds, with dense
/// orbit-local transforms (each coefficient a dot product over its orbit): into the bases the shared field's values,
/// the flux-first variable's contravariant flux (a vector field) and the three fields' face jumps; out of them the
/// divergence, the gradient and the lift of the other two fields (which the element's metric then combines with the
/// gradient node by node). An upper bound: the transforms have structure (sums and differences, a 3-point rotation)
/// this count does not use.
pub fn maxwell_transform_multiply_adds(element: &ReferenceTriangle) -> Result<usize, SymmetryError> {
    let b = ElementBases::of(element)?;
    let (n, v, f) =
        (b.nodes.transform_multiply_adds(), b.vectors.transform_multiply_adds(), b.faces.transform_multiply_adds());
    // in: shared field, flux, 3 jumps; out: divergence (+ its field's lift), gradient, the two other fields' lifts
    Ok((n + v + 3 * f) + (n + v + 2 * n))
}

/// The gradient in the equilateral frame, Bᵀ·[Dr; Ds] (2np × np, component by component), and the divergence of a
/// contravariant flux given by its equilateral components, [Dr Ds]·B (np × 2np).
pub fn frame_derivatives(sym: &TriangleSymmetry, element: &ReferenceTriangle) -> (Matrix, Matrix) {
    let b = sym.frame_map();
    let np = element.np;
    let (dr, ds) = (&element.dr, &element.ds);
    let mut gradient = Matrix::zeros(2 * np, np);
    gradient.view_mut((0, 0), (np, np)).copy_from(&(dr * b[0] + ds * b[2]));
    gradient.view_mut((np, 0), (np, np)).copy_from(&(dr * b[1] + ds * b[3]));
    let mut divergence = Matrix::zeros(np, 2 * np);
    divergence.view_mut((0, 0), (np, np)).copy_from(&(dr * b[0] + ds * b[2]));
    divergence.view_mut((0, np), (np, np)).copy_from(&(dr * b[1] + ds * b[3]));
    (gradient, divergence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(order: usize) -> ReferenceTriangle {
        ReferenceTriangle::new(order).expect("orders 1..=10 build")
    }

    #[test]
    fn the_actions_are_representations_and_the_frame_is_orthogonal() {
        for order in [1, 4, 8] {
            let el = element(order);
            let sym = TriangleSymmetry::of(&el).expect("warp-and-blend nodes are D3-symmetric");
            // composition: element g after element h is the permutation k ↦ g(h(k))
            let compose = |g: usize, h: usize| {
                let p: [usize; 3] = std::array::from_fn(|k| PERMS[g][PERMS[h][k]]);
                PERMS.iter().position(|q| *q == p).expect("the six permutations are a group")
            };
            for g in 0..6 {
                let o = sym.frame(g);
                let oot = mul2(&o, &[o[0], o[2], o[1], o[3]]);
                assert!((oot[0] - 1.0).abs() < 1e-12 && oot[1].abs() < 1e-12 && (oot[3] - 1.0).abs() < 1e-12);
                for h in 0..6 {
                    let gh = compose(g, h);
                    assert_eq!(sym.node_rep(g) * sym.node_rep(h), sym.node_rep(gh), "N={order} nodes {g}·{h}");
                    assert_eq!(sym.face_rep(g) * sym.face_rep(h), sym.face_rep(gh), "N={order} faces {g}·{h}");
                    let diff = (sym.vector_rep(g) * sym.vector_rep(h) - sym.vector_rep(gh)).abs().max();
                    assert!(diff < 1e-12, "N={order} vectors {g}·{h}: {diff:e}");
                    let (a, b, c) =
                        (TriangleSymmetry::e_matrix(g), TriangleSymmetry::e_matrix(h), TriangleSymmetry::e_matrix(gh));
                    let ab = mul2(&a, &b);
                    assert!((0..4).all(|i| (ab[i] - c[i]).abs() < 1e-12), "E {g}·{h}");
                }
            }
        }
    }

    #[test]
    fn every_operator_is_block_diagonal_in_the_adapted_bases_with_the_orbits_counts() {
        for order in 1..=10 {
            let el = element(order);
            let (volume, lift) = maxwell_multiply_adds(&el).expect("the operators commute with D3");
            // the same counts from the orbits alone (scripts/probe/d3_counts.py)
            let (a, b, e) = node_multiplicities(order);
            let (af, bf, ef) = face_multiplicities(order);
            let (va, vb, ve) = vector_multiplicities(order);
            assert_eq!(volume, 2 * (va * a + vb * b + 2 * ve * e), "N={order}");
            assert_eq!(lift, 3 * (a * af + b * bf + 2 * e * ef), "N={order}");
            // against the mirror tiles' products: 2·np² + 3·np·(face representatives)
            let mirror = crate::mirror::Mirror::of(&el).expect("mirror-symmetric");
            let mirror_products = 2 * el.np * el.np + 3 * el.np * mirror.face_columns.len();
            let ratio = (volume + lift) as f64 / mirror_products as f64;
            assert!((0.53..0.57).contains(&ratio), "N={order}: {ratio}");
            if order == 8 {
                assert_eq!((volume, lift), (2250, 1020));
            }
            // the mass matrix too (scalar to scalar)
            let nodes = ElementBases::of(&el).expect("the orbits' multiplicities").nodes;
            let q = &nodes.q;
            let identity = (q.transpose() * q - Matrix::identity(el.np, el.np)).abs().max();
            assert!(identity < 1e-10, "N={order}: the basis is orthonormal ({identity:e})");
            TriangleSymmetry::blocks("mass", &nodes, &el.mass, &nodes).expect("the mass matrix commutes with D3");
        }
    }

    #[test]
    fn each_basis_vector_lies_on_one_orbit() {
        for order in 1..=10 {
            let el = element(order);
            let ElementBases { symmetry: sym, nodes, vectors, .. } = ElementBases::of(&el).expect("multiplicities");
            let orbit_of = |i: usize| -> Vec<usize> {
                let mut o: Vec<usize> = sym.nodes.iter().map(|p| p[i]).collect();
                o.sort_unstable();
                o.dedup();
                o
            };
            for (basis, comps) in [(&nodes, 1), (&vectors, 2)] {
                for j in 0..basis.q.ncols() {
                    let support: Vec<usize> =
                        (0..basis.q.nrows()).filter(|&i| basis.q[(i, j)].abs() > 1e-12).map(|i| i % el.np).collect();
                    let first = support.first().copied().expect("a basis vector is not zero");
                    let orbit = orbit_of(first);
                    assert!(support.iter().all(|i| orbit.contains(i)), "N={order} column {j}: {support:?}");
                    assert!(support.len() <= comps * orbit.len());
                }
            }
            // a change of basis costs at most the squares of its orbits' sizes (each basis vector on one orbit)
            let squares = |perms: &[Vec<usize>], comps: usize| -> usize {
                let mut seen = vec![false; perms[0].len()];
                let mut total = 0;
                for i in 0..seen.len() {
                    if !seen[i] {
                        let mut orbit: Vec<usize> = perms.iter().map(|p| p[i]).collect();
                        orbit.sort_unstable();
                        orbit.dedup();
                        orbit.iter().for_each(|&j| seen[j] = true);
                        total += (comps * orbit.len()).pow(2);
                    }
                }
                total
            };
            assert!(nodes.transform_multiply_adds() <= squares(&sym.nodes, 1), "N={order}");
            assert!(vectors.transform_multiply_adds() <= squares(&sym.nodes, 2), "N={order}");
        }
    }

    #[test]
    fn an_operator_without_the_symmetry_is_refused() {
        let el = element(5);
        let sym = TriangleSymmetry::of(&el).expect("symmetric");
        let nodes = TriangleSymmetry::adapted_basis(|g| sym.node_rep(g), "nodal values", node_multiplicities(5))
            .expect("multiplicities");
        let vectors = TriangleSymmetry::adapted_basis(|g| sym.vector_rep(g), "vector fields", vector_multiplicities(5))
            .expect("multiplicities");
        let (mut gradient, _) = frame_derivatives(&sym, &el);
        TriangleSymmetry::blocks("gradient", &vectors, &gradient, &nodes).expect("equivariant");
        gradient[(3, 7)] += 1e-3;
        let err = TriangleSymmetry::blocks("gradient", &vectors, &gradient, &nodes).expect_err("one entry moved");
        assert!(matches!(err, SymmetryError::NotEquivariant { .. }), "{err}");
        // the gradient in (r, s), not the equilateral frame, does not commute with the vector representation
        let mut rs = Matrix::zeros(2 * el.np, el.np);
        rs.view_mut((0, 0), (el.np, el.np)).copy_from(&el.dr);
        rs.view_mut((el.np, 0), (el.np, el.np)).copy_from(&el.ds);
        assert!(TriangleSymmetry::blocks("gradient in (r, s)", &vectors, &rs, &nodes).is_err());
        // and multiplicities that the orbits do not give are refused
        assert!(matches!(
            TriangleSymmetry::adapted_basis(|g| sym.node_rep(g), "nodal values", (1, 1, 1)),
            Err(SymmetryError::Dimensions { .. })
        ));
    }
}
