//! What every formulation's CPU reference operator shares: boundary bindings, the vector update of the time
//! integrators, and the face-node jump and lift of the nodal operators (triangles and tetrahedra). The operators
//! themselves live in their formulation crates.

pub use boundary::{BoundaryBinding, BoundaryError};

/// `OdeSystem` for a CPU operator type `$ty<L, T>` with `apply(&self, q, t, out)`: the state is a `Vec<T>`,
/// and the update is [`linear_combination`]; with `limit = method`, `self.method(q)` limits every stage. Each
/// formulation's CPU reference operator uses it, so they all share one time loop.
#[macro_export]
macro_rules! cpu_ode_system {
    ($ty:ident) => {
        $crate::cpu_ode_system!($ty, limit = no_limit);
        impl<L: ::dg_core::law::ConservationLaw, T: ::dg_core::Real> $ty<L, T> {
            fn no_limit(&self, _q: &mut [T]) {}
        }
    };
    ($ty:ident, limit = $limit:ident) => {
        impl<L: ::dg_core::law::ConservationLaw, T: ::dg_core::Real> $crate::time::OdeSystem for $ty<L, T> {
            type State = Vec<T>;
            type Error = std::convert::Infallible;

            fn rhs(&mut self, t: f64, q: &Vec<T>, out: &mut Vec<T>) -> Result<(), Self::Error> {
                self.apply(q, t, out);
                Ok(())
            }

            fn zeros_like(&mut self, like: &Vec<T>) -> Result<Vec<T>, Self::Error> {
                Ok(vec![T::zero(); like.len()])
            }

            fn update(&mut self, y: &mut Vec<T>, a: f64, terms: &[(f64, &Vec<T>)]) -> Result<(), Self::Error> {
                $crate::cpu::linear_combination(y, a, terms);
                Ok(())
            }

            fn limit(&mut self, q: &mut Vec<T>) -> Result<(), Self::Error> {
                self.$limit(q);
                Ok(())
            }
        }
    };
}

mod boundary;

/// y ← a·y + Σ cᵢ·xᵢ, in parallel (y is not read when a = 0): the one vector update the time integrators need.
pub fn linear_combination<T: dg_core::Real>(y: &mut [T], a: f64, terms: &[(f64, &Vec<T>)]) {
    use rayon::prelude::*;
    let a = T::from_f64(a);
    let coeffs: Vec<(T, &Vec<T>)> = terms.iter().map(|&(c, x)| (T::from_f64(c), x)).collect();
    y.par_chunks_mut(4096).enumerate().for_each(|(c, chunk)| {
        let base = c * 4096;
        for (i, yi) in chunk.iter_mut().enumerate() {
            let mut acc = if a == T::zero() { T::zero() } else { a * *yi };
            for (c, x) in &coeffs {
                acc += *c * x[base + i];
            }
            *yi = acc;
        }
    });
}

/// Sentinel for "interior face" in the nodal operators' per-face boundary-condition tables.
pub const INTERIOR: usize = usize::MAX;

/// One face node as the nodal operators see it: state offsets of its own and the matching node (add `v · np` for
/// variable v, `np` the nodes per element), the boundary condition (or [`INTERIOR`]), the unit normal and the position (DIM entries each),
/// Fscale, the materials of both sides.
pub struct FaceNode<'a, T> {
    pub np: usize,
    pub own: usize,
    pub other: usize,
    pub condition: usize,
    pub normal: &'a [T],
    pub x: &'a [T],
    pub fscale: T,
    pub materials: [&'a [T]; 2],
}

/// Work space of [`face_node_jump`]: q⁻, q⁺, F*, and the flux (DIM · NVARS).
pub struct FaceScratch<'a, T> {
    pub qm: &'a mut [T],
    pub qp: &'a mut [T],
    pub fstar: &'a mut [T],
    pub flux: &'a mut [T],
}

/// The lifted quantity Fscale · (n·F(q⁻) − F*(q⁻, q⁺)) of one face node, variable v into `jump[v · stride]`; q⁺ is
/// the matching node's state or the boundary condition's ghost state. Shared by the triangle and tetrahedron
/// operators.
pub fn face_node_jump<L: dg_core::law::ConservationLaw, T: dg_core::Real>(
    law: &L,
    q: &[T],
    t: T,
    node: &FaceNode<'_, T>,
    s: FaceScratch<'_, T>,
    jump: &mut [T],
    stride: usize,
) {
    let (nv, np) = (L::NVARS, node.np);
    let [mat, mat_p] = node.materials;
    for v in 0..nv {
        s.qm[v] = q[node.own + v * np];
    }
    if node.condition == INTERIOR {
        for v in 0..nv {
            s.qp[v] = q[node.other + v * np];
        }
    } else {
        law.boundary_state(node.condition, s.qm, mat, node.normal, node.x, t, s.qp);
    }
    law.numerical_flux(s.qm, s.qp, mat, mat_p, node.normal, s.fstar);
    law.flux(s.qm, mat, s.flux);
    for v in 0..nv {
        let mut normal_flux = T::zero();
        for (d, &n) in node.normal.iter().enumerate() {
            normal_flux += n * s.flux[d * nv + v];
        }
        jump[v * stride] = node.fscale * (normal_flux - s.fstar[v]);
    }
}

/// out[v·np + i] += Σ_m lift[i·nf + m] · jump[v·nf + m] for every variable: the lift of one element's face terms
/// (`nf` face nodes in all), shared by the triangle and tetrahedron operators.
pub fn lift_add<T: dg_core::Real>(lift: &[T], jump: &[T], np: usize, nf: usize, nv: usize, out: &mut [T]) {
    for v in 0..nv {
        let jump = &jump[v * nf..(v + 1) * nf];
        for i in 0..np {
            let row = &lift[i * nf..(i + 1) * nf];
            let mut acc = T::zero();
            for m in 0..nf {
                acc += row[m] * jump[m];
            }
            out[v * np + i] += acc;
        }
    }
}

/// Adds the law's source S(q, x, t) at every node of one element (`qk` its state, `x` its node positions).
#[allow(clippy::too_many_arguments)]
pub fn source_add<L: dg_core::law::ConservationLaw, T: dg_core::Real, X: AsRef<[T]>>(
    law: &L,
    qk: &[T],
    mat: &[T],
    x: &[X],
    t: T,
    q: &mut [T],
    s: &mut [T],
    out: &mut [T],
) {
    let (np, nv) = (x.len(), L::NVARS);
    for i in 0..np {
        for v in 0..nv {
            q[v] = qk[v * np + i];
        }
        law.source(q, mat, x[i].as_ref(), t, s);
        for v in 0..nv {
            out[v * np + i] += s[v];
        }
    }
}

/// Number of worker threads the CPU backend uses (rayon's pool; set `RAYON_NUM_THREADS` to change it).
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}
