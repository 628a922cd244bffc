//! The reference tables the device's local generation reads: the products that let one element's condensed matrix
//! be built from its geometry alone.
//!
//! Eliminating q (its mass block is (J/κ)I on an affine element with an orthonormal basis) leaves, per element, the
//! N × N Schur complement on u and the right-hand sides of its 3(P + 1) trace modes:
//!
//! ```text
//! S   = λJ I + τ Σ_l sJ_l E_l + κJ [ (r_x² + r_y²) S_r S_rᵀ + (r_x s_x + r_y s_y)(S_r S_sᵀ + S_s S_rᵀ) + (s_x² + s_y²) S_s S_sᵀ ]
//! R_l = sJ_l (τ F_l + κ a_l S_r F_l + κ b_l S_s F_l) Σ_l,        a_l = r_x n_x + r_y n_y,  b_l = s_x n_x + s_y n_y
//! Kᵉ  = G + (κ/J) [ (n_l'·n_l) sJ_l' sJ_l Σ_l' F_l'ᵀ F_l Σ_l ] − Rᵀ S⁻¹ R,     trace load Rᵀ S⁻¹ f,     u = S⁻¹(f + R λ)
//! ```
//!
//! with S_r\[i\]\[j\] = (φ_i, ∂φ_j/∂r), E_l and F_l the edge integrals of φφ and φψ, Σ_l the orientation signs. The
//! last line is exact but cancels in f64 (its two terms are several times larger than Kᵉ, and Kᵉ's action on smooth
//! traces is small), so the kernel refines the element solve on the mixed system A v = ρ, with D_k = J (r_k S_r + s_k
//! S_s) from S_r and S_s, and forms Kᵉ = G + B v. The CPU reference ([`crate::local`]) builds A, B, C, G and factorises
//! A whole: the two meet only in the tests.

use crate::local::HdgReference;
use nalgebra::DMatrix;

/// The tables of one degree, concatenated row-major in one array at the offsets below (in values).
#[derive(Debug, Clone)]
pub struct ReferenceTables {
    /// Element modes N.
    pub nmodes: usize,
    /// Trace modes per edge P + 1.
    pub ntrace: usize,
    /// Every table, one after the other.
    pub values: Vec<f64>,
    /// Offsets of S_r S_rᵀ, S_r S_sᵀ + S_s S_rᵀ, S_s S_sᵀ (N × N each).
    pub products: [usize; 3],
    /// Offset of E_0, E_1, E_2 (N × N each, consecutive).
    pub edge_mass: usize,
    /// Offset of F_0, F_1, F_2 (N × (P + 1) each).
    pub edge_trace: usize,
    /// Offset of S_r F_l (three, consecutive).
    pub sr_f: usize,
    /// Offset of S_s F_l (three, consecutive).
    pub ss_f: usize,
    /// Offset of F_l'ᵀ F_l ((P + 1) × (P + 1) each, l' major).
    pub f_t_f: usize,
    /// Offsets of S_r and S_s (N × N each): the mixed system's D_k = J (r_k S_r + s_k S_s) in the refinement.
    pub stiffness: [usize; 2],
}

impl ReferenceTables {
    /// The tables of `re`'s degree.
    pub fn new(re: &HdgReference) -> Self {
        let (n, nt) = (re.nmodes, re.ntrace);
        let m = &re.modal;
        let nq = m.volume.w.len();
        let stiff = |d: &DMatrix<f64>| {
            DMatrix::from_fn(n, n, |i, j| (0..nq).map(|q| m.volume.w[q] * m.phi[(q, i)] * d[(q, j)]).sum::<f64>())
        };
        let (sr, ss) = (stiff(&m.phi_r), stiff(&m.phi_s));
        let ng = re.edge.points.len();
        let edge_mass: Vec<DMatrix<f64>> = (0..3)
            .map(|l| {
                DMatrix::from_fn(n, n, |i, j| {
                    (0..ng).map(|g| re.edge.weights[g] * m.phi_edge[l][(g, i)] * m.phi_edge[l][(g, j)]).sum::<f64>()
                })
            })
            .collect();
        let edge_trace: Vec<DMatrix<f64>> = (0..3)
            .map(|l| {
                DMatrix::from_fn(n, nt, |i, j| {
                    (0..ng).map(|g| re.edge.weights[g] * m.phi_edge[l][(g, i)] * re.psi[(g, j)]).sum::<f64>()
                })
            })
            .collect();
        let mut values = Vec::new();
        let mut push = |mat: &DMatrix<f64>| {
            let at = values.len();
            for i in 0..mat.nrows() {
                for j in 0..mat.ncols() {
                    values.push(mat[(i, j)]);
                }
            }
            at
        };
        let products = [
            push(&(&sr * sr.transpose())),
            push(&(&sr * ss.transpose() + &ss * sr.transpose())),
            push(&(&ss * ss.transpose())),
        ];
        let edge_mass_at = push(&edge_mass[0]);
        push(&edge_mass[1]);
        push(&edge_mass[2]);
        let edge_trace_at = push(&edge_trace[0]);
        push(&edge_trace[1]);
        push(&edge_trace[2]);
        let sr_f = push(&(&sr * &edge_trace[0]));
        push(&(&sr * &edge_trace[1]));
        push(&(&sr * &edge_trace[2]));
        let ss_f = push(&(&ss * &edge_trace[0]));
        push(&(&ss * &edge_trace[1]));
        push(&(&ss * &edge_trace[2]));
        let stiffness = [push(&sr), push(&ss)];
        let mut f_t_f = None;
        for a in &edge_trace {
            for b in &edge_trace {
                let at = push(&(a.transpose() * b));
                f_t_f.get_or_insert(at);
            }
        }
        Self {
            nmodes: n,
            ntrace: nt,
            products,
            edge_mass: edge_mass_at,
            edge_trace: edge_trace_at,
            sr_f,
            ss_f,
            f_t_f: f_t_f.unwrap_or(0),
            stiffness,
            values,
        }
    }
}
