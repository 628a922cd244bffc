//! This crate's own binary, run as a user would run it: it defines its own laws with the macro, depends only on
//! `dg`, runs a simulation with one of them and is the whole `dg` command line for them.

use std::process::Command;

/// Runs this crate's binary with `args`: (success, stdout, stdout and stderr).
fn run(args: &[&str], cache: &std::path::Path) -> (bool, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_custom-law"));
    command.args(args).env("DG_CACHE_DIR", cache);
    // `verify` on PoCL without its optimiser (unless the caller's environment says otherwise): it checks the generated
    // code's results, and the 3D programs compile four times faster so (hexahedra, N = 1: 30 s -> 7 s here); not
    // `autotune`, whose timings and ceilings (measured on first use) run eight times slower unoptimised
    if args.first() == Some(&"verify") && std::env::var_os("POCL_EXTRA_BUILD_FLAGS").is_none() {
        command.env("POCL_EXTRA_BUILD_FLAGS", "-cl-opt-disable");
    }
    let out = command.output().expect("the example's binary starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    (out.status.success(), stdout, text)
}

#[test]
fn a_user_crate_defines_and_runs_its_own_law() {
    let cache = tempfile::tempdir().expect("a temporary directory");
    let (ok, stdout, text) = run(&[], cache.path());
    assert!(ok, "the example failed:\n{text}");
    assert!(stdout.contains("decaying_advection") && stdout.lines().last() == Some("ok"), "{stdout}");
}

/// The example's own binary is the whole `dg` command line for its own laws: it emits, verifies (on PoCL in CI) and
/// tunes kernels of `two_tracers`, a law dg itself does not contain, and verifies the kernels of
/// `decaying_advection`, whose source term reads the state, the position and the time (and fails them when the
/// source is planted to return zero), with the modal kernels too, and in 3D those of `damped_advection3d` on
/// tetrahedra and hexahedra.
#[test]
fn a_user_crate_gets_the_kernel_commands_for_its_own_law() {
    let cache = tempfile::tempdir().expect("a temporary directory");
    let run = |args: &[&str]| run(args, cache.path());
    // the generated kernel bakes in the law's own parameters (VB = 0.75, UB = -0.5) in its flux
    let spec = "node/mb1/seq1/field-local/fused/elem-major/f64";
    let (ok, source, text) = run(&["emit", "two_tracers", "--order", "2", "--variant", spec, "--target", "opencl"]);
    assert!(ok && source.contains("KERNEL void volume") && source.contains("0.75 * q"), "{text}");
    let (ok, _, text) = run(&["laws"]);
    assert!(ok && text.contains("two_tracers") && text.contains("euler2d"), "{text}");
    let (ok, source, text) =
        run(&["emit", "decaying_advection", "--order", "2", "--variant", spec, "--target", "opencl"]);
    assert!(ok && source.contains("KERNEL void source") && source.contains("law_source("), "{text}");
    let (ok, _, text) = run(&["devices", "--json"]);
    let opencl = ok && text.contains("\"opencl\"");
    if !opencl {
        assert_ne!(std::env::var("DG_REQUIRE_OPENCL").as_deref(), Ok("1"), "no OpenCL device: {text}");
        eprintln!("skipping the device commands: no OpenCL device");
        return;
    }
    let args = ["verify", "two_tracers", "--order", "2", "--precision", "f64", "--device", "opencl", "--json"];
    let (ok, json, text) = run(&args);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(ok && doc["tested"].as_u64().unwrap_or(0) > 0 && doc["tested"] == doc["passed"], "{text}");
    // the source term in the kernels: every variant at N = 2 passes, and fails with the source dropped
    let args = ["verify", "decaying_advection", "--order", "2", "--precision", "f64", "--device", "opencl", "--json"];
    let (ok, json, text) = run(&args);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(ok && doc["tested"].as_u64().unwrap_or(0) > 0 && doc["tested"] == doc["passed"], "{text}");
    let planted = [&args[..], &["--variant", spec, "--plant-bug", "source-dropped"]].concat();
    let (ok, json, text) = run(&planted);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(!ok && doc["tested"] == 1 && doc["passed"] == 0, "the dropped source must fail verification: {text}");
    // the modal kernels (the source projected at the cubature points: one variant), and in 3D the tetrahedral and
    // hexahedral ones (every kernel at N = 1)
    let cases = [
        ("decaying_advection", "modal-tri", "modal/wg64/element/shared/elem-major/f64", true),
        ("damped_advection3d", "nodal-tet", "tet/elem/w64/u1/f64", false),
        ("damped_advection3d", "hex", "hex/fused/spec/c4/kvi/f64", false),
    ];
    for (law, formulation, spec, one) in cases {
        let args = ["verify", law, "--formulation", formulation, "--order", "1", "--precision", "f64"];
        let args = [&args[..], &["--device", "opencl", "--json"]].concat();
        let (ok, json, text) = run(&if one { [&args[..], &["--variant", spec]].concat() } else { args.clone() });
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(ok && doc["tested"].as_u64().unwrap_or(0) > 0 && doc["tested"] == doc["passed"], "{text}");
        let (ok, json, text) = run(&[&args[..], &["--variant", spec, "--plant-bug", "source-dropped"]].concat());
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(!ok && doc["tested"] == 1 && doc["passed"] == 0, "{formulation}: the dropped source must fail: {text}");
    }
    let tune = ["autotune", "two_tracers", "--orders", "2", "--precision", "f64", "--device", "opencl"];
    let (ok, _, text) = run(&[&tune[..], &["--min-dofs", "3000", "--strategy", "random:4"]].concat());
    assert!(ok && text.contains("winner"), "{text}");
    let (ok, _, text) = run(&["db", "list"]);
    assert!(ok && text.contains("two_tracers@"), "the tuned entry is in the user database: {text}");
}
