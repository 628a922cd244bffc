//! The elliptic case of seed 004 through the command line: `dg convergence` rates, `dg run`'s report, and what it
//! refuses.

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
    for bad in [&["--device", "cuda"][..], &["--dt", "0.1"], &["--out", "u.vtu"], &["--precision", "f32"]] {
        let out = dg(&[&["run", "helmholtz-square", "--nx", "4"][..], bad].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let named = stderr.contains("helmholtz-square") || stderr.contains("elliptic");
        assert!(!out.status.success() && named, "{bad:?}: {stderr}");
    }
}
