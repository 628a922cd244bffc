//! The condensed trace system on a whole mesh: edges numbered once, K = Σ_e Aᵉᵀ Kᵉ Aᵉ assembled in CSR (sorted,
//! summed, deterministic), Dirichlet traces set to the L2 projection of g_D, the rest solved by a sparse Cholesky
//! factorisation (faer), each element's (u, q) recovered from its traces, and one refinement step of the whole
//! uncondensed system.

use crate::local::{
    edge_xy, orientation_signs, Coefficients, ElementResidual, FineRule, HdgReference, LocalMatrices, LocalSolver,
};
use crate::{HdgError, HelmholtzProblem};
use dg_core::mesh::{Connectivity, ElementGeometry, FaceLink, TriMesh};
use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use rayon::prelude::*;
use std::time::Instant;

/// The mesh's edges: one trace unknown block of P + 1 per edge.
#[derive(Debug, Clone)]
pub struct TraceSpace {
    /// Per element, per local face: its edge.
    pub edge_of: Vec<[usize; 3]>,
    /// Per element, per local face: whether the face runs against the edge's global direction (from the lower
    /// vertex index to the higher).
    pub reversed: Vec<[bool; 3]>,
    /// Per edge: the boundary tag, `None` inside.
    pub boundary_tag: Vec<Option<usize>>,
    /// Per edge: an element and its local face on it.
    pub owner: Vec<(usize, usize)>,
}

impl TraceSpace {
    /// Numbers the edges of `mesh` in the order of their first element.
    pub fn new(mesh: &TriMesh, connectivity: &Connectivity) -> Self {
        let k_count = mesh.num_elements();
        let mut edge_of = vec![[usize::MAX; 3]; k_count];
        let (mut boundary_tag, mut owner) = (Vec::new(), Vec::new());
        for k in 0..k_count {
            for f in 0..3 {
                if edge_of[k][f] != usize::MAX {
                    continue;
                }
                let id = owner.len();
                edge_of[k][f] = id;
                owner.push((k, f));
                match connectivity.links[k][f] {
                    FaceLink::Interior { element, face } => {
                        edge_of[element][face] = id;
                        boundary_tag.push(None);
                    }
                    FaceLink::Boundary { tag } => boundary_tag.push(Some(tag)),
                }
            }
        }
        let reversed = mesh.elements.iter().map(|e| [0, 1, 2].map(|f| e[f] > e[(f + 1) % 3])).collect();
        Self { edge_of, reversed, boundary_tag, owner }
    }

    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.owner.len()
    }

    /// Element `k`'s traces (its three edges in its local order, `nt` modes each, the edges' global direction) out of
    /// every edge's `traces`.
    pub fn element_traces(&self, traces: &[f64], k: usize, nt: usize) -> Vec<f64> {
        self.edge_of[k].iter().flat_map(|&e| traces[e * nt..(e + 1) * nt].iter().copied()).collect()
    }
}

/// Seconds of each stage of a solve.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct StageSeconds {
    /// Local matrices, their factorisation and condensation.
    pub local: f64,
    /// Assembly of K and the load.
    pub assembly: f64,
    /// The trace system's solve.
    pub solve: f64,
    /// Recovery of (u, q) and the errors (on the CPU with its refinement step of the uncondensed system).
    pub recovery: f64,
}

impl StageSeconds {
    /// The four together.
    pub fn total(&self) -> f64 {
        self.local + self.assembly + self.solve + self.recovery
    }
}

/// A solved problem.
#[derive(Debug, Clone)]
pub struct HdgSolution {
    /// Per element, the modal coefficients of u (N each).
    pub u: Vec<Vec<f64>>,
    /// The traces (P + 1 per edge, global direction).
    pub traces: Vec<f64>,
    /// Trace unknowns solved for (the Dirichlet ones excluded).
    pub unknowns: usize,
    /// Stored non-zeros of the assembled K (before the Dirichlet rows go).
    pub nonzeros: usize,
    /// The most non-zeros of a row of K.
    pub row_width: usize,
    /// L2 error against the exact solution, where the problem has one.
    pub l2_error: Option<f64>,
    /// Largest error at the error cubature's points.
    pub max_error: Option<f64>,
    /// Stage times.
    pub seconds: StageSeconds,
}

/// The assembled trace system: K in CSR (rows sorted, duplicates summed) and the load.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSystem {
    /// Rows, P + 1 per edge.
    pub n: usize,
    /// CSR row starts.
    pub row_start: Vec<usize>,
    /// CSR columns.
    pub col: Vec<usize>,
    /// CSR values.
    pub val: Vec<f64>,
    /// The load.
    pub load: Vec<f64>,
}

/// Solves `problem` on `mesh` at degree `order` on the CPU: the condensed trace system by sparse Cholesky, then one
/// refinement step of the whole uncondensed system (its residual from each element's A, B, C and G; the correction
/// through the same factors). The step takes out the round-off that Kᵉ = G − B A⁻¹ C carries into the traces: on
/// seed 004's 40 × 40 problem the L2 error at P = 7, 8, 9 falls from 5.1·10⁻¹⁴, 5.0·10⁻¹⁴, 7.0·10⁻¹⁴ (a floor) to
/// 2.1·10⁻¹⁴, 6.8·10⁻¹⁵, 5.9·10⁻¹⁵.
pub fn solve_cpu(mesh: &TriMesh, order: usize, problem: &HelmholtzProblem) -> Result<HdgSolution, HdgError> {
    problem.check()?;
    let re = HdgReference::new(order)?;
    let connectivity = Connectivity::build(mesh)?;
    let space = TraceSpace::new(mesh, &connectivity);
    let fine = FineRule::new(order);
    let started = Instant::now();
    let locals = local_solvers(mesh, &re, &space, &fine, problem)?;
    let local = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let system = assemble(&space, re.ntrace, &locals, mesh, problem)?;
    let assembly = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let (mut traces, solver) = solve_traces(mesh, &space, &re, &system, problem)?;
    let solve = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let nt = re.ntrace;
    let mut v: Vec<Vec<f64>> = locals
        .par_iter()
        .enumerate()
        .map(|(k, (solver, load))| solver.recover(load, &space.element_traces(&traces, k, nt)))
        .collect::<Result<_, HdgError>>()?;
    refine_once(mesh, &space, nt, problem, &locals, &solver, &mut traces, &mut v)?;
    let u: Vec<Vec<f64>> = v
        .into_iter()
        .map(|mut v| {
            v.truncate(re.nmodes);
            v
        })
        .collect();
    let unknowns = solver.unknowns();
    let (l2_error, max_error) = error_norms(mesh, &fine, &u, problem);
    let recovery = started.elapsed().as_secs_f64();
    let row_width = system.row_start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    Ok(HdgSolution {
        u,
        traces,
        unknowns,
        nonzeros: system.val.len(),
        row_width,
        l2_error,
        max_error,
        seconds: StageSeconds { local, assembly, solve, recovery },
    })
}

/// One refinement step of the uncondensed system at (`traces`, `v`): each element's residual from A, B, C and G, the
/// traces' correction from the condensed system's factors, each element's correction from its own.
#[allow(clippy::too_many_arguments)]
fn refine_once(
    mesh: &TriMesh,
    space: &TraceSpace,
    nt: usize,
    problem: &HelmholtzProblem,
    locals: &[(LocalSolver, Vec<f64>)],
    solver: &TraceSolver,
    traces: &mut [f64],
    v: &mut [Vec<f64>],
) -> Result<(), HdgError> {
    let residuals: Vec<ElementResidual> = locals
        .par_iter()
        .enumerate()
        .map(|(k, (solver, load))| solver.residual(load, &v[k], &space.element_traces(traces, k, nt)))
        .collect::<Result<_, HdgError>>()?;
    let mut load = neumann_load(mesh, space, nt, problem);
    for (k, residual) in residuals.iter().enumerate() {
        for (i, x) in residual.edges.iter().enumerate() {
            load[space.edge_of[k][i / nt] * nt + i % nt] -= x;
        }
    }
    let delta = solver.solve(&load)?;
    v.par_iter_mut().zip(&residuals).zip(locals).enumerate().try_for_each(|(k, ((v, residual), (solver, _)))| {
        for (x, d) in v.iter_mut().zip(solver.correction(&residual.r, &space.element_traces(&delta, k, nt))?) {
            *x += d;
        }
        Ok::<_, HdgError>(())
    })?;
    for (t, d) in traces.iter_mut().zip(&delta) {
        *t += d;
    }
    Ok(())
}

/// Every element's factorised local problem and its load vector (f, φ_i).
pub(crate) fn local_solvers(
    mesh: &TriMesh,
    re: &HdgReference,
    space: &TraceSpace,
    fine: &FineRule,
    problem: &HelmholtzProblem,
) -> Result<Vec<(LocalSolver, Vec<f64>)>, HdgError> {
    let co = Coefficients { kappa: problem.kappa, lambda: problem.lambda };
    (0..mesh.num_elements())
        .into_par_iter()
        .map(|k| {
            let (geo, faces) = ElementGeometry::of_element(mesh, k);
            let solver = LocalSolver::new(LocalMatrices::new(re, &geo, &faces, space.reversed[k], co))?;
            Ok((solver, element_load(mesh, k, &geo, fine, &problem.source)))
        })
        .collect()
}

/// (f, φ_i) on element k by the fine rule.
pub(crate) fn element_load(
    mesh: &TriMesh,
    k: usize,
    geo: &ElementGeometry,
    fine: &FineRule,
    f: &(dyn Fn(f64, f64) -> f64 + Sync),
) -> Vec<f64> {
    let v = element_vertices(mesh, k);
    let values: Vec<f64> = (0..fine.rule.w.len())
        .map(|q| {
            let [x, y] = crate::local::reference_to_physical(v, fine.rule.r[q], fine.rule.s[q]);
            fine.rule.w[q] * f(x, y)
        })
        .collect();
    (0..fine.phi.ncols())
        .map(|i| geo.j * values.iter().enumerate().map(|(q, w)| w * fine.phi[(q, i)]).sum::<f64>())
        .collect()
}

pub(crate) fn element_vertices(mesh: &TriMesh, k: usize) -> [[f64; 2]; 3] {
    mesh.elements[k].map(|v| mesh.vertices[v])
}

/// K = Σ_e Aᵉᵀ Kᵉ Aᵉ and the load Σ_e Aᵉᵀ(−Bᵉ(Aᵉ)⁻¹fᵉ) + ⟨ψ, g_N⟩: every element's entries listed with their
/// global (row, column), sorted and summed by key (no atomics, the same order every time).
pub fn assemble(
    space: &TraceSpace,
    nt: usize,
    locals: &[(LocalSolver, Vec<f64>)],
    mesh: &TriMesh,
    problem: &HelmholtzProblem,
) -> Result<TraceSystem, HdgError> {
    let n = space.edges() * nt;
    let global = |k: usize, local: usize| space.edge_of[k][local / nt] * nt + local % nt;
    let mut entries: Vec<((usize, usize), f64)> = Vec::with_capacity(locals.len() * 9 * nt * nt);
    let mut load = vec![0.0; n];
    for (k, (solver, f)) in locals.iter().enumerate() {
        for i in 0..3 * nt {
            for j in 0..3 * nt {
                entries.push(((global(k, i), global(k, j)), solver.k[(i, j)]));
            }
        }
        for (i, x) in solver.trace_load(f)?.into_iter().enumerate() {
            load[global(k, i)] += x;
        }
    }
    entries.par_sort_by_key(|e| e.0);
    let (mut row_start, mut col, mut val) = (vec![0; n + 1], Vec::new(), Vec::<f64>::new());
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        let (r, c) = group[0].0;
        col.push(c);
        val.push(group.iter().map(|e| e.1).sum());
        row_start[r + 1] += 1;
    }
    for r in 0..n {
        row_start[r + 1] += row_start[r];
    }
    for (l, b) in load.iter_mut().zip(neumann_load(mesh, space, nt, problem)) {
        *l += b;
    }
    Ok(TraceSystem { n, row_start, col, val, load })
}

/// The Neumann edges' moments ⟨ψ_i, g_N⟩ = sJ ∫ g_N ψ_i dt, one per trace unknown (zero elsewhere).
pub(crate) fn neumann_load(mesh: &TriMesh, space: &TraceSpace, nt: usize, problem: &HelmholtzProblem) -> Vec<f64> {
    let mut load = vec![0.0; space.edges() * nt];
    let Some(g_n) = &problem.neumann else { return load };
    for (e, tag) in space.boundary_tag.iter().enumerate() {
        if tag.is_none_or(|t| !problem.neumann_tags.contains(&t)) {
            continue;
        }
        let (k, f) = space.owner[e];
        let face = ElementGeometry::of_element(mesh, k).1[f];
        let moments = edge_moments(mesh, space, e, nt, |x, y| g_n(x, y, face.nx, face.ny));
        for (j, m) in moments.into_iter().enumerate() {
            load[e * nt + j] = face.sj * m;
        }
    }
    load
}

/// The Dirichlet edges' traces, the L2 projection of g_D (ψ orthonormal: its coefficients are the moments
/// ∫ g_D ψ_j dt), zero elsewhere; and which trace unknowns they fix.
pub(crate) fn dirichlet_traces(
    mesh: &TriMesh,
    space: &TraceSpace,
    nt: usize,
    problem: &HelmholtzProblem,
) -> (Vec<f64>, Vec<bool>) {
    let mut traces = vec![0.0; space.edges() * nt];
    let mut fixed = vec![false; space.edges() * nt];
    for (e, tag) in space.boundary_tag.iter().enumerate() {
        let Some(tag) = tag else { continue };
        if problem.neumann_tags.contains(tag) {
            continue;
        }
        let moments = edge_moments(mesh, space, e, nt, |x, y| (problem.dirichlet)(x, y));
        traces[e * nt..(e + 1) * nt].copy_from_slice(&moments);
        fixed[e * nt..(e + 1) * nt].fill(true);
    }
    (traces, fixed)
}

/// ∫ g ψ_j dt over edge `e` for j < `nt` (ψ in the edge's global direction, t ∈ [−1, 1]), by a Gauss rule of
/// `nt` + 4 points: the L2 projection's coefficients of g on the edge, and with sJ the moments ⟨ψ_j, g⟩.
fn edge_moments(mesh: &TriMesh, space: &TraceSpace, e: usize, nt: usize, g: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let rule = dg_core::quadrature::gauss_legendre(nt + 4);
    let (k, f) = space.owner[e];
    let values: Vec<f64> = edge_xy(element_vertices(mesh, k), f, &rule.points).iter().map(|&[x, y]| g(x, y)).collect();
    let sign = &orientation_signs(space.reversed[k], nt)[f];
    (0..nt)
        .map(|j| {
            let integral: f64 = (0..values.len())
                .map(|p| rule.weights[p] * values[p] * crate::local::trace_mode(j, rule.points[p]))
                .sum();
            sign[j] * integral
        })
        .collect()
}

/// Iterative refinement steps after each sparse Cholesky solve.
const REFINEMENTS: usize = 2;

/// The trace system's free rows (the Dirichlet ones fixed) factorised by sparse Cholesky.
struct TraceSolver {
    /// The free rows, in order.
    free: Vec<usize>,
    /// All rows.
    rows: usize,
    /// K on the free rows, and its factors (none where every row is fixed).
    factored: Option<(SparseColMat<usize, f64>, faer::sparse::linalg::solvers::Llt<usize, f64>)>,
}

impl TraceSolver {
    /// Factorises the rows of `system` that `fixed` leaves free; also returns the right-hand side of those rows
    /// for the traces `traces` on the fixed ones: the load less K_ID Λ_D.
    fn new(system: &TraceSystem, fixed: &[bool], traces: &[f64]) -> Result<(Self, Vec<f64>), HdgError> {
        let free: Vec<usize> = (0..system.n).filter(|&r| !fixed[r]).collect();
        let mut index = vec![usize::MAX; system.n];
        for (i, &r) in free.iter().enumerate() {
            index[r] = i;
        }
        let mut rhs = vec![0.0; free.len()];
        let mut triplets = Vec::new();
        for (i, &r) in free.iter().enumerate() {
            rhs[i] = system.load[r];
            for p in system.row_start[r]..system.row_start[r + 1] {
                let c = system.col[p];
                if fixed[c] {
                    rhs[i] -= system.val[p] * traces[c];
                } else {
                    triplets.push(Triplet::new(i, index[c], system.val[p]));
                }
            }
        }
        let factored = if free.is_empty() {
            None
        } else {
            let k = SparseColMat::<usize, f64>::try_new_from_triplets(free.len(), free.len(), &triplets)
                .map_err(|e| HdgError::Solver(format!("{e:?}")))?;
            let llt = k.sp_cholesky(faer::Side::Lower).map_err(|e| HdgError::Solver(format!("{e:?}")))?;
            Some((k, llt))
        };
        Ok((Self { free, rows: system.n, factored }, rhs))
    }

    /// Trace unknowns solved for.
    fn unknowns(&self) -> usize {
        self.free.len()
    }

    /// x on the free rows of K_II x = `rhs` (the free rows' values), with iterative refinement.
    fn solve_free(&self, rhs: &[f64]) -> Vec<f64> {
        let Some((k, llt)) = &self.factored else { return Vec::new() };
        let b = faer::Mat::<f64>::from_fn(rhs.len(), 1, |i, _| rhs[i]);
        let mut x = llt.solve(&b);
        // refinement steps: the residual in f64 solved again takes the factorisation's round-off out
        for _ in 0..REFINEMENTS {
            let kx = k * &x;
            let residual = &b - &kx;
            let dx = llt.solve(&residual);
            x += &dx;
        }
        (0..rhs.len()).map(|i| x[(i, 0)]).collect()
    }

    /// The traces' correction for a load on every row (`load`): K_II δ = the free rows' load, δ = 0 on the fixed
    /// rows.
    fn solve(&self, load: &[f64]) -> Result<Vec<f64>, HdgError> {
        let rhs: Vec<f64> = self.free.iter().map(|&r| load[r]).collect();
        let mut delta = vec![0.0; self.rows];
        for (&r, x) in self.free.iter().zip(self.solve_free(&rhs)) {
            delta[r] = x;
        }
        if let Some(bad) = delta.iter().position(|v| !v.is_finite()) {
            return Err(HdgError::Solver(format!("the correction of trace {bad} is not a finite number")));
        }
        Ok(delta)
    }
}

/// The traces: Dirichlet edges the projection of g_D, the rest from K_II Λ_I = F_I − K_ID Λ_D; and the factorised
/// system, for the refinement that follows.
fn solve_traces(
    mesh: &TriMesh,
    space: &TraceSpace,
    re: &HdgReference,
    system: &TraceSystem,
    problem: &HelmholtzProblem,
) -> Result<(Vec<f64>, TraceSolver), HdgError> {
    let (mut traces, fixed) = dirichlet_traces(mesh, space, re.ntrace, problem);
    let (solver, rhs) = TraceSolver::new(system, &fixed, &traces)?;
    for (&r, x) in solver.free.iter().zip(solver.solve_free(&rhs)) {
        traces[r] = x;
    }
    if let Some(bad) = traces.iter().position(|v| !v.is_finite()) {
        return Err(HdgError::Solver(format!("trace {bad} is not a finite number")));
    }
    Ok((traces, solver))
}

/// The L2 and largest errors of `u` against the problem's exact solution, where it has one.
pub(crate) fn error_norms(
    mesh: &TriMesh,
    fine: &FineRule,
    u: &[Vec<f64>],
    problem: &HelmholtzProblem,
) -> (Option<f64>, Option<f64>) {
    match &problem.exact {
        Some(exact) => {
            let (l2, max) = errors(mesh, fine, u, exact);
            (Some(l2), Some(max))
        }
        None => (None, None),
    }
}

/// The L2 error, and the largest pointwise error at the fine rule's points and lattice.
fn errors(mesh: &TriMesh, fine: &FineRule, u: &[Vec<f64>], exact: &(dyn Fn(f64, f64) -> f64 + Sync)) -> (f64, f64) {
    let per: Vec<(f64, f64)> = (0..mesh.num_elements())
        .into_par_iter()
        .map(|k| {
            let (geo, _) = ElementGeometry::of_element(mesh, k);
            let v = element_vertices(mesh, k);
            let (mut sq, mut max) = (0.0, 0.0_f64);
            for q in 0..fine.rule.w.len() {
                let uh: f64 = (0..u[k].len()).map(|i| u[k][i] * fine.phi[(q, i)]).sum();
                let [x, y] = crate::local::reference_to_physical(v, fine.rule.r[q], fine.rule.s[q]);
                let d = uh - exact(x, y);
                sq += geo.j * fine.rule.w[q] * d * d;
                max = if d.abs() > max || d.is_nan() { d.abs() } else { max };
            }
            let (lr, ls) = &fine.lattice;
            for p in 0..lr.len() {
                let uh: f64 = (0..u[k].len()).map(|i| u[k][i] * fine.phi_lattice[(p, i)]).sum();
                let [x, y] = crate::local::reference_to_physical(v, lr[p], ls[p]);
                let d = uh - exact(x, y);
                max = if d.abs() > max || d.is_nan() { d.abs() } else { max };
            }
            (sq, max)
        })
        .collect();
    let l2 = per.iter().map(|p| p.0).sum::<f64>().sqrt();
    let max = per.iter().fold(0.0_f64, |m, p| if p.1 > m || p.1.is_nan() { p.1 } else { m });
    (l2, max)
}
