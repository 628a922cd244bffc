//! The elliptic case of seed 004 through the command line: `dg convergence` rates, `dg run`'s report, and what it
//! refuses; the device path (PoCL in CI) against the native CPU path.

use std::process::{Command, Output};

fn dg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dg")).args(args).output().expect("dg starts")
}

/// `dg convergence helmholtz-square --orders 1..6 --levels 3`: every order's L2 and L∞ rates over the last halving
/// within 0.3 of P + 1, the errors finite and falling.
#[test]
fn helmholtz_square_converges_at_p_plus_one() {
    let out = dg(&["convergence", "helmholtz-square", "--orders", "1..6", "--levels", "3", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let runs = doc["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 18);
    for order in 1..=6 {
        let last = runs.iter().rfind(|r| r["report"]["order"].as_u64() == Some(order)).expect("a run of this order");
        for rate in ["l2_rate", "max_rate"] {
            let r = last[rate].as_f64().unwrap_or(f64::NAN);
            assert!((r - (order + 1) as f64).abs() <= 0.3, "P = {order}: {rate} {r}");
        }
    }
}

/// `dg run helmholtz-square --json` at P = 2 on 20 × 20: the report's sizes follow from the mesh (800 triangles,
/// 1,240 edges, 3(P + 1) traces of the 80 boundary edges fixed), rows of at most 5(P + 1) non-zeros, errors small
/// and the stage times present; a device, a time step or an output file is refused with a failure code.
#[test]
fn helmholtz_square_reports_its_system_and_refuses_what_does_not_apply() {
    let out = dg(&["run", "helmholtz-square", "--order", "2", "--nx", "20", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["elements"], 800);
    assert_eq!(r["edges"], 3 * 20 * 20 + 2 * 20);
    assert_eq!(r["trace_unknowns"].as_u64(), Some((1240 - 80) * 3));
    assert!(r["row_width"].as_u64().is_some_and(|w| w <= 15), "{r}");
    let l2 = r["l2_error"].as_f64().unwrap_or(f64::NAN);
    assert!(l2 > 0.0 && l2 < 1e-3, "{r}");
    for stage in ["local", "assembly", "solve", "recovery"] {
        assert!(r["seconds"][stage].as_f64().is_some_and(|s| s >= 0.0), "{r}");
    }
    let refused: [&[&str]; 5] = [
        &["--dt", "0.1"],
        &["--out", "u.vtu", "--out-every", "0.1"],
        &["--precision", "f32"],
        &["--schedule", "async"],
        &["--device", "cpu", "--variant", "jacobi"],
    ];
    for bad in refused {
        let out = dg(&[&["run", "helmholtz-square", "--nx", "4"][..], bad].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let named = stderr.contains("helmholtz-square") || stderr.contains("elliptic") || stderr.contains("--device");
        assert!(!out.status.success() && named, "{bad:?}: {stderr}");
    }
}

/// `dg run helmholtz-square --device opencl` at P = 4 on 14 × 14 squares, with each preconditioner and local width
/// given through `--variant`: the sizes and the errors of the native CPU path (to 1e-8 relative: the CG stops at a
/// relative residual of 1e-12), rows of exactly 5(P + 1) entries at most, the CG's iterations and residual and the
/// kernels' seconds in the report; a variant that names nothing known is refused, and so is cuBLAS's element solve.
#[test]
fn helmholtz_square_on_an_opencl_device_matches_the_cpu_path() {
    let _serial = crate::heavy();
    if !crate::kernels_opencl::opencl_available() {
        return;
    }
    let base = ["run", "helmholtz-square", "--order", "4", "--nx", "14", "--json"];
    let cpu = dg(&[&base[..], &["--device", "cpu"]].concat());
    assert!(cpu.status.success(), "{}", String::from_utf8_lossy(&cpu.stderr));
    let cpu: serde_json::Value = serde_json::from_slice(&cpu.stdout).expect("JSON");
    for variant in ["block-jacobi/w64", "jacobi/w256"] {
        let out = dg(&[&base[..], &["--device", "opencl", "--variant", variant]].concat());
        assert!(out.status.success(), "{variant}: {}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        for size in ["elements", "edges", "trace_unknowns", "nonzeros"] {
            assert_eq!(r[size], cpu[size], "{variant}: {size}");
        }
        assert_eq!(r["row_width"], 25, "{variant}");
        for error in ["l2_error", "max_error"] {
            let (a, b) = (r[error].as_f64().unwrap_or(f64::NAN), cpu[error].as_f64().unwrap_or(f64::NAN));
            assert!((a - b).abs() <= 1e-8 * b, "{variant}: {error} {a} vs {b}");
        }
        let d = &r["device_run"];
        assert!(d["iterations"].as_u64().is_some_and(|i| i > 10), "{r}");
        assert!(d["relative_residual"].as_f64().is_some_and(|x| x <= 1e-10), "{r}");
        assert!(d["refinement_iterations"].as_u64().is_some_and(|i| i > 0), "{r}");
        assert!(d["refinement_relative_residual"].as_f64().is_some_and(|x| x <= 1e-3), "{r}");
        assert_eq!(d["preconditioner"], variant.split('/').next().unwrap_or(""));
        for stage in ["local", "assembly", "solve", "recovery"] {
            assert!(d["kernel_seconds"][stage].as_f64().is_some_and(|s| s > 0.0), "{r}");
        }
    }
    let out = dg(&["run", "helmholtz-square", "--nx", "4", "--device", "opencl", "--variant", "gauss-seidel"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("gauss-seidel"), "{stderr}");
    // cuBLAS's element solve is CUDA's: OpenCL says so and stops
    let out = dg(&["run", "helmholtz-square", "--nx", "4", "--device", "opencl", "--variant", "cublas-lu"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("cublas-lu") && stderr.contains("CUDA"), "{stderr}");
}

/// The local generation's choice through the tuning database: a first `dg run --device opencl` without `--variant`
/// times and checks every candidate and stores the winner in the user database (`DG_CACHE_DIR`); a second run of
/// the same key takes that winner alone (`database`), with the same errors; `--variant` bypasses both (`given`);
/// `--no-tune` before any result runs the baseline alone (`default`) and stores nothing.
#[test]
fn helmholtz_square_keeps_its_local_winner_in_the_tuning_database() {
    let _serial = crate::heavy();
    if !crate::kernels_opencl::opencl_available() {
        return;
    }
    let cache = tempfile::tempdir().expect("a temporary directory");
    let run = |extra: &[&str]| -> serde_json::Value {
        let args = [&["run", "helmholtz-square", "--order", "3", "--nx", "10", "--device", "opencl", "--json"], extra]
            .concat();
        let out = Command::new(env!("CARGO_BIN_EXE_dg"))
            .args(&args)
            .env("DG_CACHE_DIR", cache.path())
            .output()
            .expect("dg starts");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    // --no-tune without a stored result: the baseline alone, nothing stored
    let baseline = run(&["--no-tune"]);
    assert_eq!(baseline["device_run"]["local_choice"]["source"], "default");
    assert_eq!(baseline["device_run"]["local_trials"].as_array().map_or(0, Vec::len), 1);
    assert!(!cache.path().join("tuning").exists(), "--no-tune stored a result");
    let first = run(&[]);
    let d = &first["device_run"];
    assert_eq!(d["local_choice"]["source"], "tuned", "{d}");
    let trials = d["local_trials"].as_array().map_or(0, Vec::len);
    assert!(trials >= 2, "{d}");
    let stored = std::fs::read_dir(cache.path().join("tuning"))
        .expect("the user database exists")
        .filter_map(Result::ok)
        .filter(|f| f.path().extension().is_some_and(|x| x == "json"))
        .map(|f| std::fs::read_to_string(f.path()).unwrap_or_default())
        .collect::<String>();
    let winner = d["local_choice"]["variant"].as_str().unwrap_or("?").to_string();
    assert!(
        stored.contains("|hdg|tri|N3|f64|local|") && stored.contains(&format!("\"winner\": \"{winner}\"")),
        "{stored}"
    );
    let second = run(&[]);
    let d2 = &second["device_run"];
    assert_eq!(d2["local_choice"]["source"], "database", "{d2}");
    assert_eq!(d2["local_choice"]["variant"], winner.as_str());
    assert_eq!(d2["local_trials"].as_array().map_or(0, Vec::len), 1, "{d2}");
    assert_eq!(second["l2_error"], first["l2_error"]);
    let given = run(&["--variant", "block-jacobi/w128"]);
    assert_eq!(given["device_run"]["local_choice"]["source"], "given");
}
