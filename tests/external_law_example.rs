//! `examples/custom-law` is a crate outside the workspace that defines its own law with the macro, depends
//! only on `dg`, and runs a simulation; this test builds and runs it as a user would.

use std::path::Path;
use std::process::Command;

#[test]
fn a_crate_outside_the_workspace_defines_and_runs_its_own_law() {
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
