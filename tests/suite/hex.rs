//! Hexahedral cases (seed 003) on the native CPU path: convergence at order D + 1 against exact solutions on
//! straight and distorted boxes, periodic and perfectly conducting; the command line's run, report, VTU output
//! and its refusals.

use dg::cases::hex::{Euler3dDensityWave, HexCase, Maxwell3dCavity, Maxwell3dPlaneWave};
use dg::hex_run::{hex_convergence, run_hex, HexOptions};
use dg::Precision;
use std::process::Command;

fn rates_near(case: &dyn HexCase, base: usize, distortion: f64, orders: std::ops::RangeInclusive<usize>) {
    let study =
        hex_convergence(case, base, distortion, orders, 3, &HexOptions::default(), None, &mut |_, _| {}).unwrap();
    for r in &study.results {
        let finest = *r.rates.last().unwrap();
        let expected = r.order as f64 + 1.0;
        assert!(
            (finest - expected).abs() <= 0.3,
            "{} D={} distortion {distortion}: rate {finest:.2}, errors {:?}",
            case.name(),
            r.order,
            r.l2
        );
    }
}

#[test]
fn maxwell_plane_wave_converges_at_order_d_plus_one() {
    let _heavy = crate::heavy();
    rates_near(&Maxwell3dPlaneWave, 3, 0.0, 1..=3);
}

#[test]
fn maxwell_cavity_converges_at_order_d_plus_one_on_trilinear_cells() {
    let _heavy = crate::heavy();
    rates_near(&Maxwell3dCavity, 3, 0.2, 1..=2);
}

#[test]
fn euler_density_wave_converges_at_order_d_plus_one() {
    let _heavy = crate::heavy();
    rates_near(&Euler3dDensityWave, 3, 0.0, 1..=2);
}

#[test]
fn single_precision_runs_agree_with_double() {
    let _heavy = crate::heavy();
    let opts = HexOptions { order: 3, ..HexOptions::default() };
    let mesh = || Maxwell3dCavity.mesh(3, 0.1).unwrap();
    let double = run_hex(Precision::F64, &Maxwell3dCavity, mesh(), &opts, None, &mut |_, _| {}).unwrap().report;
    let single = run_hex(Precision::F32, &Maxwell3dCavity, mesh(), &opts, None, &mut |_, _| {}).unwrap().report;
    assert_eq!(double.steps, single.steps);
    assert!(double.l2_error < 2e-3, "{}", double.l2_error);
    assert!(
        (single.l2_error - double.l2_error).abs() < 1e-3 * double.l2_error,
        "{} vs {}",
        single.l2_error,
        double.l2_error
    );
}

fn dg(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dg")).current_dir(dir).args(args).output().expect("dg starts")
}

#[test]
fn dg_run_reports_a_hexahedral_case_and_writes_lagrange_hexahedra() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["run", "maxwell3d-cavity", "--order", "2", "--nx", "3", "--perturb", "0.1", "--json", "--out", "c.vtu"];
    let out = dg(dir.path(), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["case"], "maxwell3d-cavity");
    assert_eq!(report["elements"], 27);
    assert_eq!(report["box_cells"], 0, "every cell of the distorted cavity touches a moved vertex");
    let relative = report["relative_l2_error"].as_f64().unwrap();
    assert!(relative > 0.0 && relative < 0.05, "relative error {relative}");
    // the file holds raw appended binary data after its XML header
    let bytes = std::fs::read(dir.path().join("c.vtu")).unwrap();
    let end = bytes.windows(13).position(|w| w == b"<AppendedData").expect("appended data");
    let header = String::from_utf8_lossy(&bytes[..end]);
    assert!(header.contains(r#"NumberOfCells="27""#) && header.contains(r#"Name="ex""#), "{header}");
}

#[test]
fn a_gmsh_hexahedral_mesh_runs_like_the_same_box() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = Maxwell3dCavity.mesh(3, 0.15).unwrap();
    std::fs::write(dir.path().join("cube.msh"), mesh.to_gmsh_22()).unwrap();
    let common = ["--order", "2", "--device", "cpu", "--json"];
    let from_file = dg(dir.path(), &[&["run", "maxwell3d-cavity", "--mesh", "cube.msh"][..], &common].concat());
    let built_in =
        dg(dir.path(), &[&["run", "maxwell3d-cavity", "--nx", "3", "--perturb", "0.15"][..], &common].concat());
    let error = |out: &std::process::Output| -> f64 {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["l2_error"].as_f64().unwrap()
    };
    let (a, b) = (error(&from_file), error(&built_in));
    assert!(a > 0.0 && (a - b).abs() <= 1e-12 * b, "Gmsh mesh {a} vs built-in box {b}");
    // a file of another box than the exact solution's, or for a periodic case, is refused: an error against the
    // exact solution would measure nothing there
    let mut half = mesh.clone();
    half.vertices.iter_mut().for_each(|v| v[0] *= 0.5);
    std::fs::write(dir.path().join("half.msh"), half.to_gmsh_22()).unwrap();
    for (args, expected) in [
        (["run", "maxwell3d-cavity", "--mesh", "half.msh"], "covers [0, 0.5] × [0, 1] × [0, 1] (volume 0.500000)"),
        (["run", "maxwell3d-plane-wave", "--mesh", "cube.msh"], "is periodic in x, y, z"),
    ] {
        let out = dg(dir.path(), &[&args[..], &common].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected), "dg {args:?}: {err}");
    }
}

#[test]
fn hexahedral_runs_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    for (args, expected) in [
        (
            vec!["run", "maxwell3d-plane-wave", "--variant", "hex/fused/spec/c1/kvi/f64", "--device", "cpu"],
            "needs a device",
        ),
        (vec!["run", "maxwell3d-plane-wave", "--formulation", "nodal-tet"], "runs with --formulation hex"),
        (vec!["run", "maxwell3d-plane-wave", "--nx", "2"], "at least 3 cells"),
        (vec!["run", "maxwell3d-cavity", "--perturb", "0.3"], "[0, 0.25]"),
        (vec!["run", "euler3d-density-wave", "--flux", "roe"], "no numerical flux `roe`"),
        (vec!["run", "maxwell3d-cavity", "--bc", "nowhere=pec"], "no boundary tag `nowhere`"),
        (vec!["convergence", "maxwell3d-cavity", "--levels", "3", "--nx", "200"], "cells per direction"),
        (vec!["run", "maxwell3d-cavity", "--mesh", "missing.msh"], "cannot use hexahedral mesh missing.msh"),
        (vec!["run", "maxwell3d-cavity", "--nx", "256", "--order", "9"], "values per state, which need at least"),
    ] {
        let out = dg(dir.path(), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected), "dg {args:?}: {err}");
    }
    let out = dg(dir.path(), &["cases"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for name in ["maxwell3d-plane-wave", "maxwell3d-cavity", "euler3d-density-wave"] {
        assert!(text.contains(name), "dg cases lists {name}");
    }
}

/// A device run of a small cavity tunes on first use on a problem of its own size: the timing cube took two cells
/// per side, which a periodic box refuses, and every candidate failed ("no candidate could be verified and timed").
#[test]
fn a_small_hexahedral_device_run_tunes_on_first_use() {
    let _heavy = crate::heavy();
    if !crate::kernels_opencl::opencl_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dg"))
        .current_dir(dir.path())
        .env("DG_CACHE_DIR", dir.path())
        .args(["run", "maxwell3d-cavity", "--order", "2", "--nx", "2", "--device", "opencl", "--json"])
        .output()
        .expect("dg starts");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["elements"], 8);
    assert_eq!(report["device"]["choice"]["source"], "tuned", "{}", report["device"]);
    let relative = report["relative_l2_error"].as_f64().unwrap();
    assert!(relative.is_finite() && relative < 0.1, "relative error {relative}");
}
