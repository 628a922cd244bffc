//! One element's HDG matrices (seed 004, eqs. 8–17) for −∇·(κ∇u) + λu = f in the mixed form q = κ∇u.
//!
//! Unknowns of element e: v = (u, q₁, q₂), each in the orthonormal Dubiner basis φ of degree P; the trace λ on
//! each of its three edges in the orthonormal Legendre basis ψ of degree P, in the edge's global direction (from
//! its lower to its higher vertex index). With the numerical flux q̂·n = q·n − τ(u − λ):
//!
//! ```text
//! A v + C λ = (f, 0, 0),   A = [ τΣE_l + λM   −D₁    −D₂ ]     C = [ −τF_l   ]
//!                              [ D₁ᵀ          M/κ    0   ]         [ −F̃_{1l} ]   (one block column per edge l)
//!                              [ D₂ᵀ          0      M/κ ]         [ −F̃_{2l} ]
//! ```
//!
//! and the edge's flux condition Σ_e ⟨ψ, q̂·n⟩ = ⟨ψ, g_N⟩ reads B v + G λ, with B from its own integrals (it equals
//! CᵀĨ, Ĩ = diag(I, −I, −I): a test checks it) and G = blockdiag(τG̃_l). Eliminating v gives the element's
//! condensed matrix Kᵉ = G − B A⁻¹ C (eq. 17; the paper's text form has a sign error) and load −B A⁻¹ (f, 0, 0).

use crate::HdgError;
use dg_core::mesh::{ElementGeometry, FaceGeometry};
use dg_core::quadrature::{gauss_legendre, legendre, Rule1d};
use dg_core::triangle::{edge_points, equispaced_nodes, triangle_cubature, vandermonde, ModalTriangle, TriangleRule};
use nalgebra::DMatrix;

/// The penalty τ of the numerical flux (seed 004 uses 1 throughout).
pub const TAU: f64 = 1.0;

/// Reference tables of degree P: the element basis at volume and edge points, the trace basis at the edge points.
#[derive(Debug, Clone)]
pub struct HdgReference {
    /// Degree P.
    pub order: usize,
    /// Element modes, (P + 1)(P + 2)/2.
    pub nmodes: usize,
    /// Trace modes per edge, P + 1.
    pub ntrace: usize,
    /// Volume tables (basis, gradients, cubature of degree 2P).
    pub modal: ModalTriangle,
    /// Edge Gauss rule (P + 1 points, exact to degree 2P + 1).
    pub edge: Rule1d,
    /// ψ_j at the edge points, in the edge's local direction (points × modes).
    pub psi: DMatrix<f64>,
}

impl HdgReference {
    /// The tables of degree `order` (1..=10).
    pub fn new(order: usize) -> Result<Self, HdgError> {
        let modal = ModalTriangle::new(order)?;
        let edge = gauss_legendre(order + 1);
        let psi = DMatrix::from_fn(edge.points.len(), order + 1, |g, j| trace_mode(j, edge.points[g]));
        Ok(Self { order, nmodes: modal.nmodes, ntrace: order + 1, modal, edge, psi })
    }
}

/// The orthonormal Legendre mode j on [−1, 1] at t: √((2j + 1)/2) P_j(t).
pub fn trace_mode(j: usize, t: f64) -> f64 {
    ((2 * j + 1) as f64 / 2.0).sqrt() * legendre(j, t)
}

/// The problem's coefficients on one element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coefficients {
    /// Diffusion κ > 0.
    pub kappa: f64,
    /// Reaction λ ≥ 0.
    pub lambda: f64,
}

/// One element's matrices.
#[derive(Debug, Clone)]
pub struct LocalMatrices {
    /// A, 3N × 3N.
    pub a: DMatrix<f64>,
    /// C, 3N × 3(P + 1).
    pub c: DMatrix<f64>,
    /// B, 3(P + 1) × 3N (the flux condition's integrals).
    pub b: DMatrix<f64>,
    /// G, 3(P + 1) × 3(P + 1).
    pub g: DMatrix<f64>,
}

/// Where an element's edge runs against its global direction: the trace modes of odd degree change sign.
pub fn orientation_signs(reversed: [bool; 3], ntrace: usize) -> [Vec<f64>; 3] {
    reversed.map(|rev| (0..ntrace).map(|j| if rev && j % 2 == 1 { -1.0 } else { 1.0 }).collect())
}

impl LocalMatrices {
    /// The matrices of an affine element of geometry `geo` and faces `faces`, whose edges run against their global
    /// direction where `reversed` says so.
    pub fn new(
        re: &HdgReference,
        geo: &ElementGeometry,
        faces: &[FaceGeometry; 3],
        reversed: [bool; 3],
        co: Coefficients,
    ) -> Self {
        let (n, nt) = (re.nmodes, re.ntrace);
        let m = &re.modal;
        let nq = m.volume.w.len();
        let sign = orientation_signs(reversed, nt);
        // D_k[i][j] = (φ_i, ∂φ_j/∂x_k)
        let dk = |rk: f64, sk: f64| {
            DMatrix::from_fn(n, n, |i, j| {
                geo.j
                    * (0..nq)
                        .map(|q| m.volume.w[q] * m.phi[(q, i)] * (rk * m.phi_r[(q, j)] + sk * m.phi_s[(q, j)]))
                        .sum::<f64>()
            })
        };
        let (d1, d2) = (dk(geo.rx, geo.sx), dk(geo.ry, geo.sy));
        // mass: the basis is orthonormal on the reference triangle
        let mass = DMatrix::<f64>::identity(n, n) * geo.j;
        let ng = re.edge.points.len();
        // E_l[i][j] = ⟨φ_i, φ_j⟩_l and F_l[i][j] = ⟨φ_i, ψ_j⟩_l (ψ in the global direction)
        let edge_e = |l: usize| {
            DMatrix::from_fn(n, n, |i, j| {
                faces[l].sj
                    * (0..ng).map(|g| re.edge.weights[g] * m.phi_edge[l][(g, i)] * m.phi_edge[l][(g, j)]).sum::<f64>()
            })
        };
        let edge_f = |l: usize| {
            DMatrix::from_fn(n, nt, |i, j| {
                faces[l].sj
                    * sign[l][j]
                    * (0..ng).map(|g| re.edge.weights[g] * m.phi_edge[l][(g, i)] * re.psi[(g, j)]).sum::<f64>()
            })
        };
        let mut a = DMatrix::zeros(3 * n, 3 * n);
        let mut uu = mass.clone() * co.lambda;
        for l in 0..3 {
            uu += edge_e(l) * TAU;
        }
        a.view_mut((0, 0), (n, n)).copy_from(&uu);
        a.view_mut((0, n), (n, n)).copy_from(&(-&d1));
        a.view_mut((0, 2 * n), (n, n)).copy_from(&(-&d2));
        a.view_mut((n, 0), (n, n)).copy_from(&d1.transpose());
        a.view_mut((2 * n, 0), (n, n)).copy_from(&d2.transpose());
        a.view_mut((n, n), (n, n)).copy_from(&(&mass / co.kappa));
        a.view_mut((2 * n, 2 * n), (n, n)).copy_from(&(&mass / co.kappa));
        let mut c = DMatrix::zeros(3 * n, 3 * nt);
        for l in 0..3 {
            let f = edge_f(l);
            c.view_mut((0, l * nt), (n, nt)).copy_from(&(&f * -TAU));
            c.view_mut((n, l * nt), (n, nt)).copy_from(&(&f * -faces[l].nx));
            c.view_mut((2 * n, l * nt), (n, nt)).copy_from(&(&f * -faces[l].ny));
        }
        // B: ⟨ψ_i, q̂·n⟩ = ⟨ψ_i, q₁n₁ + q₂n₂ − τu⟩ + τ⟨ψ_i, λ⟩, its v part integrated on its own (ψ first)
        let mut b = DMatrix::zeros(3 * nt, 3 * n);
        let mut g = DMatrix::zeros(3 * nt, 3 * nt);
        for l in 0..3 {
            let flux = DMatrix::from_fn(nt, n, |i, j| {
                faces[l].sj
                    * sign[l][i]
                    * (0..ng).map(|p| re.edge.weights[p] * re.psi[(p, i)] * m.phi_edge[l][(p, j)]).sum::<f64>()
            });
            b.view_mut((l * nt, 0), (nt, n)).copy_from(&(&flux * -TAU));
            b.view_mut((l * nt, n), (nt, n)).copy_from(&(&flux * faces[l].nx));
            b.view_mut((l * nt, 2 * n), (nt, n)).copy_from(&(&flux * faces[l].ny));
            let gl = DMatrix::from_fn(nt, nt, |i, j| {
                faces[l].sj
                    * sign[l][i]
                    * sign[l][j]
                    * (0..ng).map(|p| re.edge.weights[p] * re.psi[(p, i)] * re.psi[(p, j)]).sum::<f64>()
            });
            g.view_mut((l * nt, l * nt), (nt, nt)).copy_from(&(gl * TAU));
        }
        Self { a, c, b, g }
    }
}

/// An element's factorised local problem: Kᵉ, and what recovers v from the traces and the load.
#[derive(Debug, Clone)]
pub struct LocalSolver {
    /// A.
    pub a: DMatrix<f64>,
    /// LU factors of A.
    pub lu: nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>,
    /// C.
    pub c: DMatrix<f64>,
    /// Kᵉ = G − B A⁻¹ C.
    pub k: DMatrix<f64>,
    /// B.
    pub b: DMatrix<f64>,
    /// G.
    pub g: DMatrix<f64>,
}

/// What one element gives a refinement step of the whole (uncondensed) system at its current (v, λ).
#[derive(Debug, Clone)]
pub struct ElementResidual {
    /// r = (f, 0, 0) − A v − C λ, the element's own equations' residual.
    pub r: nalgebra::DVector<f64>,
    /// B v + G λ + B A⁻¹ r: the element's part of its edges' flux conditions, with what its residual changes
    /// there once v is corrected; the step's trace load is ⟨ψ, g_N⟩ minus these, summed per edge.
    pub edges: Vec<f64>,
}

impl LocalSolver {
    /// Factorises A and condenses the element onto its traces.
    pub fn new(m: LocalMatrices) -> Result<Self, HdgError> {
        let lu = m.a.clone().lu();
        let ainv_c = refined(&m.a, &lu, &m.c)?;
        let k = &m.g - &m.b * ainv_c;
        Ok(Self { a: m.a, lu, c: m.c, k, b: m.b, g: m.g })
    }

    /// The element's load on its traces, −B A⁻¹ (f, 0, 0), for the element load vector `f` = (f, φ_i).
    pub fn trace_load(&self, f: &[f64]) -> Result<Vec<f64>, HdgError> {
        let v = refined(&self.a, &self.lu, &self.padded(f))?;
        Ok((&self.b * v).iter().map(|x| -x).collect())
    }

    /// v = A⁻¹((f, 0, 0) − C λ) for the element's traces `lambda` (its three edges, in its local edge order).
    pub fn recover(&self, f: &[f64], lambda: &[f64]) -> Result<Vec<f64>, HdgError> {
        let rhs = self.padded(f) - &self.c * nalgebra::DVector::from_column_slice(lambda);
        Ok(refined(&self.a, &self.lu, &rhs)?.as_slice().to_vec())
    }

    /// The element's residual of the uncondensed equations at (`v`, `lambda`) for the load `f`: computed from A, B,
    /// C and G themselves, it is free of the cancellation in Kᵉ = G − B A⁻¹ C, which limits the condensed solve to
    /// about 5·10⁻¹⁴ at high degree (seed 004's problem, 40 × 40, P ≥ 7).
    pub fn residual(&self, f: &[f64], v: &[f64], lambda: &[f64]) -> Result<ElementResidual, HdgError> {
        let v = nalgebra::DVector::from_column_slice(v);
        let lambda = nalgebra::DVector::from_column_slice(lambda);
        let r = self.padded(f) - &self.a * &v - &self.c * &lambda;
        let edges = &self.b * (&v + refined(&self.a, &self.lu, &r)?) + &self.g * &lambda;
        Ok(ElementResidual { r, edges: edges.as_slice().to_vec() })
    }

    /// The correction A⁻¹(r − C δλ) of v for a residual `r` and the traces' correction `delta`.
    pub fn correction(&self, r: &nalgebra::DVector<f64>, delta: &[f64]) -> Result<Vec<f64>, HdgError> {
        let rhs = r - &self.c * nalgebra::DVector::from_column_slice(delta);
        Ok(refined(&self.a, &self.lu, &rhs)?.as_slice().to_vec())
    }

    fn padded(&self, f: &[f64]) -> nalgebra::DVector<f64> {
        let mut v = nalgebra::DVector::zeros(self.c.nrows());
        v.rows_mut(0, f.len()).copy_from_slice(f);
        v
    }
}

/// A⁻¹ x by the LU factors with one step of iterative refinement (the residual in f64 solved again), which takes
/// the factorisation's round-off out of the high-degree local solves.
fn refined<C: nalgebra::Dim, S: nalgebra::storage::Storage<f64, nalgebra::Dyn, C>>(
    a: &DMatrix<f64>,
    lu: &nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>,
    x: &nalgebra::Matrix<f64, nalgebra::Dyn, C, S>,
) -> Result<nalgebra::OMatrix<f64, nalgebra::Dyn, C>, HdgError>
where
    nalgebra::DefaultAllocator: nalgebra::allocator::Allocator<nalgebra::Dyn, C>,
{
    let x = x.clone_owned();
    let mut y = lu.solve(&x).ok_or(HdgError::SingularLocal)?;
    let residual = &x - a * &y;
    y += lu.solve(&residual).ok_or(HdgError::SingularLocal)?;
    Ok(y)
}

/// A cubature for loads and errors on the reference triangle, beyond the matrices' degree 2P (a smooth f or exact
/// solution is not a polynomial), with the element basis at its points; and an equispaced lattice with the
/// vertices and edges, where the largest error is sought as well.
#[derive(Debug, Clone)]
pub struct FineRule {
    /// The rule.
    pub rule: TriangleRule,
    /// φ at its points (points × modes).
    pub phi: DMatrix<f64>,
    /// The lattice's (r, s).
    pub lattice: (Vec<f64>, Vec<f64>),
    /// φ at the lattice (points × modes).
    pub phi_lattice: DMatrix<f64>,
}

impl FineRule {
    /// A rule of degree 2P + 10 and a lattice of degree P + 8 for degree P.
    pub fn new(order: usize) -> Self {
        let rule = triangle_cubature(2 * order + 10);
        let phi = vandermonde(order, &rule.r, &rule.s);
        let lattice = equispaced_nodes(order + 8);
        let phi_lattice = vandermonde(order, &lattice.0, &lattice.1);
        Self { rule, phi, lattice, phi_lattice }
    }
}

/// Physical points of an element's edge `face` at the parameters `t` (local direction).
pub fn edge_xy(vertices: [[f64; 2]; 3], face: usize, t: &[f64]) -> Vec<[f64; 2]> {
    let (r, s) = edge_points(face, t);
    r.iter().zip(&s).map(|(&r, &s)| reference_to_physical(vertices, r, s)).collect()
}

/// The affine map x = −(r+s)/2 x₀ + (1+r)/2 x₁ + (1+s)/2 x₂.
pub fn reference_to_physical(v: [[f64; 2]; 3], r: f64, s: f64) -> [f64; 2] {
    let (a, b, c) = (-(r + s) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0);
    [a * v[0][0] + b * v[1][0] + c * v[2][0], a * v[0][1] + b * v[1][1] + c * v[2][1]]
}
