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

/// The bands of a run split over ranks: whole rows, as equal as they can be, each with two ghost rows where it
/// faces another band or wraps around a periodic y, none on a closed side; too few rows a rank are refused.
#[test]
fn bands_cover_the_rows_once_with_ghost_rows_where_they_face_another() {
    use dg::partitioned_fv::{band_grid, bands, GHOST_ROWS};
    let periodic = bands(11, 4, true).unwrap();
    let rows: Vec<std::ops::Range<usize>> = periodic.iter().map(|b| b.rows.clone()).collect();
    assert_eq!(rows, vec![0..3, 3..6, 6..9, 9..11]);
    assert!(periodic.iter().all(|b| b.below == GHOST_ROWS && b.above == GHOST_ROWS));
    let closed = bands(8, 2, false).unwrap();
    assert_eq!((closed[0].below, closed[0].above, closed[1].below, closed[1].above), (0, 2, 2, 0));
    // a band of one row could not fill its neighbours' two ghost rows
    let refused = bands(5, 3, true).unwrap_err().to_string();
    assert!(refused.contains("3 ranks need 6 rows"), "{refused}");
    assert!(bands(1, 2, true).is_err(), "Brio–Wu's one row does not split");
    // a band's grid: the whole grid's spacing, its first own row where the whole grid's row is
    let grid = dg::dg_fv::FvGrid::periodic(16, 10, [0.0, -1.0], [2.0, 1.0]);
    let band = &bands(10, 3, true).unwrap()[1];
    assert_eq!(band.rows, 4..7);
    let local = band_grid(&grid, band);
    assert_eq!(local.ny, 3 + 2 * GHOST_ROWS);
    // (bit for bit: a spacing a rounding apart changed the step limit, and a split run's steps, in the last bit)
    assert_eq!(grid.spacing().map(f64::to_bits), local.spacing().map(f64::to_bits));
    for (i, j) in [(5, GHOST_ROWS), (0, 0), (15, local.ny - 1)] {
        // (band 1's ghost rows are the whole grid's rows 2, 3 and 7, 8: no periodic wrap)
        let (own, whole) = (local.center(i, j), grid.center(i, j + 4 - GHOST_ROWS));
        assert_eq!(own.map(f64::to_bits), whole.map(f64::to_bits), "{own:?} {whole:?}");
    }
}

/// The split run's loop in one process (one band, its ghost rows copied across the periodic wrap each step)
/// ends where the plain run ends: the same steps, the final state and the divergence samples to round-off.
#[test]
fn one_band_steps_like_the_plain_run() {
    use dg::dg_parallel::comm::Solo;
    use dg::partitioned_fv::run_fv_over_ranks;
    let opts = FvOptions { cells: Some(24), t_end: Some(0.1), ..FvOptions::default() };
    let plain = run_fv(Precision::F64, &OrszagTang, &opts, None, &mut |_, _| {}).unwrap();
    let (split, ranks) =
        run_fv_over_ranks(Precision::F64, &OrszagTang, &opts, &Solo, None, &mut |_, _| {}).unwrap().expect("rank 0");
    assert_eq!(ranks.bands.len(), 1);
    assert_eq!(split.report.steps, plain.report.steps);
    let worst =
        plain
            .q
            .iter()
            .zip(&split.q)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, |m: f64, d| if d > m || d.is_nan() { d } else { m });
    assert!(split.q.len() == plain.q.len() && worst < 1e-12, "the states differ by {worst}");
    assert_eq!(split.report.divergence.len(), plain.report.divergence.len());
    for (a, b) in split.report.divergence.iter().zip(&plain.report.divergence) {
        assert!((a.0 - b.0).abs() < 1e-14 && (a.1 - b.1).abs() <= 1e-9 * b.1.max(1e-9), "{a:?} vs {b:?}");
    }
}

/// A finite-volume run that leaves the admissible set (`--cfl` above the split sweeps' limit of 1, with
/// `--allow-unstable`) stops with the cell named, a failure exit code and its last good state written beside `--out`
/// — the state a checkpoint of the same run at that step holds, bit for bit — and no final output. `run` runs `dg`
/// with `args` (the device's options appended) in `dir`, to `t_end`. Returns the step the run stopped at and the
/// last good one.
pub(crate) fn a_stopped_finite_volume_run_leaves_its_last_good_state(
    run: &dyn Fn(&[&str]) -> std::process::Output,
    dir: &std::path::Path,
    (t_end, cfl): (&str, &str),
) -> (u64, u64) {
    let base = ["run", "mhd-orszag-tang", "--nx", "16", "--t-end", t_end, "--cfl", cfl, "--allow-unstable"];
    let out = run(&[&base[..], &["--out", "ot.vtu"]].concat());
    let message = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success() && message.contains("left the admissible set"), "{message}");
    assert!(message.contains("the last good state (step") && message.contains("ot-last-good.restart"), "{message}");
    let stopped_at: u64 = message
        .split("stopped at step ")
        .nth(1)
        .and_then(|r| r.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    let good = dg::dg_runtime::restart::read(&dir.join("ot-last-good.restart")).expect("a last good state");
    let step = good.state.position.step;
    assert!(step > 0 && step < stopped_at, "last good step {step}, stopped at {stopped_at}");
    assert!(std::fs::metadata(dir.join("ot-last-good.vtu")).expect("its VTU file").len() > 1000);
    assert!(!dir.join("ot.vtu").exists(), "no final output from a run that stopped");
    // the same run checkpointed at that step (it stops again, after writing the checkpoint)
    let every = step.to_string();
    let out = run(&[&base[..], &["--checkpoint-every", &every, "--checkpoint", "c.restart"]].concat());
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let checkpoint = dg::dg_runtime::restart::read(&dir.join("c.restart")).expect("a checkpoint");
    assert_eq!(checkpoint.state.position.step, step);
    assert_eq!(checkpoint.state.position.t.to_bits(), good.state.position.t.to_bits());
    assert_eq!(checkpoint.state.snapshot.stepper, good.state.snapshot.stepper, "the run's counters");
    let (kept, expected) = (&good.state.snapshot.arrays, &checkpoint.state.snapshot.arrays);
    assert_eq!(kept.len(), expected.len());
    for ((name, a), (_, b)) in kept.iter().zip(expected) {
        assert_eq!(a.len(), b.len(), "{name}");
        assert!(a.iter().all(|v| v.is_finite()), "{name}");
        assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "{name} differs from the checkpoint");
    }
    (stopped_at, step)
}

#[test]
fn a_stopped_finite_volume_cpu_run_leaves_its_last_good_state() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let args = [args, &["--device", "cpu"]].concat();
        Command::new(env!("CARGO_BIN_EXE_dg")).current_dir(dir.path()).args(args).output().unwrap()
    };
    a_stopped_finite_volume_run_leaves_its_last_good_state(&run, dir.path(), ("0.5", "1.5"));
}
