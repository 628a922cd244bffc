//! This crate's own binary, run as a user would run it: it defines its own laws with the macro, depends only on
//! `dg`, runs a simulation with one of them and is the whole `dg` command line for them.

use std::process::Command;

/// Runs this crate's binary with `args`: (success, stdout, stdout and stderr).
fn run(args: &[&str], cache: &std::path::Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_custom-law"))
        .args(args)
        .env("DG_CACHE_DIR", cache)
        .output()
        .expect("the example's binary starts");
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
/// tunes kernels of `two_tracers`, a law dg itself does not contain, and refuses `decaying_advection`'s kernels
/// with the reason (a source term).
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
    let (ok, _, text) = run(&["verify", "decaying_advection", "--order", "2", "--device", "opencl"]);
    assert!(!ok && text.contains("source term"), "a law with a source is refused with the reason: {text}");
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
    let tune = ["autotune", "two_tracers", "--orders", "2", "--precision", "f64", "--device", "opencl"];
    let (ok, _, text) = run(&[&tune[..], &["--min-dofs", "3000", "--strategy", "random:4"]].concat());
    assert!(ok && text.contains("winner"), "{text}");
    let (ok, _, text) = run(&["db", "list"]);
    assert!(ok && text.contains("two_tracers@"), "the tuned entry is in the user database: {text}");
}
