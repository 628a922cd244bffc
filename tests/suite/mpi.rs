//! Runs split over MPI ranks (`mpirun -n P dg run …`) equal the one-process run to round-off. Needs dg built with
//! its `mpi` feature and Open MPI's `mpirun` (scripts/test.sh turns the feature on where Open MPI is installed);
//! otherwise the tests say they are skipped, unless `DG_REQUIRE_MPI=1` (CI).

use std::path::Path;
use std::process::{Command, Output};

/// Whether MPI runs can be tested here; panics when they are required and cannot.
fn mpi_available() -> bool {
    let required = std::env::var("DG_REQUIRE_MPI").as_deref() == Ok("1");
    if !cfg!(feature = "mpi") {
        assert!(!required, "DG_REQUIRE_MPI=1 but dg was built without its `mpi` feature");
        eprintln!("skipping: dg built without MPI");
        return false;
    }
    let found = Command::new("mpirun").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(found || !required, "DG_REQUIRE_MPI=1 but mpirun does not run");
    if !found {
        eprintln!("skipping: no mpirun");
    }
    found
}

/// `dg args` on `ranks` MPI ranks (any user, shared memory only, more ranks than cores allowed), or in a plain
/// process when `ranks` is `None`.
fn dg(ranks: Option<usize>, args: &[&str], dir: &Path) -> Output {
    let dg = env!("CARGO_BIN_EXE_dg");
    let mut command = match ranks {
        None => Command::new(dg),
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.args(["--oversubscribe", "--mca", "btl", "self,vader", "--mca", "btl_vader_single_copy_mechanism"]);
            c.args(["none", "-n", &n.to_string(), dg]);
            c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            c
        }
    };
    command.args(args).env("DG_CACHE_DIR", dir).current_dir(dir).env("RAYON_NUM_THREADS", "1");
    command.output().expect("the command starts")
}

fn report(ranks: Option<usize>, args: &[&str], dir: &Path) -> serde_json::Value {
    let out = dg(ranks, args, dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{ranks:?} {args:?}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{ranks:?} {args:?}: not one JSON report ({e}): {stdout}"))
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

/// The cavity (PEC walls) on the structured mesh and the pulse on the unstructured Gmsh mesh with a hole, and two
/// hexahedral cases (a distorted cavity, a periodic density wave): on 1, 2 and 4 ranks, the L2 error and the final
/// energy (where reported) equal the one-process run's to 1e-12 (each own element is
/// stepped with the same operations as in one process; the sums over ranks differ in order only), the steps are
/// the same, every element is owned once, and `--out` writes a `.pvtu` with one `.vtu` piece per rank.
#[test]
fn runs_over_one_two_and_four_ranks_equal_the_one_process_run() {
    if !mpi_available() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mesh = root.join("examples/meshes/square_hole.msh");
    let mesh = mesh.to_str().expect("a UTF-8 path");
    let cases: [Vec<&str>; 9] = [
        vec!["run", "maxwell-cavity", "--order", "3", "--nx", "7", "--ny", "5", "--t-end", "0.3"],
        vec!["run", "maxwell-pulse", "--mesh", mesh, "--order", "2", "--t-end", "0.1"],
        // hexahedra: PEC walls on a distorted box, and a periodic box (faces across ranks through the periodicity)
        vec!["run", "maxwell3d-cavity", "--order", "2", "--nx", "3", "--perturb", "0.2", "--t-end", "0.2"],
        vec!["run", "euler3d-density-wave", "--order", "2", "--nx", "3", "--t-end", "0.05"],
        // tetrahedra: acoustic and elastic waves in a box
        vec!["run", "acoustic-cube", "--order", "2", "--nx", "2", "--t-end", "0.1"],
        vec!["run", "elastic-cube", "--order", "2", "--nx", "3", "--t-end", "0.05"],
        // modal triangles, seed 001's adaptive step: a periodic vortex with the limiter on (it reads the
        // neighbours' means: without the halo refreshed before it, the density error differs at 5e-3), the double
        // Mach reflection (inflow, outflow, wall and prescribed post-shock states), the supersonic vortex (curved
        // walls)
        vec!["run", "euler-isentropic-vortex", "--order", "1", "--nx", "8", "--t-end", "0.5", "--limiter"],
        vec!["run", "euler-double-mach", "--nx", "12", "--t-end", "0.05"],
        vec!["run", "euler-supersonic-vortex", "--nx", "5", "--t-end", "0.05"],
    ];
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let args = [&case[..], &["--device", "cpu", "--json"]].concat();
        let one = report(None, &args, dir.path());
        assert!(one.get("ranks").is_none(), "a plain process is not split: {one}");
        for n in [1, 2, 4] {
            let out = format!("split{n}.vtu");
            let split = report(Some(n), &[&args[..], &["--out", &out]].concat(), dir.path());
            assert_eq!(one["steps"], split["steps"], "{n} ranks: {split}");
            assert_eq!(one["elements"], split["elements"], "{n} ranks: {split}");
            let fields = ["l2_error", "energy_final", "density_l2_error", "min_density", "min_pressure"];
            for field in fields {
                if one[field].is_null() {
                    // absent from this kind of report, or no exact solution (the pulse, the double Mach reflection):
                    // the same in both reports
                    assert!(split[field].is_null(), "{n} ranks: {split}");
                    continue;
                }
                let (a, b) = (one[field].as_f64().unwrap_or(0.0), split[field].as_f64().unwrap_or(f64::NAN));
                assert!(relative(a, b) <= 1e-12, "{case:?} on {n} ranks: {field} {b:e} vs {a:e} in one process");
            }
            // Euler: the adaptive steps' range and the mass at both ends
            for field in ["dt_range", "mass"].iter().filter(|f| one.get(**f).is_some()) {
                for end in 0..2 {
                    let (a, b) =
                        (one[field][end].as_f64().unwrap_or(0.0), split[field][end].as_f64().unwrap_or(f64::NAN));
                    assert!(relative(a, b) <= 1e-12, "{case:?} on {n} ranks: {field}[{end}] {b:e} vs {a:e}");
                }
            }
            if n == 1 {
                // one rank runs as a plain process: one .vtu, no report of ranks
                assert!(split.get("ranks").is_none() && dir.path().join(&out).exists(), "{split}");
                continue;
            }
            let ranks = split["ranks"].as_array().expect("a report of each rank");
            assert_eq!(ranks.len(), n);
            let owned: u64 = ranks.iter().map(|r| r["elements"].as_u64().unwrap_or(0)).sum();
            assert_eq!(Some(owned), one["elements"].as_u64(), "every element owned once: {split}");
            assert!(ranks.iter().all(|r| r["halo_elements"].as_u64() > Some(0) && r["exchanges"].as_u64() > Some(0)));
            let pvtu = std::fs::read_to_string(dir.path().join(format!("split{n}.pvtu"))).expect("a .pvtu");
            for r in 0..n {
                let piece = format!("split{n}-{r}.vtu");
                assert!(pvtu.contains(&piece) && dir.path().join(&piece).exists(), "{piece}: {pvtu}");
            }
        }
    }
}

/// Whether an OpenCL device (PoCL in CI) runs here; required when `DG_REQUIRE_OPENCL=1`.
fn opencl_available(dir: &Path) -> bool {
    let out = dg(None, &["devices"], dir);
    let found = String::from_utf8_lossy(&out.stdout).contains("opencl:");
    assert!(
        found || std::env::var("DG_REQUIRE_OPENCL").as_deref() != Ok("1"),
        "DG_REQUIRE_OPENCL=1 but no OpenCL device"
    );
    if !found {
        eprintln!("skipping: no OpenCL device");
    }
    found
}

/// On a device (OpenCL here, PoCL in CI), 2, 3 and 4 ranks in every schedule and with nodal-triangle variants of
/// every layout, surface and partition family, and hexahedral ones of both surfaces, layouts and kernel kinds,
/// equal the one-process run of the same variant to 1e-12: the traces carried by the
/// exchange are the ones the kernels read, the interior computed while they travel (a non-empty range) and the
/// rest after (or, eager, on the transfer lane behind the unpacking) give every own element its right-hand side
/// once. The report names the schedule, its tuning trials, and each rank's wait. (OpenCL runs one queue in order:
/// the eager schedule's overlap itself runs on CUDA only.)
#[test]
fn device_runs_over_two_and_four_ranks_equal_the_one_process_run_in_every_schedule() {
    let dir = tempfile::tempdir().unwrap();
    if !mpi_available() || !opencl_available(dir.path()) {
        return;
    }
    let case = ["run", "maxwell-cavity", "--order", "3", "--nx", "26", "--ny", "21", "--t-end", "0.05", "--json"];
    let variants = [
        "node/mb4/seq1/field-local/fused/elem-major/f64",
        "elem/wg32/seq1/matrix-local/split/node-major/f64/diff-first",
        "tile4/wg32/seq1/field-local/merged/node-major/f64",
    ];
    // hexahedra: box and trilinear cells (the specialised kernels' zones), whole halo cells exchanged
    let hexes = ["run", "maxwell3d-cavity", "--order", "2", "--nx", "5", "--perturb", "0.2", "--t-end", "0.1"];
    let hexes = [&hexes[..], &["--dt", "0.01", "--json"]].concat();
    for (case, n, variant, schedule) in [
        (&case[..], 2, variants[0], "async"),
        (&case[..], 4, variants[0], "sync"),
        (&case[..], 4, variants[1], "async"),
        (&case[..], 2, variants[2], "eager"),
        (&case[..], 4, variants[2], "tuned"),
        (&case[..], 2, variants[2], "sync"),
        (&case[..], 4, variants[2], "async"),
        (&hexes[..], 2, "hex/split/spec/c4/vki/f64", "eager"),
        (&hexes[..], 4, "hex/fused/gen/c8/kvi/f64", "sync"),
        (&hexes[..], 3, "hex/fused/spec/c2/kvi/f64", "tuned"),
    ] {
        let args = [case, &["--device", "opencl", "--variant", variant]].concat();
        let one = report(None, &args, dir.path());
        let split = report(Some(n), &[&args[..], &["--schedule", schedule]].concat(), dir.path());
        assert_eq!(one["steps"], split["steps"], "{n} ranks: {split}");
        let (a, b) = (one["l2_error"].as_f64().unwrap_or(0.0), split["l2_error"].as_f64().unwrap_or(f64::NAN));
        assert!(relative(a, b) <= 1e-12, "{variant} {schedule} on {n} ranks: L2 error {b:e} vs {a:e} in one process");
        if one.get("energy_final").is_some() {
            let (a, b) =
                (one["energy_final"].as_f64().unwrap_or(0.0), split["energy_final"].as_f64().unwrap_or(f64::NAN));
            assert!(relative(a, b) <= 1e-12, "{variant} {schedule} on {n} ranks: energy {b:e} vs {a:e}");
        }
        let device = &split["device"];
        assert_eq!(device["choice"]["variant"], variant, "{split}");
        // the tile kernels fold each low-storage stage into their store, over ranks too
        assert_eq!(device["schedule"]["stages_folded"], variant.starts_with("tile"), "{split}");
        let chosen = device["schedule"]["chosen"].as_str().unwrap_or_default();
        if schedule == "tuned" {
            assert_eq!(device["schedule"]["trials"].as_array().map(Vec::len), Some(3), "{split}");
            assert!(["sync", "async", "eager"].contains(&chosen), "{split}");
        } else {
            assert_eq!(chosen, schedule, "{split}");
        }
        if chosen == "async" || chosen == "eager" {
            let overlapped = device["schedule"]["overlapped_elements"][0].as_u64().unwrap_or(0);
            assert!(overlapped > 0, "the interior runs while the traces travel: {split}");
        }
        let ranks = split["ranks"].as_array().expect("a report of each rank");
        assert_eq!(ranks.len(), n);
        for r in ranks {
            assert!(r["exchanges"].as_u64() > Some(0) && r["wait_seconds"].as_f64().is_some(), "{r}");
        }
    }
    // a step far above the stability limit blows up: every rank stops with the reason and a failure code
    let unstable = ["--dt", "0.05", "--t-end", "1", "--allow-unstable", "--device", "opencl", "--variant", variants[0]];
    let out = dg(Some(2), &[&case[..6], &unstable[..]].concat(), dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("the run stopped at step"), "{stderr}");
}

/// Hexahedral boxes split into blocks by default (`--partition auto`; every cut a plane) and by METIS when asked,
/// both equal to the one-process run; structured triangles and tetrahedra into blocks too; a mesh read from a file
/// is split by METIS, and blocks are refused for it and in one process, with a clear message.
#[test]
fn hexahedral_boxes_split_into_blocks_or_by_metis_and_both_equal_the_one_process_run() {
    if !mpi_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let case = ["run", "maxwell3d-cavity", "--order", "2", "--nx", "6", "--perturb", "0.1", "--t-end", "0.1"];
    let args = [&case[..], &["--device", "cpu", "--json"]].concat();
    let one = report(None, &args, dir.path());
    let l2 = |r: &serde_json::Value| r["l2_error"].as_f64().unwrap_or(f64::NAN);
    let busiest_halo = |r: &serde_json::Value| {
        r["ranks"]
            .as_array()
            .map_or(0, |ranks| ranks.iter().filter_map(|r| r["halo_elements"].as_u64()).max().unwrap_or(0))
    };
    let mut halos = Vec::new();
    for (how, kind) in [(None, "blocks"), (Some("blocks"), "blocks"), (Some("metis"), "metis")] {
        let given: Vec<&str> = how.map(|h| vec!["--partition", h]).unwrap_or_default();
        let split = report(Some(4), &[&args[..], &given[..]].concat(), dir.path());
        assert_eq!(split["partition"]["kind"], kind, "{how:?}: {split}");
        assert!(relative(l2(&one), l2(&split)) <= 1e-12, "{how:?}: {} vs {}", l2(&split), l2(&one));
        assert_eq!(one["steps"], split["steps"], "{how:?}");
        if kind == "blocks" {
            // 6×6×6 cells on 4 ranks: 2×2 blocks of 3×3×6 cells, each with 2·18 halo cells across two planes
            let grid = &split["partition"]["grid"];
            assert_eq!(grid.as_array().map(|g| g.iter().filter(|p| p.as_u64() == Some(2)).count()), Some(2), "{split}");
            assert!(
                split["ranks"]
                    .as_array()
                    .is_some_and(|r| r.iter().all(|r| r["elements"] == 54 && r["halo_elements"] == 36)),
                "{split}"
            );
        }
        halos.push(busiest_halo(&split));
    }
    assert!(halos[0] <= halos[2], "blocks' busiest halo {} above METIS's {}", halos[0], halos[2]);
    // a mesh read from a file: METIS under auto, blocks refused
    use dg::cases::hex::{HexCase, Maxwell3dCavity};
    let mesh = Maxwell3dCavity.mesh(4, 0.0).expect("a box");
    std::fs::write(dir.path().join("cube.msh"), mesh.to_gmsh_22()).expect("written");
    let file = ["run", "maxwell3d-cavity", "--mesh", "cube.msh", "--order", "1", "--t-end", "0.05", "--device", "cpu"];
    let split = report(Some(2), &[&file[..], &["--json"]].concat(), dir.path());
    assert_eq!(split["partition"]["kind"], "metis", "{split}");
    // triangles and tetrahedra of the cases' structured rectangles and boxes are cut into blocks too (two triangles
    // per square, six tetrahedra per cube), a Gmsh triangle mesh by METIS
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hole_mesh = root.join("examples/meshes/square_hole.msh");
    let hole =
        ["run", "maxwell-pulse", "--mesh", hole_mesh.to_str().expect("UTF-8"), "--order", "1", "--t-end", "0.02"];
    for (args, grid) in [
        (vec!["run", "maxwell-cavity", "--order", "2", "--nx", "8", "--ny", "6", "--t-end", "0.05"], Some([2, 2, 1])),
        (vec!["run", "acoustic-cube", "--order", "1", "--nx", "4", "--t-end", "0.05"], Some([2, 2, 1])),
        (hole.to_vec(), None),
    ] {
        let split = report(Some(4), &[&args[..], &["--device", "cpu", "--json"]].concat(), dir.path());
        match grid {
            Some(grid) => {
                assert_eq!(split["partition"]["kind"], "blocks", "{args:?}: {split}");
                assert_eq!(split["partition"]["grid"], serde_json::json!(grid), "{args:?}: {split}");
            }
            None => assert_eq!(split["partition"]["kind"], "metis", "{args:?}: {split}"),
        }
    }
    for (ranks, args, expected) in [
        (Some(2), [&file[..], &["--partition", "blocks"]].concat(), "not a case's structured rectangle or box"),
        (
            Some(3),
            [&case[..2], &["--nx", "2", "--partition", "blocks", "--device", "cpu"]].concat(),
            "no grid of blocks",
        ),
        (Some(2), [&hole[..], &["--partition", "blocks"]].concat(), "not a case's structured rectangle or box"),
        (None, [&case[..], &["--partition", "blocks"]].concat(), "split over MPI ranks"),
        (None, [&case[..], &["--partition", "grid"]].concat(), "unknown partitioner `grid`"),
    ] {
        let out = dg(ranks, &args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(expected), "{args:?}: {stderr}");
    }
}

/// A case or option that does not split yet, and any other command started on several ranks, end with a clear message and
/// a failure code instead of running several times over; a refusal every rank of a split run meets is printed once
/// (by rank 0), not once per rank.
#[test]
fn what_does_not_split_over_ranks_is_refused() {
    if !mpi_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let once = |ranks: usize, args: &[&str], expected: &str| {
        let out = dg(Some(ranks), args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.matches(expected).count() == 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("refused on every rank"), "{args:?}: {stderr}");
    };
    // finite volumes split into bands of at least two rows: Brio–Wu's tube has one
    once(3, &["run", "mhd-brio-wu", "--nx", "8"], "3 ranks need 6 rows");
    once(3, &["run", "mhd-orszag-tang", "--nx", "16", "--cfl", "1.5", "--device", "cpu"], "lies in (0, 1]");
    once(2, &["run", "maxwell-cavity", "--png", "m.png", "--device", "cpu"], "--png applies to Euler cases");
    once(
        2,
        &["run", "euler-isentropic-vortex", "--formulation", "nodal-tri", "--nx", "4"],
        "takes the modal formulation",
    );
    let out = dg(Some(2), &["run", "acoustic-two-layer", "--order", "1", "--nx", "4"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("run it in one process"), "{stderr}");
    let out = dg(Some(2), &["cases"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("only `dg run` splits over MPI ranks"), "{stderr}");
}

/// A tetrahedral or hexahedral run split over ranks on the native CPU path stops at a blow-up of a linear law
/// (the largest |value| over the ranks beyond its bound), as the one-process run does, with the reason and a
/// failure code: two steps far above the stability limit stay finite, and these runs had ended with a report.
#[test]
fn split_cpu_runs_of_linear_laws_stop_at_a_blow_up() {
    if !mpi_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for case in [["acoustic-cube", "--nx", "2"], ["maxwell3d-cavity", "--nx", "3"]] {
        let args = [&["run"][..], &case, &["--cfl", "5", "--allow-unstable", "--device", "cpu"]].concat();
        let out = dg(Some(2), &args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains("the largest |value| grew from"), "{case:?}: {stderr}");
    }
}

/// Finite volumes in bands of rows (seed 003's strips): Orszag–Tang on 2 and 3 ranks (bands of 11 and 10, and of
/// 7 rows) on the native CPU path and on a device (OpenCL here, PoCL in CI; an f32 and an f64 variant, tiled and
/// naive transposes) equal the one-process run bit for bit: the same steps and step sizes, the final density range,
/// mass change and every sample of max |∇·B|, and the final cell means written by rank 0 (`--out`, read back from
/// the VTU's raw data). A ghost row filled wrongly, or not at all, moves the values near every band's edge; a band
/// whose cell height is computed from its own extent (a rounding off the whole grid's, at 21 rows) moves the step
/// limit, and every value, in the last bits.
#[test]
fn finite_volume_runs_over_two_and_three_ranks_equal_the_one_process_run() {
    let dir = tempfile::tempdir().unwrap();
    if !mpi_available() {
        return;
    }
    let d = dir.path();
    let case = ["run", "mhd-orszag-tang", "--nx", "21", "--t-end", "0.2", "--json"];
    let mut devices: Vec<Vec<&str>> = vec![vec!["--device", "cpu"]];
    if opencl_available(d) {
        devices.push(vec!["--device", "opencl", "--variant", "fv/tiled/twice/w64/f32"]);
        devices.push(vec!["--device", "opencl", "--variant", "fv/naive/once/w128/f64"]);
    }
    for device in &devices {
        let one = report(None, &[&case[..], device, &["--out", "one.vtu"]].concat(), d);
        let whole = cell_means(&d.join("one.vtu"));
        for ranks in [2, 3] {
            let split = report(Some(ranks), &[&case[..], device, &["--out", "split.vtu"]].concat(), d);
            let what = format!("{device:?} on {ranks} ranks");
            assert_eq!(split["steps"], one["steps"], "{what}");
            assert_eq!(split["ranks"]["bands"].as_array().map(Vec::len), Some(ranks), "{what}: {split}");
            for key in ["dt_range", "density_range", "mass_change", "divergence"] {
                let (a, b) = (numbers(&one[key]), numbers(&split[key]));
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert!(!a.is_empty() && bits(&a) == bits(&b), "{what}: {key} {a:?} against {b:?}");
            }
            assert!(numbers(&one["divergence"]).len() > 10, "{what}: {one}");
            let parts = cell_means(&d.join("split.vtu"));
            assert_eq!(parts.len(), whole.len(), "{what}");
            let worst = largest_difference(&whole, &parts);
            assert!(worst == 0.0, "{what}: the cell means differ by {worst}");
        }
    }
}

/// A finite-volume run's files over ranks: the `--out-every` series and the checkpoints of a run on 2 ranks equal
/// the one-process run's (every file of the series to 1e-12), and either run's checkpoint continues the other way —
/// the 2 ranks' in one process, the one process's on 3 ranks — to the uninterrupted run's final state.
#[test]
fn finite_volume_series_and_checkpoints_over_ranks_equal_and_continue_the_one_process_run() {
    let dir = tempfile::tempdir().unwrap();
    if !mpi_available() {
        return;
    }
    let d = dir.path();
    let case = ["run", "mhd-orszag-tang", "--nx", "32", "--t-end", "0.1", "--json", "--device", "cpu"];
    let files = ["--out-every", "0.03", "--checkpoint-every", "5"];
    let one = report(None, &[&case[..], &files, &["--out", "one.vtu", "--checkpoint", "one.restart"]].concat(), d);
    let two = report(Some(2), &[&case[..], &files, &["--out", "two.vtu", "--checkpoint", "two.restart"]].concat(), d);
    assert_eq!(one["steps"], two["steps"]);
    assert!(one["steps"].as_u64().is_some_and(|s| s > 5 && s % 5 != 0), "{one}");
    let close = |a: &str, b: &str| {
        let (x, y) = (cell_means(&d.join(a)), cell_means(&d.join(b)));
        let worst = largest_difference(&x, &y);
        assert!(x.len() == y.len() && !x.is_empty() && worst <= 1e-12, "{a} against {b}: {worst}");
    };
    // t = 0, 0.03, 0.06, 0.09 and the end
    for i in 0..5 {
        close(&format!("one_{i:04}.vtu"), &format!("two_{i:04}.vtu"));
    }
    assert!(!d.join("two_0005.vtu").exists());
    close("one.vtu", "two.vtu");
    report(None, &["run", "--restart", "two.restart", "--out", "from-two.vtu", "--json"], d);
    close("one.vtu", "from-two.vtu");
    let continued = report(Some(3), &["run", "--restart", "one.restart", "--out", "from-one.vtu", "--json"], d);
    assert_eq!(continued["steps"], one["steps"]);
    assert_eq!(continued["divergence"], one["divergence"], "the samples carried across");
    close("one.vtu", "from-one.vtu");
}

/// The largest |a − b| over the values of two arrays (NaN where any difference is).
fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, |m: f64, v| if v > m || v.is_nan() { v } else { m })
}

/// Every number in a JSON value, in order.
fn numbers(v: &serde_json::Value) -> Vec<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64().into_iter().collect(),
        serde_json::Value::Array(items) => items.iter().flat_map(numbers).collect(),
        _ => Vec::new(),
    }
}

/// Every cell value of a finite-volume VTU file dg wrote (its raw appended blocks after the point and cell
/// arrays' headers: the last nine blocks are the variables).
fn cell_means(path: &Path) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let marker = b"<AppendedData encoding=\"raw\">\n_";
    let data = bytes.windows(marker.len()).position(|w| w == marker).expect("appended data") + marker.len();
    let header = String::from_utf8_lossy(&bytes[..data]);
    let cells = header.split("<CellData>").nth(1).expect("cell data").split("</CellData>").next().unwrap_or_default();
    let mut values = Vec::new();
    for tag in cells.split("offset=\"").skip(1) {
        let offset: usize = tag.split('"').next().unwrap_or_default().parse().expect("an offset");
        let start = data + offset;
        let len = u64::from_le_bytes(bytes[start..start + 8].try_into().unwrap()) as usize;
        values.extend(bytes[start + 8..start + 8 + len].chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())));
    }
    values
}
