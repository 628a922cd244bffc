//! `examples/custom-law` is a crate outside the workspace that defines its own law with the macro, depends
//! only on `dg`, and runs a simulation; this test builds and runs it as a user would.

use std::path::Path;
use std::process::Command;

#[test]
fn a_crate_outside_the_workspace_defines_and_runs_its_own_law() {
    let _heavy = crate::heavy();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("examples/custom-law/Cargo.toml");
    let target = root.join("target/external-example");
    // a debug build: it compiles in about 60% of a release build's time (this test is a build test) and the
    // example's own run is small
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the example failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("decaying_advection") && stdout.lines().last() == Some("ok"), "{stdout}");
}

/// The example's own binary is the whole `dg` command line for its own laws: it emits, verifies (on PoCL in CI) and
/// tunes kernels of `two_tracers`, a law dg itself does not contain, and refuses `decaying_advection`'s kernels
/// with the reason (a source term).
#[test]
fn a_crate_outside_the_workspace_gets_the_kernel_commands_for_its_own_law() {
    let _heavy = crate::heavy();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("examples/custom-law/Cargo.toml");
    let target = root.join("target/external-example");
    let cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO"))
            .args(["run", "--quiet", "--manifest-path"])
            .arg(&manifest)
            .arg("--")
            .args(args)
            .env("CARGO_TARGET_DIR", &target)
            .env("DG_CACHE_DIR", cache.path())
            .output()
            .expect("cargo runs");
        let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), text)
    };
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
