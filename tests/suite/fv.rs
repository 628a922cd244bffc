//! Finite-volume MHD cases (seed 003) on the native CPU path: the Brio–Wu shock tube's structure and conservation,
//! GLM cleaning keeping ∇·B smaller on the Orszag–Tang vortex than no cleaning, and the command line's report and
//! refusals.

use dg::cases::fv::{BrioWu, OrszagTang};
use dg::fv_run::{run_fv, FvOptions};
use dg::Precision;
use std::process::Command;

#[test]
fn brio_wu_keeps_mass_and_its_states_between_the_initial_ones() {
    let opts = FvOptions { cells: Some(400), ..FvOptions::default() };
    let out = run_fv(Precision::F64, &BrioWu, &opts, None, &mut |_, _| {}).unwrap();
    let r = &out.report;
    // the ends are outflow boundaries that nothing reaches by t = 0.1: mass is conserved to round-off
    assert!(r.mass_change.abs() < 1e-12, "mass changed by {}", r.mass_change);
    // the density stays between the right state and the left one (the compound wave's peak stays below 1)
    assert!(r.density_range[0] > 0.1 && r.density_range[0] < 0.125, "{:?}", r.density_range);
    assert!(r.density_range[1] <= 1.0 + 1e-12, "{:?}", r.density_range);
    // By changes sign across the compound wave and the slow shock, and the left state is untouched at x < 0.2
    let cells = out.grid.cells();
    let by = &out.q[6 * cells..7 * cells];
    assert!((by[10] - 1.0).abs() < 1e-12 && (by[cells - 10] + 1.0).abs() < 1e-12);
    let crossings = by.windows(2).filter(|w| w[0] * w[1] < 0.0).count();
    assert_eq!(crossings, 1, "By changes sign once");
    assert!(r.divergence.iter().all(|d| d.1 == 0.0), "Bx stays uniform along the tube");
}

#[test]
fn glm_cleaning_keeps_the_divergence_of_b_smaller() {
    let base = FvOptions { cells: Some(48), t_end: Some(0.3), ..FvOptions::default() };
    let with = run_fv(Precision::F64, &OrszagTang, &base, None, &mut |_, _| {}).unwrap().report;
    let without = run_fv(Precision::F64, &OrszagTang, &FvOptions { no_cleaning: true, ..base }, None, &mut |_, _| {})
        .unwrap()
        .report;
    assert!(with.mass_change.abs() < 1e-12 && without.mass_change.abs() < 1e-12);
    assert_eq!(with.divergence[0].1, 0.0, "the initial field is divergence-free");
    let last = |r: &dg::fv_run::FvReport| r.divergence.last().unwrap().1;
    assert!(last(&with) > 0.0 && last(&with) < 0.6 * last(&without), "{} vs {}", last(&with), last(&without));
}

#[test]
fn dg_run_reports_a_finite_volume_case_and_refuses_what_does_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let dg =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_dg")).current_dir(dir.path()).args(args).output().unwrap();
    let out = dg(&["run", "mhd-brio-wu", "--nx", "200", "--order", "1", "--json", "--png", "bw.png"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scheme"], "first-order");
    assert_eq!(report["nx"], 200);
    assert!(std::fs::metadata(dir.path().join("bw.png")).unwrap().len() > 1000);
    for (args, expected) in [
        (vec!["run", "mhd-brio-wu", "--order", "3"], "order 1 or 2"),
        (vec!["run", "mhd-orszag-tang", "--nx", "8192"], "cells are above"),
        (vec!["run", "mhd-orszag-tang", "--variant", "fv/tiled/twice/w64/f64", "--device", "cpu"], "needs a device"),
        (vec!["run", "mhd-orszag-tang", "--formulation", "hex"], "runs with --formulation fv"),
        (vec!["run", "mhd-orszag-tang", "--out-every", "0.1"], "--out <FILE.vtu>"),
        (vec!["run", "mhd-orszag-tang", "--out", "x.vtu", "--out-every", "0"], "positive finite"),
        (vec!["run", "mhd-orszag-tang", "--cfl", "1.5"], "CFL"),
        (vec!["convergence", "mhd-brio-wu", "--orders", "1..2", "--levels", "2"], "no exact solution"),
    ] {
        let out = dg(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected), "dg {args:?}: {err}");
    }
}
