//! `dg run`: one simulation with a progress bar, error, energy and throughput.

use super::mesh_args::{BackendArgs, MeshArgs, SolverArgs};
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use dg_cases::MaxwellCase;
use dg_core::space::DgSpace2d;
use dg_parallel::comm::Communicator;
use dg_run::formulations::FormulationId;
use dg_run::maxwell_run::{run, RunOutcome};
use dg_run::partitioned::{run_partitioned, ExchangePick, SchedulePick};
use dg_run::winners::DeviceRunInfo;
use dg_runtime::backend::Device;
use dg_runtime::startup::mark;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `dg run`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  dg run maxwell-cavity                                  (order 4 on an 8 × 8 mesh, one period)
  dg run maxwell-cavity --order 6 --nx 16 --out cavity.vtu
  dg run maxwell-pulse --mesh examples/meshes/square_hole.msh --order 3 --t-end 0.5 --out pulse.vtu
  dg run maxwell-cavity --precision f32 --json
  dg run maxwell-cavity --device cuda:0 --order 6 --nx 64     (generated kernels, tuned on first use)
  dg run maxwell-cavity --device cpu                          (the native CPU path)
  dg run euler-isentropic-vortex --order 3 --nx 20
  dg run euler-double-mach --nx 24 --png double-mach.png       (p = 1, limiter, RK2, t = 0.2)
  dg run euler-supersonic-vortex --order 2 --refine 1 --flux hllc_flux --json
  dg run euler-isentropic-vortex --formulation nodal-tri --order 3   (seed 000's nodal scheme, for comparison)
  dg run acoustic-cube --order 4 --nx 4 --out cube.vtu         (tetrahedra, seed 002)
  dg run acoustic-two-layer --order 4 --nx 16                  (measured R and T next to the analytic ones)
  dg run maxwell3d-cavity --order 3 --nx 4 --perturb 0.2       (hexahedra, seed 003, native CPU path)
  dg run mhd-brio-wu --png brio-wu.png                         (finite volumes, MUSCL–Hancock: ρ and By along x)
  dg run mhd-orszag-tang --nx 128 --out ot.vtu --out-every 0.1   (every variable's cell means, a series)
  dg run helmholtz-square --order 4 --nx 16 --out u.vtu        (seed 004, hybridizable DG: the solution u)
  dg run maxwell-cavity --out cavity.vtu --out-every 0.25      (cavity.pvd: a time series for ParaView)
  dg run maxwell-cavity --nx 16 --checkpoint-every 50 --checkpoint cavity.restart
  dg run --restart cavity.restart                              (continues the run, bit for bit)")]
pub struct RunArgs {
    /// Case to run (see `dg cases`); with --restart, the file's.
    #[arg(required_unless_present = "restart")]
    pub case: Option<String>,
    /// Polynomial order N: 1..=10 on triangles and tetrahedra, D = 0..=15 on hexahedra, 1 or 2 for finite
    /// volumes [default: 4 for Maxwell on triangles, 3 for tetrahedra, hexahedra and helmholtz-square, 2 for finite
    /// volumes, the case's for Euler]
    #[arg(long)]
    pub order: Option<usize>,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Final time (default: the case's, one period for the cavity).
    #[arg(long, value_name = "T", value_parser = super::mesh_args::positive_finite, allow_negative_numbers = true)]
    pub t_end: Option<f64>,
    /// Write the final fields to this VTU file (Lagrange cells at the solution's order; finite volumes: each
    /// cell's means as cell data; open it in ParaView).
    #[arg(long, value_name = "FILE.vtu")]
    pub out: Option<PathBuf>,
    /// Also write the fields every T of simulated time (and at the start and the end) as FILE_NNNN.vtu, listed
    /// with their times in FILE.pvd, which ParaView opens as a time series (needs --out FILE.vtu).
    #[arg(
        long,
        value_name = "T",
        value_parser = super::mesh_args::positive_finite,
        allow_negative_numbers = true,
        requires = "out"
    )]
    pub out_every: Option<f64>,
    /// Write a restart file every N steps (to --checkpoint, default CASE.restart); `dg run --restart FILE`
    /// continues the run, bit for bit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub checkpoint_every: Option<u64>,
    /// The restart file --checkpoint-every writes (replaced each time).
    #[arg(long, value_name = "FILE", requires = "checkpoint_every")]
    pub checkpoint: Option<PathBuf>,
    /// Continue the run saved in this restart file (a checkpoint, or the last good state a stopped run left):
    /// the case and its options come from the file; --device, --variant, --no-tune, --json, --out, --out-every,
    /// --png, --png-width, --checkpoint-every and --checkpoint may be given.
    #[arg(long, value_name = "FILE", conflicts_with = "case")]
    pub restart: Option<PathBuf>,
    /// The command line that started the run (stored in restart files).
    #[arg(skip)]
    pub command: Vec<String>,
    /// The options given on the command line (ids), to check what --restart may be combined with.
    #[arg(skip)]
    pub given: Vec<String>,
    /// The state the run continues from (--restart).
    #[arg(skip)]
    pub resume: Option<std::sync::Arc<dg_runtime::restart::LoopState>>,
    /// Arithmetic precision [default: the --variant SPEC's (`…/f32`, `…/f64`), else f64].
    #[arg(long, value_enum)]
    pub precision: Option<Precision>,
    /// Euler cases: draw the final density into this PNG file.
    #[arg(long, value_name = "FILE.png")]
    pub png: Option<PathBuf>,
    /// Width of the PNG in pixels.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(16..=8192))]
    pub png_width: u32,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Under `mpirun` on devices: `sync` (exchange the halo, then the whole right-hand side), `async` (the
    /// interior's right-hand side while the halo travels, the rest after it), `eager` (as async, the rest launched
    /// beside the interior's last work groups as soon as the halo is unpacked) or `tuned` (all timed at the start,
    /// the fastest runs) [default: tuned]. Given in one process (with or without --exchange): the split path on one
    /// rank, the baseline of a scaling study.
    #[arg(long, value_name = "sync|async|eager|tuned")]
    pub schedule: Option<SchedulePick>,
    /// Under `mpirun` on devices: how the halo travels, `host-staged` (device → host, MPI, host → device), `nccl`
    /// (device to device; needs libnccl.so on the library path) or `tuned` (both timed where NCCL loads)
    /// [default: tuned].
    #[arg(long, value_name = "host-staged|nccl|tuned")]
    pub exchange: Option<ExchangePick>,
    /// Under `mpirun`: how the mesh is split over the ranks, `blocks` (a grid of equal blocks of the case's
    /// structured rectangle or box, every cut a line or a plane, with one step where the ranks do not divide the
    /// cells), `metis` (METIS k-way on the element graph) or `auto` (blocks where the mesh is a case's structured one
    /// and a grid fits the ranks, METIS otherwise: a mesh read from a file, refined, or an annulus) [default: auto].
    #[arg(long, value_name = "auto|metis|blocks")]
    pub partition: Option<dg_parallel::partition::Partitioner>,
    #[command(flatten)]
    pub backend: BackendArgs,
}

/// Floating-point precision of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Precision {
    /// Single precision.
    F32,
    /// Double precision.
    F64,
}

/// The precision a kernel SPEC names (a part `f32` or `f64`), if any.
pub fn spec_precision(spec: &str) -> Option<Precision> {
    dg_commands::bench::precision_of_spec(spec).map(|p| match p {
        dg_codegen::Precision::F32 => Precision::F32,
        dg_codegen::Precision::F64 => Precision::F64,
    })
}

impl From<Precision> for dg_run::Precision {
    fn from(p: Precision) -> Self {
        match p {
            Precision::F32 => dg_run::Precision::F32,
            Precision::F64 => dg_run::Precision::F64,
        }
    }
}

/// A progress bar over simulated time.
pub fn time_bar(message: String) -> ProgressBar {
    let bar = ProgressBar::new(1000);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] t = {prefix}, {eta} left")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}

/// Moves a [`time_bar`] to time `t` of `t_end`. Where stderr is no terminal (a log file, a batch job) the bar
/// draws nothing, so one line is printed at each tenth of the simulated time instead; a bar hidden on purpose
/// ([`ProgressBar::hidden`]: other MPI ranks, `--json` on ranks) stays silent.
pub fn advance(bar: &ProgressBar, t: f64, t_end: f64) {
    let (before, now) = (bar.position(), (1000.0 * t / t_end) as u64);
    bar.set_prefix(format!("{t:.4}"));
    bar.set_position(now);
    if now / 100 > before / 100 && logs_progress(bar) {
        eprintln!(
            "{}: t = {t:.4} of {t_end:.4} ({} %, {:.1} s)",
            bar.message(),
            (now / 10).min(100),
            bar.elapsed().as_secs_f64()
        );
    }
}

/// Whether `bar` reports its progress as lines: a bar with a length (hidden bars have none) whose stderr is no
/// terminal.
pub fn logs_progress(bar: &ProgressBar) -> bool {
    use std::io::IsTerminal;
    bar.length().is_some() && !std::io::stderr().is_terminal()
}

/// Runs a Maxwell case (Euler and wave cases: `euler_cmds::run`, `wave_cmds::run`).
pub fn maxwell(args: RunArgs, case: Box<dyn MaxwellCase>) -> anyhow::Result<()> {
    if args.png.is_some() {
        anyhow::bail!("--png applies to Euler cases (Maxwell: --out writes a VTU file)");
    }
    args.backend.formulation(case.name(), &[FormulationId::NodalTri])?;
    let order = args.order.unwrap_or(4);
    args.backend.warm_up("auto");
    let mesh = args.mesh.build(case.as_ref(), 8)?;
    mark("mesh");
    let space = DgSpace2d::new(mesh, order).context("cannot build the DG space")?;
    mark("space");
    let mut opts = args.solver.options(args.t_end, &args.backend)?;
    opts.common.output = args.output(case.name());
    let bar = time_bar(format!("{} N={} K={}", case.name(), order, space.num_elements()));
    let mut progress = |t: f64, t_end: f64| advance(&bar, t, t_end);
    let mut device = args.backend.open("auto")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let outcome = run(args.precision().into(), &space, case.as_ref(), &opts, device, &mut progress)?;
    bar.finish_and_clear();
    let flux = format!("{} flux α = {}", if opts.alpha == 0.0 { "central" } else { "upwind" }, opts.alpha);
    print_run(&outcome, args.json, &flux, &[])?;
    args.print_outputs(outcome.report.steps);
    Ok(())
}

impl RunArgs {
    /// The run's precision: --precision's, else the one --variant's SPEC names, else f64 (a --precision that
    /// contradicts the SPEC is refused when the variant is chosen).
    pub fn precision(&self) -> Precision {
        self.precision.or(self.backend.variant.as_deref().and_then(spec_precision)).unwrap_or(Precision::F64)
    }

    /// What the run writes and where it starts: VTU and series (--out, --out-every), checkpoints, the last good
    /// state of a run that stops (beside --out, else CASE-last-good in the current directory), the restart state.
    pub fn output(&self, case: &str) -> dg_run::output::RunOutput {
        let checkpoint =
            self.checkpoint.clone().or_else(|| self.checkpoint_every.map(|_| format!("{case}.restart").into()));
        let last_good = match &self.out {
            Some(out) => {
                let stem = out.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| case.into());
                out.with_file_name(format!("{stem}-last-good"))
            }
            None => PathBuf::from(format!("{case}-last-good")),
        };
        dg_run::output::RunOutput {
            vtu: self.out.clone(),
            vtu_every: self.out_every,
            checkpoint_every: self.checkpoint_every,
            checkpoint,
            last_good: Some(last_good),
            command: serde_json::json!({ "args": self.command }),
            resume: self.resume.clone(),
        }
    }

    /// Refuses, before any work, a file the run would write (--out and its series, --checkpoint or the
    /// checkpoints' default CASE.restart, --png) that names a directory, or whose directory does not exist or takes
    /// no new file: a run that could not write its result at the end would have computed for nothing.
    pub fn check_output_paths(&self) -> anyhow::Result<()> {
        let checkpoint = match (&self.checkpoint, self.checkpoint_every, &self.case) {
            (Some(file), _, _) => Some(file.clone()),
            (None, Some(_), Some(case)) => Some(PathBuf::from(format!("{case}.restart"))),
            _ => None,
        };
        let files = [("--out", self.out.clone()), ("--checkpoint", checkpoint), ("--png", self.png.clone())];
        let named: Vec<(&str, &PathBuf)> =
            files.iter().filter_map(|(flag, file)| Some((*flag, file.as_ref()?))).collect();
        for &(flag, file) in &named {
            check_writable(flag, file)?;
        }
        // two outputs in one file: the last written would have replaced the other (a checkpoint by the fields)
        for (i, &(flag, file)) in named.iter().enumerate() {
            // (as absolute paths: `./x` and `x` are one file)
            let same = |f: &PathBuf| std::path::absolute(f).ok() == std::path::absolute(file).ok();
            if let Some(&(other, _)) = named[i + 1..].iter().find(|(_, f)| same(f)) {
                bail!("{flag} and {other} name the same file {}: one would replace the other", file.display());
            }
        }
        // the picture's format is its name's (a run named `.vtu` computed, then failed to draw)
        if let Some(png) = &self.png {
            if !png.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
                bail!("--png {} draws a PNG picture: give a file name ending in .png", png.display());
            }
        }
        Ok(())
    }

    /// The lines naming what the run wrote (text reports); `steps`: the step the run ended at (counted from the
    /// start of the first run, as checkpoints are).
    pub fn print_outputs(&self, steps: u64) {
        if self.json {
            return;
        }
        if let Some(path) = &self.out {
            println!("output      {}", path.display());
            if self.out_every.is_some() {
                println!("series      {}", path.with_extension("pvd").display());
            }
        }
        if let (Some(n), Some(case)) = (self.checkpoint_every, &self.case) {
            let path = self.checkpoint.clone().unwrap_or_else(|| format!("{case}.restart").into());
            println!("checkpoint  {}", checkpoint_line(&path, n, self.resume.as_ref().map(|r| r.position.step), steps));
        }
        if let Some(path) = &self.restart {
            println!("restarted   from {}", path.display());
        }
    }
}

/// What `--checkpoint-every n` left in `path` after a run from step `from` (a restart's, else 0) to `steps`: the
/// step of the last checkpoint, or that none was due (a file already there is an earlier run's).
fn checkpoint_line(path: &std::path::Path, n: u64, from: Option<u64>, steps: u64) -> String {
    // (--checkpoint-every 0 is refused before a run; `max` keeps the division defined regardless)
    let last = steps / n.max(1) * n;
    if last > from.unwrap_or(0) {
        return format!("{} (every {n} steps; the last at step {last})", path.display());
    }
    let earlier =
        if path.exists() { format!("; the {} there is from before this run", path.display()) } else { String::new() };
    let next = (from.unwrap_or(0) / n.max(1) + 1) * n;
    format!(
        "none written: the run ended at step {steps}, before its checkpoint at step {next} (every {n} steps){earlier}"
    )
}

/// Prints the report of a nodal-triangle run (JSON, or a table with `extra` lines after the error).
pub fn print_run(outcome: &RunOutcome, json: bool, flux: &str, extra: &[String]) -> anyhow::Result<()> {
    print_run_on(outcome, json, flux, extra, None)
}

/// [`print_run`], the throughput's line naming where it ran (`on`) when the report has no device of its own.
fn print_run_on(
    outcome: &RunOutcome,
    json: bool,
    flux: &str,
    extra: &[String],
    on: Option<&str>,
) -> anyhow::Result<()> {
    let r = &outcome.report;
    if json {
        let mut doc = serde_json::to_value(r)?;
        doc["device"] = serde_json::to_value(&outcome.device)?;
        doc["startup"] = startup_json();
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    println!("case        {} ({} law, nodal-tri, {flux})", r.case, r.law);
    println!(
        "mesh        {} elements, h = {:.4}, order {}, {} DOF ({})",
        r.elements, r.h, r.order, r.dofs, r.precision
    );
    println!("time        t = {} in {} steps of {:.3e} ({})", r.t_end, r.steps, r.dt, r.scheme);
    if let Some(e) = r.l2_error {
        println!("L2 error    {e:.6e}");
    }
    for line in extra {
        println!("{line}");
    }
    println!(
        "energy      {:.10e} → {:.10e} (relative change {:+.3e})",
        r.energy_initial,
        r.energy_final,
        (r.energy_final - r.energy_initial) / r.energy_initial
    );
    let how = format!("{} RHS evaluations in {:.3} s", r.rhs_evaluations, r.wall_seconds);
    match &outcome.device {
        None if on.is_some() => {
            println!("throughput  {:.3e} DOF·RHS/s ({how}, {})", r.throughput, on.unwrap_or_default())
        }
        None => {
            let threads = dg_runtime::cpu::thread_count();
            println!("throughput  {:.3e} DOF·RHS/s ({how}, native CPU, {threads} threads)", r.throughput)
        }
        Some(info) => {
            println!("throughput  {:.3e} DOF·RHS/s ({how})", r.throughput);
            print_device(info);
        }
    }
    Ok(())
}

/// The start-up timeline (`"startup"` of `--json`): each phase with the seconds since the program started at its
/// end.
pub fn startup_json() -> serde_json::Value {
    dg_runtime::startup::timeline()
        .into_iter()
        .map(|(phase, seconds)| serde_json::json!({ "phase": phase, "seconds": seconds }))
        .collect()
}

/// The device and kernel lines of a device run.
pub fn print_device(info: &DeviceRunInfo) {
    println!(
        "device      {} ({:.3} s in kernels, of which {:.3} s in the per-step state check)",
        info.device, info.kernel_seconds, info.state_check_seconds
    );
    println!(
        "kernels     {} ({}, chosen in {:.3} s); first step done {:.3} s after start",
        info.choice.variant, info.choice.source, info.choice.seconds, info.first_step_seconds
    );
}

/// The device of `--device`: `None` for the native CPU path.
pub(super) fn pick_device(choice: &str) -> anyhow::Result<Option<Box<dyn Device>>> {
    Ok(dg_commands::devices::pick(choice)?)
}

/// Runs a Maxwell case split over the MPI ranks of `comm`, each rank on the native CPU path or its device (with
/// `--device cuda` or `auto`, GPU rank mod GPUs per node); rank 0 prints one report for the whole run, with each
/// rank's elements, halo, compute, exchange and wait times (`"ranks"` in `--json`).
pub fn maxwell_over_ranks(args: RunArgs, case: Box<dyn MaxwellCase>, comm: &dyn Communicator) -> anyhow::Result<()> {
    let ready = || {
        if args.png.is_some() {
            anyhow::bail!("--png applies to Euler cases (Maxwell: --out writes a VTU file)");
        }
        args.backend.formulation(case.name(), &[FormulationId::NodalTri])?;
        let mesh = args.mesh.build(case.as_ref(), 8)?;
        let mut opts = args.solver.options(args.t_end, &args.backend)?;
        opts.common.output = args.output(case.name());
        opts.common.partition = args.partition.unwrap_or_default();
        Ok((mesh, opts))
    };
    let (mesh, opts) = super::ranks::agree(comm, args.json, ready())?;
    let order = args.order.unwrap_or(4);
    let (mut device, pick) = super::ranks::open_rank_device(&args, comm)?;
    let rank = comm.rank();
    let bar = if rank == 0 && !args.json {
        time_bar(format!("{} N={} K={} on {} ranks", case.name(), order, mesh.num_elements(), comm.size()))
    } else {
        ProgressBar::hidden()
    };
    let mut progress = |t: f64, t_end: f64| advance(&bar, t, t_end);
    let on = device.as_deref_mut().map(|d| -> (&mut dyn Device, SchedulePick, ExchangePick) { (d, pick.0, pick.1) });
    let outcome =
        run_partitioned(args.precision().into(), &mesh, order, case.as_ref(), &opts, comm, on, &mut progress)?;
    bar.finish_and_clear();
    let Some(report) = outcome.report else { return Ok(()) };
    if args.json {
        return super::ranks::print_json(&report, &outcome.ranks, outcome.device.as_ref(), outcome.partition.as_ref());
    }
    let flux = format!("{} flux α = {}", if opts.alpha == 0.0 { "central" } else { "upwind" }, opts.alpha);
    let partition = outcome.partition.iter().map(|p| format!("partition  {p}"));
    let mut lines: Vec<String> = partition
        .chain(outcome.ranks.iter().map(|r| {
            let gpu = r.gpu.map(|g| format!(" on cuda:{g}")).unwrap_or_default();
            format!(
                "rank {:<6} {} elements + {} halo, {} neighbours{gpu}: {:.3} s computing, {:.3} s exchanging, \
                 {:.3} s waiting",
                r.rank,
                r.elements,
                r.halo_elements,
                r.neighbours,
                r.compute_seconds,
                r.exchange_seconds,
                r.wait_seconds
            )
        }))
        .collect();
    if let Some(info) = &outcome.device {
        lines.extend(super::ranks::schedule_lines(info));
    }
    let on = match &outcome.device {
        Some(_) => format!("on {} devices", comm.size()),
        None => format!("native CPU on {} ranks", comm.size()),
    };
    print_run_on(&RunOutcome { report, state: Vec::new(), device: None }, false, &flux, &lines, Some(&on))?;
    if let Some(out) = &args.out {
        println!("wrote {} ({} pieces)", out.with_extension("pvtu").display(), comm.size());
    }
    Ok(())
}

/// Refuses the file an option (`flag`) names when it cannot be written ([`writable`]), before any work.
pub(crate) fn check_writable(flag: &str, file: &std::path::Path) -> anyhow::Result<()> {
    writable(file).map_err(|why| anyhow::anyhow!("cannot write {flag} {}: {why} (nothing was run)", file.display()))
}

/// Why `file` cannot be written, if it cannot: it is a directory, its directory does not exist, or a new file
/// cannot be made there (a probe file is created and removed).
fn writable(file: &std::path::Path) -> Result<(), String> {
    if file.is_dir() {
        return Err("it is a directory".into());
    }
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!("the directory {} does not exist", dir.display()));
    }
    let probe = dir.join(format!(".dg-write-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        // another process's probe of the same name (ranks on several hosts): files are made there
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("no new file can be made in {}: {e}", dir.display())),
    }
}
