//! Checkpoint and restart through the command line: a run continued from a checkpoint ends bit for bit where
//! the uninterrupted run ends (its final VTU file, every value a raw f64, is byte-identical, and so are its error
//! and energy), for fixed steps, multistep AB3 (stored right-hand sides), Euler's adaptive step with the limiter
//! the tetrahedral formulation and finite volumes; damaged files and options that would change the run are refused.

use std::path::Path;
use std::process::{Command, Output};

fn dg(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dg")).current_dir(dir).args(args).output().expect("dg starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn report(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("JSON report")
}

/// Runs `args` with a checkpoint every `every` steps, continues from the last checkpoint, and compares.
fn continues_bit_for_bit(args: &[&str], every: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let whole = report(&dg(
        d,
        &[args, &["--checkpoint-every", every, "--checkpoint", "c.restart", "--out", "whole.vtu", "--json"]].concat(),
    ));
    let steps = whole["steps"].as_u64().unwrap();
    let every: u64 = every.parse().unwrap();
    assert!(steps > every && !steps.is_multiple_of(every), "{args:?}: {steps} steps, a checkpoint every {every}");
    // (with the device named again: an option --restart allows)
    let continued =
        report(&dg(d, &["run", "--restart", "c.restart", "--device", "cpu", "--out", "continued.vtu", "--json"]));
    assert_eq!(continued["steps"], whole["steps"], "{args:?}");
    let keys = ["l2_error", "energy_final", "density_l2_error", "mass", "min_density", "dt_range", "mass_change"];
    for key in keys.iter().chain(&["density_range", "divergence"]) {
        assert_eq!(continued.get(key), whole.get(key), "{args:?}: {key}");
    }
    let (a, b) = (std::fs::read(d.join("whole.vtu")).unwrap(), std::fs::read(d.join("continued.vtu")).unwrap());
    assert!(a == b, "{args:?}: the continued run's final fields differ from the uninterrupted run's");
}

#[test]
fn continued_runs_end_bit_for_bit_where_uninterrupted_ones_end() {
    continues_bit_for_bit(&["run", "maxwell-cavity", "--order", "3", "--nx", "4", "--device", "cpu"], "7");
    continues_bit_for_bit(
        &[
            "run",
            "maxwell-cavity",
            "--order",
            "2",
            "--nx",
            "3",
            "--device",
            "cpu",
            "--scheme",
            "ab3",
            "--precision",
            "f32",
        ],
        "30",
    );
    let vortex = ["run", "euler-isentropic-vortex", "--order", "2", "--nx", "6", "--t-end", "0.5", "--device", "cpu"];
    continues_bit_for_bit(&vortex, "3");
    continues_bit_for_bit(&["run", "euler-double-mach", "--nx", "6", "--t-end", "0.02", "--device", "cpu"], "5");
    continues_bit_for_bit(
        &["run", "acoustic-cube", "--order", "2", "--nx", "2", "--device", "cpu", "--scheme", "ab3"],
        "9",
    );
    // finite volumes: the adaptive step and the report's divergence samples carried across
    continues_bit_for_bit(&["run", "mhd-orszag-tang", "--nx", "24", "--t-end", "0.1", "--device", "cpu"], "7");
    continues_bit_for_bit(&["run", "mhd-brio-wu", "--nx", "60", "--order", "1", "--device", "cpu"], "11");
}

#[test]
fn restart_files_that_do_not_fit_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["run", "maxwell-cavity", "--order", "2", "--nx", "3", "--device", "cpu", "--checkpoint-every", "4"];
    report(&dg(d, &[&args[..], &["--json"]].concat()));
    let file = d.join("maxwell-cavity.restart");
    assert!(file.exists(), "the default checkpoint file is CASE.restart");
    // options that would change what is computed cannot be given with --restart
    let out = dg(d, &["run", "--restart", "maxwell-cavity.restart", "--order", "4", "--cfl", "0.1"]);
    assert!(!out.status.success() && stderr(&out).contains("--cfl, --order"), "{}", stderr(&out));
    let out = dg(d, &["run", "maxwell-cavity", "--restart", "maxwell-cavity.restart"]);
    assert_eq!(out.status.code(), Some(2), "a case and --restart: {}", stderr(&out));
    // each refused option by its name, beside the allowed ones of the same group (`--device`, `--formulation`)
    let out = dg(d, &["run", "--restart", "maxwell-cavity.restart", "--device", "cpu", "--formulation", "nodal-tri"]);
    let err = stderr(&out);
    assert!(!out.status.success() && err.contains("; --formulation cannot be given with it"), "{err}");
    // a damaged, cut or foreign file is refused by name
    let bytes = std::fs::read(&file).unwrap();
    for (name, damaged) in [
        ("flipped.restart", {
            let mut b = bytes.clone();
            let at = b.len() - 100;
            b[at] ^= 4;
            b
        }),
        ("cut.restart", bytes[..bytes.len() / 2].to_vec()),
        ("foreign.restart", b"<?xml version=\"1.0\"?>".to_vec()),
    ] {
        std::fs::write(d.join(name), damaged).unwrap();
        let out = dg(d, &["run", "--restart", name]);
        assert!(!out.status.success() && stderr(&out).contains(name), "{name}: {}", stderr(&out));
    }
    let mut newer = bytes.clone();
    newer[11..15].copy_from_slice(&99u32.to_le_bytes());
    std::fs::write(d.join("newer.restart"), newer).unwrap();
    let out = dg(d, &["run", "--restart", "newer.restart"]);
    assert!(stderr(&out).contains("version 99, newer than"), "{}", stderr(&out));
}

/// The report names the step of the last checkpoint, and says so when a run ends before its first one (it named
/// the file though none was written, and a file left there by an earlier run would have passed for this run's).
#[test]
fn the_report_says_which_checkpoint_the_run_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |every: &str| {
        let args = ["run", "maxwell-cavity", "--order", "2", "--nx", "3", "--t-end", "1", "--device", "cpu"];
        let out = dg(d, &[&args[..], &["--checkpoint-every", every]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let file = d.join("maxwell-cavity.restart");
    // 18 steps
    let text = run("50");
    assert!(text.contains("none written: the run ended at step 18, before its checkpoint at step 50"), "{text}");
    assert!(!file.exists());
    let text = run("5");
    assert!(text.contains("checkpoint  maxwell-cavity.restart (every 5 steps; the last at step 15)"), "{text}");
    let text = run("50");
    assert!(text.contains("the maxwell-cavity.restart there is from before this run"), "{text}");
    // continued from step 15 with a checkpoint every 10: the one at step 20 was not reached either; a variant in the
    // other precision than the saved run's is refused naming both
    let out = dg(d, &["run", "--restart", "maxwell-cavity.restart", "--checkpoint-every", "10"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("before its checkpoint at step 20 (every 10 steps)"), "{text}");
    let f32_spec = "elem/wg128/seq1/matrix-const/merged/node-major/f32";
    let out = dg(d, &["run", "--restart", "maxwell-cavity.restart", "--variant", f32_spec, "--device", "opencl"]);
    assert!(
        stderr(&out).contains("is in f32, but the run saved in maxwell-cavity.restart is in f64"),
        "{}",
        stderr(&out)
    );
}
