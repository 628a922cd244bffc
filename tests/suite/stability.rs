//! Runs a user can trust: every scheme stable at its default step, steps beyond the stability limit refused,
//! blow-ups stopped with a message and a failure exit code, numeric options checked by their parsers.

use std::process::{Command, Output};

/// Runs dg in a fresh directory (a stopped run leaves its last good state in the current directory).
fn dg(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    Command::new(env!("CARGO_BIN_EXE_dg")).current_dir(dir.path()).args(args).output().expect("dg starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("JSON report")
}

const SCHEMES: [&str; 5] = ["lsrk45", "ssprk3", "rk4", "ab3", "rk2"];

/// Seed 000's cavity at order 4 with every scheme at its default step: the error of the spatial scheme and an
/// energy that never grows (upwind flux, PEC walls). RK4 and AB3 diverged here at the old default.
#[test]
fn every_scheme_is_stable_at_its_default_step() {
    let _heavy = crate::heavy();
    for scheme in SCHEMES {
        let doc = json(&dg(&[
            "run",
            "maxwell-cavity",
            "--scheme",
            scheme,
            "--order",
            "4",
            "--nx",
            "4",
            "--device",
            "cpu",
            "--json",
        ]));
        let error = doc["l2_error"].as_f64().unwrap();
        let tolerance = if scheme == "rk2" { 1e-3 } else { 5e-5 };
        assert!(error < tolerance, "{scheme}: L2 error {error}");
        // the explicit midpoint rule amplifies the undamped cavity mode itself by (dt ω)⁴/8 per step: bounded,
        // about 3e-5 over the period here; every other scheme damps it
        let growth = if scheme == "rk2" { 1e-4 } else { 1e-12 };
        let (e0, e1) = (doc["energy_initial"].as_f64().unwrap(), doc["energy_final"].as_f64().unwrap());
        assert!(e1 <= e0 * (1.0 + growth), "{scheme}: energy {e0} → {e1}");
        let (dt, limit) = (doc["dt"].as_f64().unwrap(), doc["stability_limit"]["dt"].as_f64().unwrap());
        assert!(dt <= limit * (1.0 + 1e-12), "{scheme}: step {dt} above the limit {limit}");
    }
}

/// The cavity converges at rate N + 1 for N = 1..4 with every scheme at its default step (the step shrinks on
/// finer levels to keep each scheme's time error below the spatial one).
#[test]
fn every_scheme_converges_at_order_n_plus_one_at_its_default_step() {
    let _heavy = crate::heavy();
    for scheme in SCHEMES {
        let args = ["convergence", "maxwell-cavity", "--orders", "1..4", "--levels", "3", "--scheme", scheme, "--json"];
        let doc = json(&dg(&args));
        for r in doc["results"].as_array().unwrap() {
            let order = r["order"].as_f64().unwrap();
            let finest = r["rates"].as_array().unwrap().last().unwrap().as_f64().unwrap();
            assert!(finest > order + 1.0 - 0.3, "{scheme} N={order}: rates {}", r["rates"]);
        }
    }
}

/// Every step beyond the limit seen in the field is refused before the first step, naming the limit and the
/// largest stable value; a step count no run can finish is refused too.
#[test]
fn steps_beyond_the_stability_limit_are_refused() {
    let _heavy = crate::heavy();
    let cavity = ["run", "maxwell-cavity", "--order", "4", "--nx", "4", "--device", "cpu"];
    for extra in [&["--cfl", "50"][..], &["--cfl", "1e9"], &["--dt", "1e300"], &["--scheme", "ab3", "--cfl", "0.75"]] {
        let out = dg(&[&cavity[..], extra].concat());
        assert!(!out.status.success(), "{extra:?} ran");
        let msg = stderr(&out);
        assert!(msg.contains("stability limit") && msg.contains("largest stable"), "{extra:?}: {msg}");
    }
    let out = dg(&[&cavity[..], &["--dt", "1e-300"]].concat());
    assert!(!out.status.success() && stderr(&out).contains("at most 1000000000"), "{}", stderr(&out));
    let vortex = ["run", "euler-isentropic-vortex", "--order", "2", "--nx", "8", "--t-end", "0.5", "--device", "cpu"];
    let out = dg(&[&vortex[..], &["--cfl", "5"]].concat());
    assert!(!out.status.success() && stderr(&out).contains("stability limit"), "{}", stderr(&out));
    let waves = ["run", "acoustic-cube", "--order", "2", "--nx", "3", "--device", "cpu"];
    let out = dg(&[&waves[..], &["--cfl", "40"]].concat());
    assert!(!out.status.success() && stderr(&out).contains("stability limit"), "{}", stderr(&out));
}

/// With `--allow-unstable` the run starts, and the blow-up stops it: energy growth (or the largest |value|'s) for a
/// linear law, the admissible set for Euler; a clear message and a failure exit code, never a normal-looking report.
#[test]
fn blow_ups_stop_the_run_with_a_failure() {
    let _heavy = crate::heavy();
    let out = dg(&[
        "run",
        "maxwell-cavity",
        "--order",
        "4",
        "--nx",
        "4",
        "--device",
        "cpu",
        "--cfl",
        "2",
        "--allow-unstable",
        "--json",
    ]);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        stderr(&out).contains("the run stopped at step") && stderr(&out).contains("energy grew"),
        "{}",
        stderr(&out)
    );
    // with --json, stdout holds one document with the error and nothing a report has (no error, no steps)
    let error_only = |out: &std::process::Output, why: &str| {
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not one JSON document ({e}): {}", String::from_utf8_lossy(&out.stdout)));
        let fields: Vec<&String> = doc.as_object().map(|o| o.keys().collect()).unwrap_or_default();
        assert_eq!(fields, ["error"], "{doc}");
        assert!(doc["error"].as_str().is_some_and(|e| e.contains(why)), "{doc}");
    };
    error_only(&out, "the run stopped at step");
    let args = ["run", "euler-isentropic-vortex", "--order", "2", "--nx", "8", "--t-end", "2", "--device", "cpu"];
    let out = dg(&[&args[..], &["--dt", "0.5", "--allow-unstable", "--json"]].concat());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("left the admissible set"), "{}", stderr(&out));
    error_only(&out, "left the admissible set");
    // tetrahedra and hexahedra on the native CPU path: a blow-up two steps long stays finite, and the growth of the
    // largest |value| stops it (these runs ended with a normal report and errors of 10² to 10⁴)
    for case in [["acoustic-cube", "--nx", "2"], ["maxwell3d-cavity", "--nx", "3"]] {
        let out = dg(&[&["run"][..], &case, &["--device", "cpu", "--cfl", "5", "--allow-unstable", "--json"]].concat());
        assert!(!out.status.success(), "{case:?}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(stderr(&out).contains("the largest |value| grew from"), "{case:?}: {}", stderr(&out));
        error_only(&out, "the run stopped at step");
    }
}

/// A run that stops leaves its last good state (the last sampled step that passed, before the blow-up) as a
/// restart file and a VTU file, named in the message; the state in them is finite.
#[test]
fn a_stopped_run_leaves_its_last_good_state() {
    let _heavy = crate::heavy();
    let dir = tempfile::tempdir().unwrap();
    let args = ["run", "maxwell-cavity", "--order", "3", "--nx", "4", "--device", "cpu", "--cfl", "3"];
    let out = Command::new(env!("CARGO_BIN_EXE_dg"))
        .current_dir(dir.path())
        .args([&args[..], &["--allow-unstable", "--out", "cavity.vtu"]].concat())
        .output()
        .unwrap();
    let message = stderr(&out);
    assert!(!out.status.success() && message.contains("the last good state (step"), "{message}");
    assert!(message.contains("cavity-last-good.restart") && message.contains("cavity-last-good.vtu"), "{message}");
    let file = dg::dg_runtime::restart::read(&dir.path().join("cavity-last-good.restart")).unwrap();
    let stopped_at: u64 = message.split("stopped at step ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(file.state.position.step < stopped_at, "{} vs {stopped_at}", file.state.position.step);
    assert!(file.state.snapshot.arrays[0].1.iter().all(|v| v.is_finite()));
    assert!(std::fs::metadata(dir.path().join("cavity-last-good.vtu")).unwrap().len() > 1000);
    assert!(!dir.path().join("cavity.vtu").exists(), "no final output from a run that stopped");
}

/// Numeric options are checked where they are parsed (exit code 2, clap's usage error), and conflicting ones
/// are an error, not one of them silently ignored.
#[test]
fn bad_numbers_and_conflicting_options_are_refused_by_the_parser() {
    let _heavy = crate::heavy();
    for extra in ["--cfl=-1", "--cfl=nan", "--cfl=inf", "--dt=0", "--dt=-1e-3", "--cfl=x", "--dt=1e999"] {
        let out = dg(&["run", "maxwell-cavity", "--device", "cpu", extra]);
        assert_eq!(out.status.code(), Some(2), "{extra}: {}", stderr(&out));
        let option = extra.split('=').next().unwrap();
        assert!(stderr(&out).contains(option), "{extra}: {}", stderr(&out));
    }
    let out = dg(&["run", "maxwell-cavity", "--device", "cpu", "--cfl", "0.5", "--dt", "0.01"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
}

/// The native CPU path's per-step verdict of the tetrahedral and hexahedral runs: a value that is not finite
/// (counted), and for a linear law the largest |value| past 100× the initial state's; a nonlinear law's growth is not
/// judged (its admissibility is its own check).
#[test]
fn the_cpu_step_verdict_catches_non_finite_values_and_a_linear_laws_growth() {
    let q0 = [1.0f64, -2.0, 0.5];
    let linear = dg::dg_run::host_step_verdict(&q0, true);
    assert_eq!(linear(&[1.0, -150.0, 0.0]), None);
    assert!(linear(&[1.0, -250.0, 0.0]).is_some_and(|why| why.contains("grew from 2.0000e0 to 2.5000e2")));
    assert!(linear(&[1.0, f64::NAN, f64::INFINITY]).is_some_and(|why| why.contains("2 of 3 values are no longer")));
    let nonlinear = dg::dg_run::host_step_verdict(&q0, false);
    assert_eq!(nonlinear(&[1.0, 1e9, 0.0]), None);
    assert!(nonlinear(&[1.0, f64::NAN, 0.0]).is_some_and(|why| why.contains("1 of 3 values")));
}
