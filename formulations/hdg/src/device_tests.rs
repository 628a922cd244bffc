//! The device path against the CPU reference on a real OpenCL device (PoCL in CI): each element's Kᵉ and trace
//! load, the ELLPACK assembly against the CPU's CSR, the load, the CG traces and u, with every output poisoned with
//! NaN before the kernel that writes it; and a planted bug that verification must catch. Without an OpenCL device
//! these tests say so and pass, unless `DG_REQUIRE_OPENCL=1` (as in CI).

use super::device::{
    edge_element_lists, DeviceOptions, HdgDeviceSystem, LocalSolve, Output, Preconditioner, LOCAL_TOLERANCE,
};
use super::global::{assemble, local_solvers, solve_cpu};
use super::local::{FineRule, HdgReference};
use super::*;
use dg_core::mesh::{rectangle, Connectivity, RectangleSpec, TriMesh};
use dg_runtime::backend::discovery::{open, DeviceSelector};
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::Device;
use std::sync::Mutex;

/// PoCL initialising in several threads at once has been seen to report no device: one test at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn opencl() -> Option<Box<dyn Device>> {
    match open(&DeviceSelector::AnyOpenCl) {
        Ok(device) => Some(device),
        Err(e) if std::env::var("DG_REQUIRE_OPENCL").as_deref() == Ok("1") => {
            panic!("DG_REQUIRE_OPENCL=1 but no OpenCL device: {e}")
        }
        Err(e) => {
            eprintln!("skipping: no OpenCL device ({e})");
            None
        }
    }
}

/// 11 × 9 rectangles cut in two with alternating diagonals (198 elements, 316 edges: every row kernel launches
/// several groups of 256, no count a multiple of it), the interior vertices moved (no two elements alike); a
/// Neumann side, κ = 1.3, λ = 0.7.
fn case() -> (TriMesh, HelmholtzProblem) {
    let mut mesh = super::tests::mixed_mesh(11, 9);
    for (i, v) in mesh.vertices.iter_mut().enumerate() {
        let inside = v[0] > 1e-9 && v[0] < 1.0 - 1e-9 && v[1] > 1e-9 && v[1] < 0.8 - 1e-9;
        if inside {
            let t = i as f64;
            v[0] += 0.02 * (1.7 * t).sin();
            v[1] += 0.02 * (2.3 * t).cos();
        }
    }
    let problem = super::tests::mixed_problem(&mesh);
    (mesh, problem)
}

/// The largest |a − b| over the largest |b|; NaN or a length mismatch fails.
fn relative(a: &[f64], b: &[f64], what: &str, tolerance: f64) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{what}: {} values, expected {}", a.len(), b.len()));
    }
    let scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut worst = 0.0_f64;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let d = (x - y).abs();
        if !d.is_finite() {
            return Err(format!("{what}: value {i} is {x}, expected {y}"));
        }
        worst = worst.max(d);
    }
    if worst > tolerance * scale {
        return Err(format!("{what}: differs by {:.3e} relative (tolerance {tolerance:e})", worst / scale));
    }
    Ok(())
}

/// Every stage of the device path at degree `order` against the CPU reference.
fn check_against_cpu(device: &mut dyn Device, order: usize) -> Result<(), String> {
    let (mesh, problem) = case();
    let system = HdgDeviceSystem::new(device, &mesh, order, &problem).map_err(|e| e.to_string())?;
    let nt = order + 1;
    let m = 3 * nt;
    // the CPU's element solvers, loads and assembly
    let re = HdgReference::new(order).expect("tables");
    let connectivity = Connectivity::build(&mesh).expect("connects");
    let space = TraceSpace::new(&mesh, &connectivity);
    let fine = FineRule::new(order);
    let locals = local_solvers(&mesh, &re, &space, &fine, &problem).expect("every A factorises");
    let cpu = assemble(&space, nt, &locals, &mesh, &problem).expect("assembles");
    let run = |r: Result<f64, HdgError>| r.map_err(|e| e.to_string());
    let read = |device: &mut dyn Device, o: Output| system.read(device, o).map_err(|e| e.to_string());
    for o in [Output::ElementMatrices, Output::TraceLoads, Output::Recovery] {
        system.poison(device, o).map_err(|e| e.to_string())?;
        // the poison itself (a fill kernel) reaches every value
        if let Some(i) = read(device, o)?.iter().position(|v| !v.is_nan()) {
            return Err(format!("P = {order}: {o:?} value {i} not poisoned"));
        }
    }
    run(system.generate(device, *system.widths().last().expect("a width")))?;
    // Kᵉ and the trace load of every element (Kᵉ = G − B A⁻¹ C by LU of A on the CPU; Schur on u on the device)
    let k_device = read(device, Output::ElementMatrices)?;
    let k_cpu: Vec<f64> =
        locals.iter().flat_map(|(s, _)| (0..m).flat_map(move |i| (0..m).map(move |j| s.k[(i, j)]))).collect();
    relative(&k_device, &k_cpu, &format!("P = {order}: Kᵉ"), 1e-12)?;
    let k_transposed: Vec<f64> =
        k_device.chunks(m * m).flat_map(|k| (0..m).flat_map(move |i| (0..m).map(move |j| k[j * m + i]))).collect();
    relative(&k_device, &k_transposed, &format!("P = {order}: Kᵉ symmetric"), 1e-13)?;
    let t_cpu: Vec<f64> = locals.iter().flat_map(|(s, f)| s.trace_load(f).expect("load")).collect();
    relative(&read(device, Output::TraceLoads)?, &t_cpu, &format!("P = {order}: trace loads"), 1e-12)?;
    // the recovery operator's every column is finite (u is compared below)
    if let Some(bad) = read(device, Output::Recovery)?.iter().position(|v| !v.is_finite()) {
        return Err(format!("P = {order}: recovery value {bad} is not finite"));
    }
    // ELLPACK against the CSR: the same columns and values in every row, 5(P + 1) wide
    system.poison(device, Output::EllValues).map_err(|e| e.to_string())?;
    system.poison(device, Output::Load).map_err(|e| e.to_string())?;
    run(system.assemble(device))?;
    let cols = system.read_columns(device).map_err(|e| e.to_string())?;
    let vals = read(device, Output::EllValues)?;
    let rows = system.rows();
    if cols.len() != rows * 5 * nt {
        return Err(format!("P = {order}: ELL width {} instead of 5(P + 1)", cols.len() / rows));
    }
    let (mut ell, mut csr) = (Vec::new(), Vec::new());
    for r in 0..rows {
        let mut row: Vec<(i32, f64)> =
            (0..5 * nt).map(|k| (cols[k * rows + r], vals[k * rows + r])).filter(|e| e.0 >= 0).collect();
        row.sort_by_key(|e| e.0);
        let expected: Vec<i32> = cpu.col[cpu.row_start[r]..cpu.row_start[r + 1]].iter().map(|&c| c as i32).collect();
        if row.iter().map(|e| e.0).collect::<Vec<_>>() != expected {
            return Err(format!("P = {order}: row {r} has other columns than the CSR's"));
        }
        ell.extend(row.iter().map(|e| e.1));
        csr.extend_from_slice(&cpu.val[cpu.row_start[r]..cpu.row_start[r + 1]]);
        if let Some(pad) = (0..5 * nt).find(|&k| cols[k * rows + r] < 0 && vals[k * rows + r] != 0.0) {
            return Err(format!("P = {order}: row {r}'s padding entry {pad} holds {}", vals[pad * rows + r]));
        }
    }
    relative(&ell, &csr, &format!("P = {order}: K (ELL vs CSR)"), 1e-12)?;
    relative(&read(device, Output::Load)?, &cpu.load, &format!("P = {order}: load"), 1e-12)?;
    // CG from the Dirichlet traces, then u, against the direct solve
    let direct = solve_cpu(&mesh, order, &problem).map_err(|e| e.to_string())?;
    let u_cpu: Vec<f64> = direct.u.concat();
    for preconditioner in [Preconditioner::Jacobi, Preconditioner::BlockJacobi] {
        system.poison(device, Output::Traces).map_err(|e| e.to_string())?;
        system.poison(device, Output::U).map_err(|e| e.to_string())?;
        let options = DeviceOptions { preconditioner, ..DeviceOptions::default() };
        let (iterations, residual, history, _) = system.solve(device, &options).map_err(|e| e.to_string())?;
        if iterations == 0 || residual.is_nan() || residual > 1e-10 || history.len() != iterations + 1 {
            return Err(format!("P = {order} {preconditioner:?}: {iterations} iterations to |r|/|r₀| = {residual:e}"));
        }
        run(system.recover(device))?;
        let what = format!("P = {order} {preconditioner:?}");
        relative(&read(device, Output::Traces)?, &direct.traces, &format!("{what}: traces"), 1e-9)?;
        relative(&read(device, Output::U)?, &u_cpu, &format!("{what}: u"), 1e-9)?;
    }
    Ok(())
}

/// Kᵉ, trace loads, ELLPACK K and load to 1e-12 of the CPU's; traces and u to 1e-9 of the direct solve, with
/// either preconditioner; at P = 1, 3, 6, 9.
#[test]
fn the_device_path_equals_the_cpu_reference() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut device) = opencl() else { return };
    for order in [1, 3, 6, 9] {
        if let Err(e) = check_against_cpu(device.as_mut(), order) {
            panic!("{e}");
        }
    }
}

/// The geometry's stride or the trace modes per edge one too small fails the comparison. (The planted early return
/// of a last work group is not used here: before a barrier it corrupts PoCL's memory, which would prove nothing.)
#[test]
fn a_planted_bug_fails_the_comparison() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut device) = opencl() else { return };
    for bug in [PlantedBug::WrongStride("GEO".into()), PlantedBug::WrongStride("NT".into())] {
        let mut planted = PlantedDevice::new(device.as_mut(), bug.clone());
        let outcome = check_against_cpu(&mut planted, 2);
        assert!(planted.programs_edited() > 0, "{bug:?} edited nothing");
        let message = outcome.expect_err("the planted bug passed");
        assert!(!message.contains("compil"), "{bug:?} did not compile: {message}");
        eprintln!("{bug:?} caught: {message}");
    }
}

/// The device solve's report: the sizes, a row width of 5(P + 1), the width chosen among those timed, errors of the
/// manufactured solution as the CPU's; and the edge lists hold each element face once.
#[test]
fn a_device_solve_reports_what_it_did() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut device) = opencl() else { return };
    let mesh = rectangle(&RectangleSpec::unit_square(13)).expect("a mesh");
    let problem = HelmholtzProblem::helmholtz_square();
    let order = 3;
    let out = solve_device(device.as_mut(), &mesh, order, &problem, &DeviceOptions::default()).expect("solves");
    let cpu = solve_cpu(&mesh, order, &problem).expect("solves");
    let s = &out.solution;
    assert_eq!(s.row_width, 5 * (order + 1));
    assert_eq!((s.unknowns, s.nonzeros), (cpu.unknowns, cpu.nonzeros));
    assert!(out.local_trials.len() >= 2 && out.local_trials.iter().any(|t| t.width == out.local_width));
    // OpenCL has no cuBLAS: the generated element solve only, every candidate checked against the CPU's
    assert_eq!(out.local_solve, LocalSolve::Generated);
    assert!(out.gemm_reference.is_none());
    assert!(out.refinement_iterations > 0 && out.refinement_seconds > 0.0, "no refinement step");
    // the correction's CG stops at 10⁻³ of its first residual (the true residual, recomputed at the end)
    let refined = out.refinement_relative_residual.unwrap_or(f64::NAN);
    assert!(refined <= 1e-3, "refinement's relative residual {refined}");
    for t in &out.local_trials {
        assert!(t.solve == LocalSolve::Generated && t.error <= LOCAL_TOLERANCE && t.seconds > 0.0, "{t:?}");
    }
    let (l2, l2_cpu) = (s.l2_error.unwrap_or(f64::NAN), cpu.l2_error.unwrap_or(f64::NAN));
    assert!((l2 - l2_cpu).abs() <= 1e-6 * l2_cpu, "{l2} vs {l2_cpu}");
    // `no-refine`: the condensed solve alone, the same errors where the truncation error dominates
    let options = DeviceOptions::from_variant("no-refine").expect("a variant");
    let plain = solve_device(device.as_mut(), &mesh, order, &problem, &options).expect("solves");
    assert_eq!((plain.refinement_iterations, plain.refinement_seconds), (0, 0.0));
    assert!(plain.refinement_relative_residual.is_none());
    let l2_plain = plain.solution.l2_error.unwrap_or(f64::NAN);
    assert!((l2_plain - l2).abs() <= 1e-6 * l2, "{l2_plain} vs {l2}");
    let connectivity = Connectivity::build(&mesh).expect("connects");
    let space = TraceSpace::new(&mesh, &connectivity);
    let lists = edge_element_lists(&space, mesh.num_elements()).expect("lists");
    let mut seen: Vec<(i32, i32)> = lists.chunks(2).filter(|p| p[0] >= 0).map(|p| (p[0], p[1])).collect();
    seen.sort_unstable();
    let all: Vec<(i32, i32)> = (0..mesh.num_elements() as i32).flat_map(|k| (0..3).map(move |l| (k, l))).collect();
    assert_eq!(seen, all);
}

/// Seed 004's 40 × 40 test at P = 7 and 9 on the device: the errors reach the CPU path's (within 3× of its L2 error,
/// below 3·10⁻¹⁴), which the element solve without its mixed refinement missed by two orders (4·10⁻¹² at P = 9: q
/// recovered from u cancels) and the condensed solve without the refinement step of the uncondensed system by one
/// (5·10⁻¹⁴ … 1.5·10⁻¹³ from P = 7).
#[test]
fn the_device_reaches_the_cpu_floor_at_high_order() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut device) = opencl() else { return };
    let mesh = rectangle(&RectangleSpec::unit_square(40)).expect("a mesh");
    let problem = HelmholtzProblem::helmholtz_square();
    for order in [7, 9] {
        let out = solve_device(device.as_mut(), &mesh, order, &problem, &DeviceOptions::default()).expect("solves");
        let cpu = solve_cpu(&mesh, order, &problem).expect("solves");
        let (l2, l2_cpu) = (out.solution.l2_error.unwrap_or(f64::NAN), cpu.l2_error.unwrap_or(f64::NAN));
        assert!(l2 <= 3.0 * l2_cpu && l2 < 3e-14, "P = {order}: device L2 {l2:e}, CPU {l2_cpu:e}");
    }
}

/// The kernels around a library's batched LU (CUDA's cuBLAS path), run here with the host standing in for the
/// library: S and the right-hand sides as they leave the first kernel are read, solved by LU on the host and written
/// back, twice; Kᵉ and the trace loads must equal the CPU's to 1e-12 and [U u_f] be finite, at P = 2 and 9, every
/// output NaN-poisoned first. Laying the right-hand sides out row-major instead of column-major on the host fails.
#[test]
fn the_split_kernels_around_a_host_lu_equal_the_cpu_reference() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut device) = opencl() else { return };
    let device = device.as_mut();
    let (mesh, problem) = case();
    for order in [2, 9] {
        let system = HdgDeviceSystem::with_split_kernels(device, &mesh, order, &problem, true).expect("compiles");
        let (n, m) = (system.nmodes, 3 * system.ntrace);
        let re = HdgReference::new(order).expect("tables");
        let connectivity = Connectivity::build(&mesh).expect("connects");
        let space = TraceSpace::new(&mesh, &connectivity);
        let locals = local_solvers(&mesh, &re, &space, &FineRule::new(order), &problem).expect("factorises");
        let k_cpu: Vec<f64> =
            locals.iter().flat_map(|(s, _)| (0..m).flat_map(move |i| (0..m).map(move |j| s.k[(i, j)]))).collect();
        let t_cpu: Vec<f64> = locals.iter().flat_map(|(s, f)| s.trace_load(f).expect("load")).collect();
        for transposed in [false, true] {
            for o in [Output::ElementMatrices, Output::TraceLoads, Output::Recovery, Output::Factors, Output::LocalRhs]
            {
                system.poison(device, o).expect("poisons");
            }
            let w = system.widths()[0];
            system.run_split_stage(device, 0, w).expect("forms");
            let factors = system.read(device, Output::Factors).expect("reads");
            assert!(factors.iter().all(|v| v.is_finite()), "P = {order}: S not written everywhere");
            let lus: Vec<_> =
                factors.chunks(n * n).map(|s| nalgebra::DMatrix::from_column_slice(n, n, s).lu()).collect();
            // the host's stand-in for the library's two triangular solves, element by element
            let solve = |device: &mut dyn Device| {
                let rhs = system.read(device, Output::LocalRhs).expect("reads");
                let mut out = Vec::with_capacity(rhs.len());
                for (lu, r) in lus.iter().zip(rhs.chunks(n * (m + 1))) {
                    let b = if transposed {
                        nalgebra::DMatrix::from_row_slice(n, m + 1, r)
                    } else {
                        nalgebra::DMatrix::from_column_slice(n, m + 1, r)
                    };
                    let x = lu.solve(&b).expect("S is not singular");
                    out.extend(x.as_slice());
                }
                system.write(device, Output::LocalRhs, &out).expect("writes");
            };
            solve(device);
            system.run_split_stage(device, 1, w).expect("refines");
            solve(device);
            system.run_split_stage(device, 2, w).expect("finishes");
            let k = system.read(device, Output::ElementMatrices).expect("reads");
            let t = system.read(device, Output::TraceLoads).expect("reads");
            let outcome = relative(&k, &k_cpu, &format!("P = {order}: split Kᵉ"), 1e-12)
                .and_then(|_| relative(&t, &t_cpu, &format!("P = {order}: split trace loads"), 1e-12));
            if transposed {
                assert!(outcome.is_err(), "P = {order}: the row-major stand-in passed");
            } else {
                outcome.unwrap_or_else(|e| panic!("{e}"));
                let recovery = system.read(device, Output::Recovery).expect("reads");
                assert!(recovery.iter().all(|v| v.is_finite()), "P = {order}: recovery not written everywhere");
            }
        }
    }
}

/// The local candidates' check against the CPU's element solves stops a run whose local kernel is wrong: with the
/// geometry's stride planted one too small, `solve_device` fails with the element named.
#[test]
fn a_planted_bug_fails_the_local_check_of_a_run() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut device) = opencl() else { return };
    let mesh = rectangle(&RectangleSpec::unit_square(9)).expect("a mesh");
    let problem = HelmholtzProblem::helmholtz_square();
    let mut planted = PlantedDevice::new(device.as_mut(), PlantedBug::WrongStride("GEO".into()));
    let options = DeviceOptions { local_width: Some(64), ..DeviceOptions::default() };
    let outcome = solve_device(&mut planted, &mesh, 3, &problem, &options);
    assert!(planted.programs_edited() > 0, "the bug edited nothing");
    let message = outcome.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("local generation") && message.contains("element"), "not caught: {message}");
}
