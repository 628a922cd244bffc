//! What a conservation law is to dg: ∂q/∂t + ∇·F(q) = S(q, x, t), with a numerical flux and boundary states.
//!
//! Laws are written with the `#[conservation_law]` macro of `dg-macros` (see `docs/laws.md`). The macro turns
//! each law function into Rust code generic over a [`Scalar`]: instantiated with `f32`/`f64` it is the native
//! CPU implementation of [`ConservationLaw`]; instantiated with the symbolic scalar of `dg-ir` it traces the
//! expression graph that kernel generation consumes. One body, two meanings.

use crate::Real;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A number the law bodies compute with: `f32`, `f64`, or a symbolic expression.
///
/// `if`/`else` in a law body becomes [`Pick::pick`] on a `Bool` condition, so both branches are evaluated.
pub trait Scalar:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self> + 'static
{
    /// Result of a comparison.
    type Bool: Copy;
    /// A constant.
    fn cst(value: f64) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// e^x.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Integer power.
    fn powi(self, n: i32) -> Self;
    /// Real power.
    fn powf(self, e: Self) -> Self;
    /// Minimum.
    fn min(self, other: Self) -> Self;
    /// Maximum.
    fn max(self, other: Self) -> Self;
    /// self < other.
    fn lt(self, other: Self) -> Self::Bool;
    /// self ≤ other.
    fn le(self, other: Self) -> Self::Bool;
    /// self > other.
    fn gt(self, other: Self) -> Self::Bool;
    /// self ≥ other.
    fn ge(self, other: Self) -> Self::Bool;
    /// self == other.
    fn eq(self, other: Self) -> Self::Bool;
    /// self ≠ other.
    fn ne(self, other: Self) -> Self::Bool;
    /// Logical and.
    fn and(a: Self::Bool, b: Self::Bool) -> Self::Bool;
    /// Logical or.
    fn or(a: Self::Bool, b: Self::Bool) -> Self::Bool;
    /// Logical not.
    fn not(a: Self::Bool) -> Self::Bool;
}

/// Choice between two values of a type by a condition of type `B` (what `if c { a } else { b }` becomes).
pub trait Pick<B>: Sized {
    /// `a` where `c` holds, else `b`.
    fn pick(c: B, a: Self, b: Self) -> Self;
}

/// The scalar bound of every generated law function.
pub trait LawScalar: Scalar + Pick<<Self as Scalar>::Bool> {}
impl<T: Scalar + Pick<<T as Scalar>::Bool>> LawScalar for T {}

/// `if c { a } else { b }` of a law body.
pub fn select<B, V: Pick<B>>(c: B, a: V, b: V) -> V {
    V::pick(c, a, b)
}

macro_rules! native_scalar {
    ($t:ty) => {
        impl Scalar for $t {
            type Bool = bool;
            fn cst(value: f64) -> Self {
                value as $t
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn powi(self, n: i32) -> Self {
                <$t>::powi(self, n)
            }
            fn powf(self, e: Self) -> Self {
                <$t>::powf(self, e)
            }
            fn min(self, other: Self) -> Self {
                <$t>::min(self, other)
            }
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            fn lt(self, other: Self) -> bool {
                self < other
            }
            fn le(self, other: Self) -> bool {
                self <= other
            }
            fn gt(self, other: Self) -> bool {
                self > other
            }
            fn ge(self, other: Self) -> bool {
                self >= other
            }
            fn eq(self, other: Self) -> bool {
                self == other
            }
            fn ne(self, other: Self) -> bool {
                self != other
            }
            fn and(a: bool, b: bool) -> bool {
                a && b
            }
            fn or(a: bool, b: bool) -> bool {
                a || b
            }
            fn not(a: bool) -> bool {
                !a
            }
        }

        impl Pick<bool> for $t {
            fn pick(c: bool, a: Self, b: Self) -> Self {
                if c {
                    a
                } else {
                    b
                }
            }
        }
    };
}

native_scalar!(f32);
native_scalar!(f64);

impl<B: Copy, V: Pick<B>, const N: usize> Pick<B> for [V; N] {
    fn pick(c: B, a: Self, b: Self) -> Self {
        let mut b = b.map(Some);
        let mut i = 0;
        a.map(|ai| {
            let bi = b[i].take().expect("each element once");
            i += 1;
            V::pick(c, ai, bi)
        })
    }
}

/// A vector of scalars with named fields, as the macro generates for `State` and `Material`.
pub trait StateVector<S>: Copy {
    /// Number of components.
    const LEN: usize;
    /// Component `i`.
    fn get(&self, i: usize) -> S;
    /// Builds the vector from its components.
    fn from_fn(f: impl FnMut(usize) -> S) -> Self;
}

/// The unit normal of a face (outward from the element that owns q⁻). `z` is zero in two dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Normal<S> {
    /// x component.
    pub x: S,
    /// y component.
    pub y: S,
    /// z component.
    pub z: S,
}

/// A point in space. `z` is zero in two dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position<S> {
    /// x coordinate.
    pub x: S,
    /// y coordinate.
    pub y: S,
    /// z coordinate.
    pub z: S,
}

impl<S: Scalar> Position<S> {
    /// From the first `dim` entries of `x` (the rest zero).
    pub fn from_fn(dim: usize, mut f: impl FnMut(usize) -> S) -> Self {
        let mut c = |d: usize| if d < dim { f(d) } else { S::cst(0.0) };
        let (x, y, z) = (c(0), c(1), c(2));
        Self { x, y, z }
    }
}

impl<S: Scalar> Normal<S> {
    /// Component `d`.
    pub fn component(&self, d: usize) -> S {
        [self.x, self.y, self.z][d]
    }

    /// From the first `dim` components given by `f` (the rest zero).
    pub fn from_fn(dim: usize, mut f: impl FnMut(usize) -> S) -> Self {
        let mut c = |d: usize| if d < dim { f(d) } else { S::cst(0.0) };
        let (x, y, z) = (c(0), c(1), c(2));
        Self { x, y, z }
    }
}

/// A system of conservation laws in `DIM` dimensions with `NVARS` conserved variables and `NMATERIALS`
/// per-element material parameters.
///
/// Slices: a state `q` has `NVARS` entries; material `mat` has `NMATERIALS`; a normal `n` and a position `x`
/// have `DIM`; a flux `f` has `DIM * NVARS` entries, component `d` of variable `v` at `d * NVARS + v`.
pub trait ConservationLaw: Send + Sync {
    /// Space dimension.
    const DIM: usize;
    /// Number of conserved variables.
    const NVARS: usize;
    /// Number of per-element material parameters.
    const NMATERIALS: usize;

    /// Short identifier (`maxwell2d`).
    fn name(&self) -> &'static str;
    /// Variable names in state order.
    fn variable_names(&self) -> &'static [&'static str];
    /// Material parameter names.
    fn material_names(&self) -> &'static [&'static str];
    /// Names of the boundary conditions this law offers; mesh boundary tags are bound to one of them.
    fn boundary_names(&self) -> &'static [&'static str];
    /// Names of the numerical fluxes this law offers (the first is the default).
    fn numerical_flux_names(&self) -> &'static [&'static str];
    /// Switches to the numerical flux of this name; false (and no change) if the law has none of that name.
    fn select_numerical_flux(&mut self, name: &str) -> bool;
    /// Name of the numerical flux in use (what generated kernels must evaluate too).
    fn numerical_flux_name(&self) -> &'static str {
        self.numerical_flux_names()[0]
    }
    /// Current values of the law's run-time parameters, in declaration order.
    fn param_values(&self) -> Vec<f64>;

    /// Physical flux F(q).
    fn flux<T: Real>(&self, q: &[T], mat: &[T], f: &mut [T]);
    /// Largest wave speed in direction `n`.
    fn max_speed<T: Real>(&self, q: &[T], mat: &[T], n: &[T]) -> T;
    /// Numerical flux n·F*(q⁻, q⁺) on a face with unit normal `n` pointing from q⁻ to q⁺.
    fn numerical_flux<T: Real>(&self, qm: &[T], qp: &[T], matm: &[T], matp: &[T], n: &[T], out: &mut [T]);
    /// Ghost state q⁺ of boundary condition number `bc` (index into [`Self::boundary_names`]) at point `x` and
    /// time `t`.
    #[allow(clippy::too_many_arguments)]
    fn boundary_state<T: Real>(&self, bc: usize, qm: &[T], mat: &[T], n: &[T], x: &[T], t: T, qp: &mut [T]);
    /// Whether the law has a source term.
    fn has_source(&self) -> bool;
    /// Source S(q, x, t) (zero when the law has none).
    fn source<T: Real>(&self, q: &[T], mat: &[T], x: &[T], t: T, s: &mut [T]);
    /// The law's admissibility function at `q`: positive exactly where the state is admissible. `None` when
    /// the law declares none (every state is admissible).
    fn admissibility<T: Real>(&self, q: &[T], mat: &[T]) -> Option<T> {
        let _ = (q, mat);
        None
    }
}

/// Building blocks of the built-in numerical fluxes; the macro expands `rusanov(qm, qp, n)` and its siblings
/// into calls of these with the law's own flux and wave speeds.
pub mod builtin {
    use super::{select, LawScalar, Normal, Pick, StateVector};

    /// n·F for a flux given per dimension.
    pub fn normal_flux<S: LawScalar, V: StateVector<S>>(f: &[V], n: &Normal<S>) -> V {
        V::from_fn(|v| {
            let mut acc = n.component(0) * f[0].get(v);
            for (d, fd) in f.iter().enumerate().skip(1) {
                acc = acc + n.component(d) * fd.get(v);
            }
            acc
        })
    }

    /// Central flux ½(F⁻ + F⁺)·n.
    pub fn central<S: LawScalar, V: StateVector<S>>(fm: V, fp: V) -> V {
        let half = S::cst(0.5);
        V::from_fn(|v| half * (fm.get(v) + fp.get(v)))
    }

    /// Rusanov (local Lax–Friedrichs): ½(F⁻ + F⁺)·n − ½ s (q⁺ − q⁻) with s the larger of the two speeds.
    pub fn rusanov<S: LawScalar, V: StateVector<S>>(fm: V, fp: V, qm: V, qp: V, speed: S) -> V {
        let half = S::cst(0.5);
        V::from_fn(|v| half * (fm.get(v) + fp.get(v)) - half * speed * (qp.get(v) - qm.get(v)))
    }

    /// HLL with signal speeds s_L ≤ s_R.
    pub fn hll<S: LawScalar, V: StateVector<S> + Pick<S::Bool>>(fm: V, fp: V, qm: V, qp: V, sl: S, sr: S) -> V {
        let zero = S::cst(0.0);
        let star = V::from_fn(|v| (sr * fm.get(v) - sl * fp.get(v) + sl * sr * (qp.get(v) - qm.get(v))) / (sr - sl));
        select(S::ge(sl, zero), fm, select(S::le(sr, zero), fp, star))
    }

    /// Upwind flux of a scalar linear law: a_n = F(1)·n − F(0)·n is the advection speed across the face.
    pub fn upwind_scalar<S: LawScalar, V: StateVector<S> + Pick<S::Bool>>(fm: V, fp: V, speed: S) -> V {
        select(S::ge(speed, S::cst(0.0)), fm, fp)
    }

    /// HLLC for the Euler equations (Toro): state layout (ρ, ρu₁ … ρu_d, E), pressures and signal speeds given.
    #[allow(clippy::too_many_arguments)]
    pub fn hllc<S: LawScalar, V: StateVector<S> + Pick<S::Bool>>(
        fm: V,
        fp: V,
        qm: V,
        qp: V,
        pm: S,
        pp: S,
        n: &Normal<S>,
        dim: usize,
        sl: S,
        sr: S,
    ) -> V {
        let zero = S::cst(0.0);
        let un = |q: &V| {
            let mut m = n.component(0) * q.get(1);
            for d in 1..dim {
                m = m + n.component(d) * q.get(1 + d);
            }
            m / q.get(0)
        };
        let (ul, ur) = (un(&qm), un(&qp));
        let (rl, rr) = (qm.get(0), qp.get(0));
        let s_star = (pp - pm + rl * ul * (sl - ul) - rr * ur * (sr - ur)) / (rl * (sl - ul) - rr * (sr - ur));
        let star = |q: &V, f: &V, p: S, u: S, s: S| {
            let rho = q.get(0);
            let factor = rho * (s - u) / (s - s_star);
            V::from_fn(|v| {
                let ustar = if v == 0 {
                    factor
                } else if v <= dim {
                    factor * (q.get(v) / rho + (s_star - u) * n.component(v - 1))
                } else {
                    factor * (q.get(v) / rho + (s_star - u) * (s_star + p / (rho * (s - u))))
                };
                f.get(v) + s * (ustar - q.get(v))
            })
        };
        let fl_star = star(&qm, &fm, pm, ul, sl);
        let fr_star = star(&qp, &fp, pp, ur, sr);
        select(S::ge(sl, zero), fm, select(S::ge(s_star, zero), fl_star, select(S::ge(sr, zero), fr_star, fp)))
    }
}
