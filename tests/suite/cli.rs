//! The `dg` command line as a user meets it.

use std::path::Path;
use std::process::{Command, Output};

fn dg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dg")).args(args).output().expect("dg starts")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn convergence_of_the_cavity_reaches_order_n_plus_one_for_n_1_to_6() {
    let _heavy = crate::heavy();
    let out = dg(&["convergence", "maxwell-cavity", "--orders", "1..6", "--levels", "4", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    // stderr is a pipe here, so the study says which run it starts, one line each
    let err = stderr(&out);
    let runs: Vec<&str> = err.lines().filter(|l| l.starts_with("convergence: run ")).collect();
    assert_eq!(runs.len(), 24, "{err}");
    assert!(runs[23].starts_with("convergence: run 24 of 24 (N=6, level 4 of 4)"), "{err}");
    assert_eq!(doc["case"], "maxwell-cavity");
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    for (i, r) in results.iter().enumerate() {
        let order = r["order"].as_u64().unwrap() as f64;
        assert_eq!(order as usize, i + 1);
        let h: Vec<f64> = serde_json::from_value(r["h"].clone()).unwrap();
        let l2: Vec<f64> = serde_json::from_value(r["l2"].clone()).unwrap();
        let rates: Vec<f64> = serde_json::from_value(r["rates"].clone()).unwrap();
        assert_eq!((h.len(), l2.len(), rates.len()), (4, 4, 3));
        // recompute the finest rate from the reported errors, then check it
        let finest = (l2[2] / l2[3]).ln() / (h[2] / h[3]).ln();
        assert!((finest - rates[2]).abs() < 1e-9);
        assert!((finest - (order + 1.0)).abs() < 0.3, "N={order}: finest rate {finest}, errors {l2:?}");
    }
}

#[test]
fn run_writes_a_vtu_file_and_reports_error_and_throughput() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cavity.vtu");
    let out = dg(&["run", "maxwell-cavity", "--order", "3", "--nx", "4", "--out", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("L2 error") && text.contains("DOF·RHS/s"), "{text}");
    // stderr is a pipe here, so the progress comes as one line per tenth of the simulated time
    let tenths: Vec<String> = stderr(&out).lines().filter(|l| l.contains(" %, ")).map(str::to_owned).collect();
    assert!((1..=10).contains(&tenths.len()), "{tenths:?}");
    assert!(tenths.last().is_some_and(|l| l.contains("(100 %")), "{tenths:?}");
    let vtu = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
    assert!(vtu.contains("<VTKFile") && vtu.contains(r#"Name="ez""#) && vtu.contains("<AppendedData"));
}

#[test]
fn a_file_the_run_could_not_write_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("cavity.vtu");
    let folder = dir.path().to_str().unwrap().to_string();
    let cases: [(&[&str], &str); 3] = [
        (&["--out", missing.to_str().unwrap()], "does not exist"),
        (&["--png", &folder], "is a directory"),
        (&["--checkpoint-every", "5", "--checkpoint", missing.to_str().unwrap()], "does not exist"),
    ];
    for (extra, why) in cases {
        // a run of minutes if it started
        let mut args = vec!["run", "maxwell-cavity", "--order", "8", "--nx", "64", "--device", "cpu"];
        args.extend_from_slice(extra);
        let out = dg(&args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{extra:?}: {err}");
        assert!(err.contains(why) && err.contains("nothing was run"), "{extra:?}: {err}");
        assert!(stdout(&out).is_empty(), "{extra:?}: a report was printed: {}", stdout(&out));
    }
    assert!(!missing.parent().unwrap().exists());
}

/// `dg --db DIR db export NAME` prints a device file; `db clear` removes the database's files and nothing else a user keeps there (it removed the whole
/// directory: `--db tuning-db` would have taken the shipped files' README with it).
#[test]
fn db_export_and_clear_touch_the_device_files_and_keep_everything_else() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuning-db").join("cuda-nvidia-h200-sm-90.json");
    let out = dg(&["--db", db, "db", "import", shipped.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let device_file = dir.path().join("cuda-nvidia-h200-sm-90.json");
    assert!(device_file.is_file());
    // export prints a device file by its name, and names the files there when given another
    let out = dg(&["--db", db, "db", "export", "cuda-nvidia-h200-sm-90.json"]);
    let exported: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let original: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&shipped).unwrap()).unwrap();
    assert_eq!(exported["entries"], original["entries"]);
    let out = dg(&["--db", db, "db", "export", "h200.json"]);
    assert!(
        !out.status.success() && stderr(&out).contains("device files: cuda-nvidia-h200-sm-90.json"),
        "{}",
        stderr(&out)
    );
    let out = dg(&["--db", db, "db", "export", "/tmp/x.json"]);
    assert!(!out.status.success() && stderr(&out).contains("is a path"), "{}", stderr(&out));
    std::fs::write(dir.path().join("README.md"), "notes").unwrap();
    std::fs::write(dir.path().join("results.json"), r#"{"mine": 1}"#).unwrap();
    std::fs::write(dir.path().join("broken.json"), "{ not json").unwrap();
    std::fs::create_dir(dir.path().join("runs")).unwrap();
    // a device file cut short (as a crash mid-write of another program would leave it): every run warns about it
    let text = std::fs::read_to_string(&shipped).unwrap();
    let truncated = dir.path().join("cuda-nvidia-h100-80gb-hbm3-sm-90.json");
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let out = dg(&["--db", db, "db", "list"]);
    assert!(stderr(&out).contains("is not valid") || stdout(&out).contains("is not valid"), "{}", stderr(&out));
    let out = dg(&["--db", db, "db", "clear"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 device file(s) removed (1 of them damaged"), "{}", stdout(&out));
    assert!(!device_file.exists() && !dir.path().join("cuda-nvidia-h200-sm-90.lock").exists());
    assert!(!truncated.exists(), "the damaged device file was kept");
    for kept in ["README.md", "results.json", "broken.json", "runs"] {
        assert!(dir.path().join(kept).exists(), "{kept} was removed");
    }
    // a directory left empty goes
    let empty = tempfile::tempdir().unwrap();
    let own = empty.path().join("tuning");
    let out = dg(&["--db", own.to_str().unwrap(), "db", "import", shipped.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = dg(&["--db", own.to_str().unwrap(), "db", "clear"]);
    assert!(out.status.success() && !own.exists(), "{}", stderr(&out));
}

#[test]
fn run_json_reports_a_small_error_for_the_cavity() {
    let out = dg(&["run", "maxwell-cavity", "--order", "5", "--nx", "4", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let err = doc["l2_error"].as_f64().unwrap();
    assert!(err < 1e-5, "L2 error {err}");
    assert_eq!(doc["elements"], 32);
    assert_eq!(doc["dofs"], 32 * 21 * 3);
}

#[test]
fn run_accepts_a_gmsh_mesh() {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/meshes/square_hole_v22.msh");
    let out = dg(&["run", "maxwell-pulse", "--mesh", mesh.to_str().unwrap(), "--order", "2", "--t-end", "0.2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("energy"));
}

#[test]
fn bad_input_gives_a_clear_error_and_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bad_mesh = dir.path().join("bad.msh");
    std::fs::write(&bad_mesh, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 x 0\n$EndNodes\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "no-such-case"], "unknown case `no-such-case`"),
        (vec!["run", "maxwell-cavity", "--order", "11"], "polynomial order 11 is not supported"),
        (vec!["run", "maxwell-cavity", "--mesh", bad_mesh.to_str().unwrap()], "bad.msh:6"),
        (vec!["run", "maxwell-cavity", "--mesh", "/no/such/file.msh"], "/no/such/file.msh"),
        (vec!["run", "maxwell-cavity", "--cfl=0"], "must be a positive finite number, got 0"),
        (vec!["run", "maxwell-cavity", "--scheme", "euler"], "unknown scheme `euler`"),
        (vec!["convergence", "maxwell-cavity", "--orders", "3..1"], "orders must lie in 1..10"),
        (vec!["convergence", "maxwell-pulse"], "`maxwell-pulse` has no exact solution to converge to"),
        (vec!["convergence", "euler-double-mach"], "`euler-double-mach` has no exact solution to converge to"),
        (vec!["run", "maxwell-cavity", "--nx", "0"], "--nx and --ny must be between"),
        // a negative number is a value, refused by its check (clap took `-1` for an option)
        (vec!["run", "maxwell-cavity", "--t-end", "-1"], "must be a positive finite number, got -1"),
        (vec!["run", "maxwell-cavity", "--alpha", "-1"], "--alpha must be between 0 (central) and 1 (upwind), got -1"),
        // Duration::from_secs_f64 panicked on these
        (vec!["autotune", "maxwell2d", "--orders", "1", "--budget=nan"], "must be a positive finite number, got NaN"),
        (vec!["autotune", "maxwell2d", "--orders", "1", "--budget", "-5"], "must be a positive finite number, got -5"),
        (
            vec!["autotune", "maxwell2d", "--orders", "1", "--budget", "1e300"],
            "at most 86400 seconds (a day), got 1e300",
        ),
        // the timing mesh's allocation aborted the process
        (
            vec!["autotune", "maxwell2d", "--orders", "1", "--min-dofs", "99999999999999"],
            "99999999999999 is not in 1..=1073741824",
        ),
        (vec!["bench", "maxwell2d", "--orders", "1", "--repeats", "0"], "0 is not in 1..=10000"),
        // a named variant carries its precision
        (
            vec![
                "bench",
                "maxwell2d",
                "--orders",
                "1",
                "--precision",
                "f32",
                "--variant",
                "elem/wg32/seq1/matrix-const/merged/node-major/f64",
            ],
            "cannot be used with",
        ),
    ];
    for (args, needle) in cases {
        let out = dg(&args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(err.contains(needle), "{args:?}: stderr `{err}` should contain `{needle}`");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    }
}

/// A mesh far beyond this machine's memory ends with the figures before it is built, not with an allocation
/// failure (`--nx 20000` aborted with "memory allocation of 6400640016 bytes failed" building the rectangle).
#[test]
fn a_mesh_beyond_the_machines_memory_is_refused_before_it_is_built() {
    if std::fs::read_to_string("/proc/meminfo").is_err() {
        return; // the available memory is unknown there, and the runs are not refused
    }
    let cases: [(&[&str], &str); 5] = [
        (&["run", "maxwell-cavity", "--nx", "100000"], "--nx 100000 makes 20000000000 triangles, which need at least"),
        (
            &["run", "euler-isentropic-vortex", "--nx", "20000", "--refine", "2"],
            "--nx 20000 --refine 2 makes 12800000000 triangles",
        ),
        (&["run", "helmholtz-square", "--nx", "100000"], "--nx 100000 makes 20000000000 triangles"),
        (&["run", "acoustic-cube", "--nx", "512", "--refine", "1"], "--nx 512 --refine 1 makes 5368709120 tetrahedra"),
        (
            &["convergence", "maxwell-cavity", "--nx", "200", "--levels", "8"],
            "--levels 8 (the finest mesh) makes 1310720000",
        ),
    ];
    for (args, needle) in cases {
        let out = dg(&[args, &["--device", "cpu"]].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(needle) && err.contains("GB available"),
            "{args:?}: stderr `{err}` should contain `{needle}`"
        );
    }
}

/// Each command of `refused` fails with its message, and no device was opened (`cuda:7` would have been refused
/// first otherwise).
fn refused_before_a_device_opens(refused: &[(&[&str], &str)]) {
    for &(args, needle) in refused {
        let out = dg(args);
        let err = stderr(&out);
        assert!(!out.status.success() && err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("cannot open device") && !err.contains("device:"), "{args:?}: {err}");
    }
}

/// The kernel commands refuse an order the formulation does not discretise with its range, before a device is
/// opened (`dg variants` listed 72 valid modal variants at order 0, `dg emit` printed finite-volume kernels for
/// order 3, `dg autotune --formulation fv` measured the device's ceilings first) and a law of a dimension it does not
/// discretise with its reason (`dg autotune maxwell3d --formulation modal-tri` measured the ceilings first too), and
/// take the orders it does (the hexahedra's D = 0 and 12, which a fixed 1..10 refused).
#[test]
fn kernel_commands_take_each_formulations_own_orders() {
    let refused: [(&[&str], &str); 11] = [
        (
            &["variants", "euler2d", "--formulation", "modal-tri", "--order", "0"],
            "modal-tri formulation takes orders 1..=10 (got 0)",
        ),
        (&["variants", "maxwell2d", "--order", "11"], "nodal-tri formulation takes orders 1..=10 (got 11)"),
        (
            &["emit", "mhd2d", "--formulation", "fv", "--order", "3", "--variant", "fv/across/once/w128/f32"],
            "fv formulation takes orders 1..=2 (got 3)",
        ),
        (
            &["autotune", "mhd2d", "--formulation", "fv", "--orders", "3", "--device", "cuda:7"],
            "fv formulation takes orders 1..=2 (got 3)",
        ),
        (
            &["verify", "acoustics3d", "--order", "9..11", "--device", "cuda:7"],
            "nodal-tet formulation takes orders 1..=10 (got 11)",
        ),
        (&["verify", "maxwell2d", "--order", "1..1000"], "A ≤ B ≤ 64"),
        // a law of a dimension the formulation does not discretise (its tuner is not even compiled for that law:
        // dg-run's `FormulationId::tuner`), with the formulation's reason
        (
            &["verify", "euler2d", "--formulation", "nodal-tet", "--device", "cuda:7"],
            "the nodal-tet formulation cannot run law `euler2d`: it needs a 3D law (this one is 2D)",
        ),
        (
            &["autotune", "maxwell3d", "--formulation", "modal-tri", "--device", "cuda:7"],
            "the modal-tri formulation cannot run law `maxwell3d`: it needs a 2D law (this one is 3D)",
        ),
        (
            &["bench", "mhd2d", "--formulation", "hex", "--device", "cuda:7"],
            "the hex formulation cannot run law `mhd2d`: it needs a 3D law (this one is 2D)",
        ),
        (
            &[
                "bench",
                "acoustics3d",
                "--formulation",
                "fv",
                "--per-kernel",
                "--precision",
                "f64",
                "--device",
                "cuda:7",
            ],
            "the fv formulation cannot run law `acoustics3d`: it needs a 2D law (this one is 3D)",
        ),
        (
            &["verify", "maxwell3d", "--formulation", "nodal-tri", "--device", "cuda:7"],
            "the nodal-tri formulation cannot run law `maxwell3d`: it needs a 2D law (this one is 3D)",
        ),
    ];
    refused_before_a_device_opens(&refused);
    // without --orders, a formulation's own (finite volumes: 1..2, which the fixed default 1..8 was not): the
    // command goes on to open the device
    // (dg verify's fixed default 1..8 refused finite volumes: "takes orders 1..=2 (got 3)")
    for command in ["autotune", "verify"] {
        let out = dg(&[command, "mhd2d", "--formulation", "fv", "--device", "cuda:7"]);
        assert!(stderr(&out).contains("cannot open device cuda:7"), "{command}: {}", stderr(&out));
    }
    for order in ["0", "12"] {
        let out = dg(&["variants", "maxwell3d", "--formulation", "hex", "--order", order, "--precision", "f64"]);
        assert!(out.status.success(), "D = {order}: {}", stderr(&out));
        // (at D = 12 every kernel needs more work items than the listing's minimal device has: rejected, listed)
        assert!(stdout(&out).contains(&format!("maxwell3d hex N={order} F64: ")), "D = {order}: {}", stdout(&out));
    }
}

/// Options that contradict each other or name the wrong kind of thing are refused with the reason, before a device
/// is opened: a `dg verify` precision other than its SPEC's (it verified the SPEC's and said nothing), a `--db` that
/// is a file (the run failed at its first stored result with "File exists"), a run's SPEC of another formulation,
/// two outputs in one file, a `--png` picture not named `.png`, a nodal Euler run's `--limiter` (run without one),
/// `--alpha` or `--no-cleaning` given to a case of another family (ignored).
#[test]
fn contradicting_options_are_refused_before_a_device_opens() {
    let refused: [(&[&str], &str); 14] = [
        (
            &[
                "verify",
                "euler2d",
                "--variant",
                "modal/wg64/edge/const/tiled/f64",
                "--precision",
                "f32",
                "--device",
                "cuda:7",
            ],
            "--precision f32 contradicts --variant modal/wg64/edge/const/tiled/f64",
        ),
        // --db names a directory (made when the first result is stored); a file is refused before anything runs
        (&["--db", "Cargo.toml", "run", "maxwell-cavity", "--device", "cuda:7"], "--db Cargo.toml is a file"),
        // a run's SPEC of another formulation (it failed at parsing, with the run formulation's grammar)
        (
            &["run", "maxwell-cavity", "--variant", "modal/wg64/edge/const/mode-major/f64", "--device", "cuda:7"],
            "is a modal-tri variant, but case `maxwell-cavity` runs nodal-tri here",
        ),
        (
            &["run", "maxwell3d-cavity", "--variant", "tet/gemm/u1/f64", "--device", "cuda:7"],
            "is a nodal-tet variant, but case `maxwell3d-cavity` runs hex here",
        ),
        // two outputs in one file (the fields replaced the checkpoint), a picture not named .png (drawn after the run)
        (
            &["run", "maxwell-cavity", "--out", "x.vtu", "--checkpoint-every", "5", "--checkpoint", "./x.vtu"],
            "--out and --checkpoint name the same file x.vtu",
        ),
        (&["run", "euler-double-mach", "--png", "d.vtu", "--device", "cuda:7"], "give a file name ending in .png"),
        // the limiter is the modal formulation's: a nodal run ran without it
        (
            &["run", "euler-isentropic-vortex", "--formulation", "nodal-tri", "--limiter", "--device", "cuda:7"],
            "--limiter is the modal formulation's",
        ),
        // one family's options given to another (ignored, and not said)
        (&["run", "acoustic-cube", "--alpha", "0.5", "--device", "cuda:7"], "--alpha applies to the Maxwell cases"),
        (&["convergence", "maxwell-cavity", "--no-cleaning", "--device", "cuda:7"], "--no-cleaning applies to the MHD"),
        // a study runs in f64 and has no --precision (the message asked for one)
        (
            &["convergence", "euler-isentropic-vortex", "--variant", "modal/wg64/edge/const/mode-major/f32"],
            "a convergence study runs in f64: give a --variant ending in /f64",
        ),
        // bugs no kernel of the law or formulation can carry (every variant was verified, then "applied to no kernel")
        (
            &["verify", "maxwell2d", "--plant-bug", "source-dropped", "--device", "cuda:7"],
            "needs a law with a source term; `maxwell2d` has none",
        ),
        (
            &[
                "verify",
                "euler2d",
                "--formulation",
                "modal-tri",
                "--plant-bug",
                "stage-register-dropped",
                "--device",
                "cuda:7",
            ],
            "applies to the nodal triangles' folded stages",
        ),
        // the elliptic case's order, size and variant (it opened the device first)
        (
            &["run", "helmholtz-square", "--order", "0", "--device", "cuda:7"],
            "takes --order 1..=10 and --nx at least 1",
        ),
        (
            &["run", "helmholtz-square", "--variant", "bogus", "--device", "cuda:7"],
            "unknown part `bogus` of the HDG variant",
        ),
    ];
    refused_before_a_device_opens(&refused);
}

/// A mesh file of another domain than the one a case's exact solution holds on is refused (a run printed an error
/// against the solution of another problem as if it measured the scheme): the square with a hole for the cavity's
/// unit square (run and convergence), the unit cube for the two-layer box, any file for a periodic case; the case's
/// own domain from a file still runs.
#[test]
fn a_mesh_file_of_another_domain_than_the_exact_solutions_is_refused() {
    let meshes = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/meshes");
    let (hole, cube) = (meshes.join("square_hole.msh"), meshes.join("unit_cube_5tets.msh"));
    let (hole, cube) = (hole.to_str().unwrap(), cube.to_str().unwrap());
    let refused: [(&[&str], &str); 4] = [
        (&["run", "maxwell-cavity", "--mesh", hole], "covers [0, 1] × [0, 1] (area 0.879172)"),
        (&["convergence", "maxwell-cavity", "--orders", "1..2", "--levels", "2", "--mesh", hole], "(area 0.879172)"),
        (&["run", "acoustic-two-layer", "--mesh", cube], "holds on [0, 2] × [0, 1] × [0, 1] (volume 2.000000)"),
        (&["run", "elastic-cube", "--mesh", cube, "--bc", "wall=rigid"], "is periodic in x, y, z"),
    ];
    for (args, needle) in refused {
        let out = dg(&[args, &["--device", "cpu"]].concat());
        let err = stderr(&out);
        assert!(!out.status.success() && err.contains(needle), "{args:?}: {err}");
    }
    let out = dg(&["run", "acoustic-cube", "--mesh", cube, "--order", "1", "--t-end", "0.05", "--device", "cpu"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn help_shows_examples() {
    for args in [vec!["--help"], vec!["run", "--help"], vec!["convergence", "--help"]] {
        let out = dg(&args);
        assert!(out.status.success());
        assert!(stdout(&out).contains("Examples:"), "{args:?}");
    }
    let out = dg(&["cases"]);
    assert!(stdout(&out).contains("maxwell-cavity") && stdout(&out).contains("maxwell-pulse"));
}

/// Every example `dg run --help` prints runs as printed (in the order printed, so that `--restart` finds the
/// checkpoint an example before it wrote) and writes the files it names; the examples on `--device cuda:0` run
/// only where CUDA is (CI has none: they are skipped, and say so).
#[test]
fn every_run_example_of_the_help_runs_as_printed() {
    let help = stdout(&dg(&["run", "--help"]));
    let examples: Vec<Vec<&str>> = help
        .split_once("Examples:")
        .expect("an Examples section")
        .1
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("dg "))
        // a comment follows the command after two spaces and "("
        .map(|l| l.split("  (").next().unwrap_or(l).split_whitespace().collect())
        .collect();
    assert!(examples.len() >= 15, "{help}");
    let dir = tempfile::tempdir().unwrap();
    let examples_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    std::os::unix::fs::symlink(examples_dir, dir.path().join("examples")).unwrap();
    let cuda = dg(&["devices", "--json"]);
    let has_cuda = stdout(&cuda).contains(r#""backend": "cuda""#);
    for args in &examples {
        if args.contains(&"cuda:0") && !has_cuda {
            eprintln!("skipped (no CUDA device): dg {}", args.join(" "));
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_dg"))
            .args(args)
            .current_dir(dir.path())
            .env("DG_CACHE_DIR", dir.path().join("cache"))
            .output()
            .expect("dg starts");
        assert!(out.status.success(), "dg {}: {}", args.join(" "), stderr(&out));
        for flag in ["--out", "--png", "--checkpoint"] {
            if let Some(i) = args.iter().position(|a| *a == flag) {
                let file = dir.path().join(args[i + 1]);
                assert!(file.is_file(), "dg {}: no {}", args.join(" "), file.display());
            }
        }
    }
}

#[test]
fn laws_lists_every_law_with_its_linearity() {
    let out = dg(&["laws", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let laws = doc.as_array().unwrap();
    let linear = |name: &str| laws.iter().find(|l| l["name"] == name).map(|l| l["linear"].as_bool().unwrap());
    for name in ["advection2d", "advection3d", "maxwell2d", "maxwell3d", "acoustics2d", "acoustics3d", "elastic3d"] {
        assert_eq!(linear(name), Some(true), "{name}");
    }
    for name in ["burgers2d", "euler2d", "euler3d", "shallow_water2d", "mhd2d"] {
        assert_eq!(linear(name), Some(false), "{name}");
    }
    let table = stdout(&dg(&["laws"]));
    assert!(table.contains("elastic3d") && table.contains("rho, lambda, mu"), "{table}");
}

#[test]
fn ir_prints_the_dag_with_flop_counts() {
    let out = dg(&["ir", "euler2d"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in ["law euler2d", "fn flux:", "flops", "fn numerical_flux:hllc_flux", "qm.rho", "nonlinear"] {
        assert!(text.contains(needle), "`{needle}` missing");
    }
    let one = stdout(&dg(&["ir", "maxwell2d", "--function", "flux"]));
    assert!(one.starts_with("fn flux: 6 nodes, 2 flops"), "{one}");
    let bad = dg(&["ir", "navier-stokes"]);
    assert!(!bad.status.success() && stderr(&bad).contains("unknown law `navier-stokes`"));
    let bad = dg(&["ir", "maxwell2d", "--function", "nope"]);
    assert!(!bad.status.success() && stderr(&bad).contains("has no function `nope`"));
}

#[test]
fn wave_cases_run_on_a_gmsh_tetrahedral_mesh_and_refuse_bad_input() {
    let mesh = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/meshes/unit_cube_5tets.msh");
    let out =
        dg(&["run", "acoustic-cube", "--mesh", mesh, "--refine", "2", "--order", "3", "--device", "cpu", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["elements"], 5 * 64);
    // the eigenmode's error on this mesh: below a percent, far from the O(1) of a broken operator
    assert!(doc["relative_l2_error"].as_f64().unwrap() < 1e-2, "{doc}");
    let triangles = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/meshes/square_hole.msh");
    let out = dg(&["run", "acoustic-cube", "--mesh", triangles, "--device", "cpu"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("tetrahedra"), "{}", stderr(&out));
    let out = dg(&["run", "elastic-cube", "--nx", "2", "--device", "cpu"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("at least 3 cells"), "{}", stderr(&out));
    let out = dg(&["run", "acoustic-cube", "--variant", "tet/node/v3/s1/u1/f32", "--device", "cpu"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("tet/node/v<K>"), "{}", stderr(&out));
}

/// `--db DIR` is the user database of every command: `db list` reads it (and a run would take its winners).
#[test]
fn the_db_option_is_read_by_db_list() {
    let dir = std::env::temp_dir().join(format!("dg-db-option-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/dg-runtime/tests/fuzz-corpus/small_db.json");
    std::fs::copy(corpus, dir.join("some-device.json")).unwrap();
    let out = dg(&["db", "list", "--db", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = stdout(&out);
    assert!(listing.contains(&dir.join("some-device.json").display().to_string()), "{listing}");
    assert!(listing.contains("maxwell2d@"), "{listing}");
    let out = dg(&["db", "list"]);
    assert!(!stdout(&out).contains("some-device.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--bc TAG=CONDITION` binds a mesh's boundary tag to one of the law's conditions, for every family of cases;
/// an unknown tag or condition is an error naming what exists.
#[test]
fn boundary_tags_are_bound_with_bc() {
    let out = dg(&["run", "maxwell-cavity", "--device", "cpu", "--order", "2", "--nx", "2", "--bc", "nothere=pec"]);
    assert!(!out.status.success() && stderr(&out).contains("no boundary tag `nothere`"), "{}", stderr(&out));
    let out = dg(&["run", "maxwell-cavity", "--device", "cpu", "--order", "2", "--nx", "2", "--bc", "left=absorbing"]);
    assert!(!out.status.success() && stderr(&out).contains("offers [\"pec\"]"), "{}", stderr(&out));
    let mesh = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/meshes/unit_cube_5tets.msh");
    let run = |extra: &[&str]| -> f64 {
        let args = ["run", "acoustic-cube", "--mesh", mesh, "--order", "2", "--device", "cpu", "--json"];
        let out = dg(&[&args[..], extra].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        doc["l2_error"].as_f64().unwrap()
    };
    // the mesh's `wall` group is a rigid wall by the case's binding; bound to a free surface the pressure
    // eigenmode no longer fits, and the error against it grows (the runner binds what it is given) — so the command
    // line refuses that binding for a case with an exact solution, and takes the case's own condition
    let rigid = run(&[]);
    let mut opts = dg::wave_run::WaveOptions { order: 2, ..Default::default() };
    opts.common.boundary = std::collections::HashMap::from([("wall".to_string(), "free".to_string())]);
    let tets = dg::dg_core::mesh3d::read_gmsh_tet(mesh).unwrap();
    let case = dg::cases::waves::AcousticCube;
    let free = dg::wave_run::run_wave(dg::Precision::F64, &case, tets, &opts, None, &mut |_, _| {});
    let free = free.unwrap().report.l2_error;
    assert!(free > 1.2 * rigid, "rigid {rigid}, free {free}");
    assert_eq!(run(&["--bc", "wall=wall"]), rigid);
    let args = ["run", "acoustic-cube", "--mesh", mesh, "--order", "2", "--device", "cpu", "--bc", "wall=free"];
    let out = dg(&args);
    let needle = "--bc wall=free: acoustic-cube's exact solution assumes `wall` on all its boundaries";
    assert!(!out.status.success() && stderr(&out).contains(needle), "{}", stderr(&out));
    // the same cube without physical groups (what Gmsh writes when none is defined): its faces carry the tag
    // `boundary`, refused with the --bc that binds it, and bound by it to the same result as the tagged file
    let text = std::fs::read_to_string(mesh).unwrap();
    let (head, rest) = text.split_once("$Elements\n").unwrap();
    let head =
        head.split("$PhysicalNames").next().unwrap().to_string() + head.split("$EndPhysicalNames\n").nth(1).unwrap();
    let tets: Vec<&str> = rest
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('$'))
        .filter(|l| l.split_whitespace().nth(1) == Some("4"))
        .collect();
    let bare = std::env::temp_dir().join(format!("dg-no-groups-{}.msh", std::process::id()));
    std::fs::write(&bare, format!("{head}$Elements\n{}\n{}\n$EndElements\n", tets.len(), tets.join("\n"))).unwrap();
    let args = ["run", "acoustic-cube", "--mesh", bare.to_str().unwrap(), "--order", "2", "--device", "cpu", "--json"];
    let out = dg(&args);
    assert!(!out.status.success() && stderr(&out).contains("--bc boundary=wall"), "{}", stderr(&out));
    let out = dg(&[&args[..], &["--bc", "boundary=wall"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!((doc["l2_error"].as_f64().unwrap() - rigid).abs() < 1e-12 * rigid.max(1.0), "{doc}");
    std::fs::remove_file(&bare).unwrap();
}

#[test]
fn variants_marks_what_a_search_leaves_out() {
    // nodal triangles: matrix-const is searched up to N = 4 and left out above (still valid)
    let listing = |order: &str| {
        let out = dg(&["variants", "maxwell2d", "--order", order, "--precision", "f32"]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let (four, six) = (listing("4"), listing("6"));
    assert!(!four.contains("left out of a search"), "{four}");
    let marked: Vec<&str> = six.lines().filter(|l| l.contains("left out of a search:")).collect();
    assert!(marked.len() >= 10 && marked.iter().all(|l| l.contains("/matrix-const/")), "{six}");
    assert!(six.lines().any(|l| l.starts_with("  valid") && l.contains("/matrix-local/") && !l.contains("left out")));
    assert!(six.contains(&format!("({} left out of a search)", marked.len())), "{six}");
}

/// `dg emit` without `--variant` printed seed 001's edge surface for a law whose numerical flux is not
/// conservative (acoustics2d), a variant verification rejects; with a rejected `--variant` it printed it silently.
/// `dg variants` cut each reason at its last ": ", which dropped most of a reason holding one.
#[test]
fn emit_shows_a_variant_the_rules_accept_for_the_law() {
    let edge = "modal/wg64/edge/const/mode-major/f32";
    let out = dg(&["emit", "acoustics2d", "--formulation", "modal-tri", "--order", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (text, note) = (stdout(&out), stderr(&out));
    let first = text.lines().next().unwrap_or_default();
    assert!(first.contains("acoustics2d p=2 modal/") && first.contains("/element"), "{first}");
    assert!(note.contains("is not valid for law `acoustics2d`") && note.contains("not conservative"), "{note}");
    // the law whose flux is conservative keeps the baseline, without a note
    let out = dg(&["emit", "euler2d", "--formulation", "modal-tri", "--order", "2"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(stdout(&out).lines().next().unwrap_or_default().contains("/edge/"), "{}", stdout(&out));
    // a rejected variant asked for by name is refused with the rule's reason and where the valid ones are listed
    let out = dg(&["emit", "acoustics2d", "--order", "2", "--variant", edge]);
    assert!(!out.status.success() && stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(err.contains(&format!("variant `{edge}` is not valid for law `acoustics2d`")), "{err}");
    assert!(err.contains("not conservative") && err.contains("dg variants acoustics2d"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // variants prints the whole reason
    let out = dg(&["variants", "acoustics2d", "--formulation", "modal-tri", "--order", "2", "--precision", "f32"]);
    let listing = stdout(&out);
    let line = listing.lines().find(|l| l.starts_with(&format!("  rejected  {edge}:"))).unwrap_or_default();
    assert!(line.contains(": this surface computes each edge's flux once"), "{line}");
    // a tensor-core variant needs no device to be shown
    let mma = "mma/wg8/seq1/field-local/merged/node-major/f64";
    let out = dg(&["emit", "maxwell2d", "--order", "3", "--variant", mma]);
    assert!(out.status.success() && stdout(&out).contains(mma), "{}", stderr(&out));
}
