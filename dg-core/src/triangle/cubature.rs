//! Cubature on the reference triangle: collapsed-coordinate (Stroud conical product) Gauss rules, and fully
//! symmetric rules with fewer points for the even degrees 2..10 (seed 001's choice: Dunavant's point counts).
//!
//! With (a, b) ∈ [−1, 1]², r = (1 + a)(1 − b)/2 − 1, s = b, the area element is (1 − b)/2 da db. A
//! Gauss–Legendre rule in a and a Gauss–Jacobi (α = 1, β = 0) rule in b, each of q points, integrate every
//! polynomial of total degree ≤ 2q − 1 exactly. Positive weights, all points interior.

use crate::jacobi::jacobi_gq;
use crate::quadrature::gauss_legendre;

/// A cubature rule on the reference triangle.
#[derive(Debug, Clone)]
pub struct TriangleRule {
    /// r coordinates.
    pub r: Vec<f64>,
    /// s coordinates.
    pub s: Vec<f64>,
    /// Weights (they sum to the reference area, 2).
    pub w: Vec<f64>,
    /// Total polynomial degree integrated exactly.
    pub degree: usize,
}

/// A rule exact for polynomials of total degree ≤ `degree` on the reference triangle.
pub fn triangle_cubature(degree: usize) -> TriangleRule {
    let q = degree / 2 + 1;
    let ga = gauss_legendre(q);
    let (gb, wb) = jacobi_gq(1.0, 0.0, q - 1);
    let mut rule = TriangleRule { r: vec![], s: vec![], w: vec![], degree };
    for (&b, &wbj) in gb.iter().zip(&wb) {
        for (&a, &wai) in ga.points.iter().zip(&ga.weights) {
            rule.r.push(0.5 * (1.0 + a) * (1.0 - b) - 1.0);
            rule.s.push(b);
            rule.w.push(0.5 * wai * wbj);
        }
    }
    rule
}

/// The orbits of a fully symmetric rule on the triangle (barycentric coordinates; weights for the triangle of area
/// 1/2): the centroid's weight, (a, w) for the three points (a, a, 1 − 2a) and their permutations, (a, b, w) for the
/// six permutations of (a, b, 1 − a − b).
struct SymmetricOrbits {
    centroid: Option<f64>,
    two_equal: &'static [(f64, f64)],
    all_distinct: &'static [(f64, f64, f64)],
}

/// Fully symmetric rules of degree 2, 4, 6, 8, 10 with 3, 6, 12, 16 and 25 points, all interior with positive
/// weights (Dunavant's orbit structure, IJNME 21, 1985). The parameters were solved for here, to round-off, from
/// the moment equations of every monomial of the degree, each relative to its exact value (Gauss–Newton from
/// rounded published values); the tests check the exactness that defines them.
const SYMMETRIC_RULES: [(usize, SymmetricOrbits); 5] = [
    (
        2,
        SymmetricOrbits { centroid: None, two_equal: &[(0.16666666666666669, 0.16666666666666666)], all_distinct: &[] },
    ),
    (
        4,
        SymmetricOrbits {
            centroid: None,
            two_equal: &[(0.4459484909159649, 0.11169079483900575), (0.0915762135097707, 0.0549758718276609)],
            all_distinct: &[],
        },
    ),
    (
        6,
        SymmetricOrbits {
            centroid: None,
            two_equal: &[(0.24928674517090843, 0.05839313786319143), (0.06308901449150246, 0.02542245318510358)],
            all_distinct: &[(0.3103524510337856, 0.05314504984481544, 0.041425537809185835)],
        },
    ),
    (
        8,
        SymmetricOrbits {
            centroid: Some(0.07215780383888279),
            two_equal: &[
                (0.45929258829271064, 0.04754581713364885),
                (0.17056930775174722, 0.051608685267359865),
                (0.05054722831703151, 0.016229248811599845),
            ],
            all_distinct: &[(0.008394777409940485, 0.26311282963467675, 0.013615157087215248)],
        },
    ),
    (
        10,
        SymmetricOrbits {
            centroid: Some(0.04540899519134709),
            two_equal: &[(0.48557763338366217, 0.018362978878229783), (0.10948157548505276, 0.022660529717764222)],
            all_distinct: &[
                (0.1417072194149063, 0.30793983876414416, 0.03637895842270786),
                (0.025003534762708734, 0.24667256063991902, 0.014163621265535607),
                (0.009540815400299036, 0.06680325101221715, 0.004710833481868342),
            ],
        },
    ),
];

/// A fully symmetric rule exact for total degree ≤ `degree` with fewer points than [`triangle_cubature`] (3, 6,
/// 12, 16, 25 points against 4, 9, 16, 25, 36 for degrees 2, 4, 6, 8, 10; an odd degree takes the next even rule);
/// `None` above degree 10.
pub fn symmetric_cubature(degree: usize) -> Option<TriangleRule> {
    let even = degree.max(1).div_ceil(2) * 2;
    let (_, orbits) = SYMMETRIC_RULES.iter().find(|(d, _)| *d == even)?;
    let mut rule = TriangleRule { r: vec![], s: vec![], w: vec![], degree: even };
    // barycentric (l1, l2, l3) on the vertices (−1, −1), (1, −1), (−1, 1): r = 2·l2 − 1, s = 2·l3 − 1; area 2
    let mut push = |l2: f64, l3: f64, w: f64| {
        rule.r.push(2.0 * l2 - 1.0);
        rule.s.push(2.0 * l3 - 1.0);
        rule.w.push(4.0 * w);
    };
    if let Some(w) = orbits.centroid {
        push(1.0 / 3.0, 1.0 / 3.0, w);
    }
    for &(a, w) in orbits.two_equal {
        let b = 1.0 - 2.0 * a;
        for (l2, l3) in [(a, a), (a, b), (b, a)] {
            push(l2, l3, w);
        }
    }
    for &(a, b, w) in orbits.all_distinct {
        let c = 1.0 - a - b;
        for (l2, l3) in [(a, b), (b, a), (a, c), (c, a), (b, c), (c, b)] {
            push(l2, l3, w);
        }
    }
    Some(rule)
}
