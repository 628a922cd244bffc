//! `dg autotune`, `dg bench` and `dg db`: tuning, measuring and managing the tuning database.

use super::kernel_cmds::{check_law, check_orders, formulation_of, formulation_of_spec, open_device, PrecisionArg};
use anyhow::bail;
use clap::{Args, Subcommand};
use dg_codegen::Precision;
use dg_commands::autotune::{autotune_law, AutotuneRun};
use dg_commands::bench::{bench_law, BenchRun};
use dg_run::formulations::FormulationId;
use dg_runtime::backend::DeviceSelector;
use dg_runtime::formulation::TimedOperation;
use dg_runtime::pipeline::{Strategy, TuneOptions, CPU_DEVICE_MIN_DOFS, DEFAULT_MIN_DOFS};
use dg_runtime::tuning_db;
use std::path::PathBuf;
use std::time::Duration;

/// What `dg autotune` tunes and `dg bench` reports: a law, orders, a device and precisions.
#[derive(Debug, Args)]
pub struct TunedSet {
    /// Law (see `dg laws`).
    pub law: String,
    /// Formulation [default: nodal-tri for 2D laws, nodal-tet for 3D laws].
    #[arg(long, value_enum)]
    pub formulation: Option<FormulationId>,
    /// Orders, N or A..B [default: the formulation's orders within 1..8: 1..2 for finite volumes]
    #[arg(long)]
    pub orders: Option<String>,
    /// Device.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSelector,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    pub precision: PrecisionArg,
    /// Numerical flux the kernels evaluate (default: the law's first); each flux has its own winners.
    #[arg(long)]
    pub flux: Option<String>,
    /// What is timed: `unit`, the formulation's own (a right-hand side; an AB3 step on tetrahedra; a fused
    /// Runge–Kutta stage on modal triangles), or `stage`, one low-storage Runge–Kutta stage as a run steps it
    /// (nodal triangles; runs use its winner first). Each has its own winners.
    #[arg(long, value_enum, default_value_t = OperationArg::Unit)]
    pub operation: OperationArg,
}

impl TunedSet {
    /// The orders asked for (`--orders`), or the formulation's own within 1..8; refused, before any device is
    /// opened, where the formulation does not discretise them.
    fn orders_of(&self, formulation: FormulationId) -> anyhow::Result<Vec<usize>> {
        crate::kernel_cmds::orders_or_own(self.orders.as_deref(), formulation)
    }
}

/// `--operation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OperationArg {
    /// The formulation's own timed unit.
    Unit,
    /// One low-storage Runge–Kutta stage, its update folded where the variant can.
    Stage,
}

impl From<OperationArg> for TimedOperation {
    fn from(arg: OperationArg) -> Self {
        match arg {
            OperationArg::Unit => TimedOperation::Unit,
            OperationArg::Stage => TimedOperation::LowStorageStage,
        }
    }
}

/// Arguments of `dg autotune`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg autotune maxwell2d --orders 1..8\n  dg autotune euler2d --orders 2..4 --precision f64 --strategy greedy --budget 60\n  dg autotune euler2d --formulation modal-tri --orders 1..5 --precision both\n  dg autotune acoustics3d --orders 1..8 --min-dofs 2000000   (tetrahedra: nodes)\n  dg autotune maxwell2d --orders 1..8 --precision both --db tuning-db   (write the shipped database)\n  dg autotune maxwell2d --orders 6 --precision f64 --operation stage   (the stage a run steps)\n  dg autotune maxwell2d --orders 7 --precision f64 --every-variant --no-early-stop   (untruncated)"
)]
pub struct AutotuneArgs {
    /// Law, orders, device, precision.
    #[command(flatten)]
    pub what: TunedSet,
    /// exhaustive, random[:N] or greedy (random and greedy also take the winners the database holds for related
    /// keys on this device — other orders, laws and operations — and on other CUDA devices of its architecture;
    /// greedy descends from the fastest of them and the baseline).
    #[arg(long, default_value = "exhaustive")]
    pub strategy: Strategy,
    /// Seconds of timing per order and precision before the remaining candidates are skipped (every strategy times
    /// the key's stored winner first, so a search cut short keeps it unless it beats it).
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget, allow_negative_numbers = true)]
    pub budget: Option<Duration>,
    /// Smallest timing problem (degrees of freedom; nodes for tetrahedra). Default: 16M on a GPU (state and
    /// right-hand side well above its L2 cache; 2M nodes for tetrahedra, seed 002's size), 1M on a CPU device
    /// (whose kernels run ~100× slower; 1M DOFs in f32 is 8 MB of state and right-hand side, past the per-core
    /// caches).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TIMING_DOFS))]
    pub min_dofs: Option<u64>,
    /// Time every candidate in full (by default a candidate whose first runs are more than 1.25× slower than the
    /// best so far is not timed further).
    #[arg(long)]
    pub no_early_stop: bool,
    /// Search every valid variant, also those a search leaves out by measured rules (nodal triangles: the
    /// matrix-const storage above N = 4, whose fully unrolled kernels are the slowest to compile and were 1.4–2.1×
    /// slower than the winner on an H200). With --no-early-stop: an untruncated search.
    #[arg(long)]
    pub every_variant: bool,
    /// Print the entries as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `dg bench`.
#[derive(Debug, Args)]
#[command(
    after_help = "It times the winners stored for this device (the shipped file of a known GPU, else what `dg autotune` \
                  stored: tune the same law, orders, precision and operation first).\n\nExamples:\n  dg bench maxwell2d --orders 1..8\n  dg bench maxwell2d --orders 4 --precision f64 --json\n  dg bench maxwell2d --orders 6..8 --precision f64 --operation stage\n  dg bench maxwell2d --orders 3 --variant elem/wg64/seq1/matrix-const/merged/node-major/f32/mixed   (one variant, not the winner)\n  dg bench euler2d --formulation modal-tri --orders 1..5 --precision both\n  dg bench acoustics3d --orders 1..8\n  dg bench acoustics3d --per-kernel --orders 1..8 --out tet.json   (seed 002's per-kernel tables)"
)]
pub struct BenchArgs {
    /// Law, orders, device, precision.
    #[command(flatten)]
    pub what: TunedSet,
    /// Problem size for timing the winners again (default: the size each was tuned on).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TIMING_DOFS))]
    pub min_dofs: Option<u64>,
    /// Timed repetitions.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub repeats: u16,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Tetrahedra only: seed 002's report instead — every kernel of every strategy timed alone on about
    /// `--nodes` nodes, each strategy's AB3 step and the fastest (laws: comma-separated).
    #[arg(long)]
    pub per_kernel: bool,
    /// With --per-kernel: nodes per mesh (seed 002 used about 2 million).
    #[arg(long, default_value_t = 2_000_000, requires = "per_kernel", value_parser = clap::value_parser!(u64).range(1..=MAX_TIMING_DOFS))]
    pub nodes: u64,
    /// With --per-kernel: write every measurement to this JSON file (for `dg tet-plot`).
    #[arg(long, value_name = "FILE.json", requires = "per_kernel")]
    pub out: Option<PathBuf>,
    /// Time this variant (SPEC, see `dg variants`) instead of the stored winner: verified first like a winner, at
    /// the size a search times (16M DOF on a GPU, 1M on a CPU device) unless --min-dofs says otherwise; its precision is the SPEC's. "stored ms" is its own time in the
    /// stored search where it was timed there. Orders at which the rules reject it are not timed (said on stderr,
    /// with the reason); none timed is an error. A SPEC whose first part names a formulation (`modal/…`, `tet/…`,
    /// `hex/…`, `fv/…`) chooses it when --formulation is not given.
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["per_kernel", "precision"])]
    pub variant: Option<String>,
}

/// Arguments of `dg tet-plot`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  dg tet-plot tet.json --png tet.png   (tet.json from `dg bench acoustics3d --per-kernel --out tet.json`)"
)]
pub struct TetPlotArgs {
    /// A JSON file written by `dg bench <3D law> --per-kernel --out FILE`.
    pub input: PathBuf,
    /// The PNG to draw.
    #[arg(long, value_name = "FILE.png")]
    pub png: PathBuf,
    /// A TrueType font for the labels [default: DejaVu Sans from the usual system places]
    #[arg(long, value_name = "FILE.ttf")]
    pub font: Option<PathBuf>,
}

/// Draws seed 002's crossover plot.
pub fn tet_plot(args: TetPlotArgs) -> anyhow::Result<()> {
    Ok(dg_commands::kernel_report::plot(&args.input, &args.png, args.font.as_deref())?)
}

/// `dg db` subcommands.
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// List the entries visible for every device file.
    List,
    /// Show one entry (every candidate) by key prefix.
    Show {
        /// The start of the key (law name, say).
        key: String,
    },
    /// Print the user database file of a device as JSON.
    Export {
        /// File name in the user directory (see `dg db list`).
        file: String,
    },
    /// Merge a database file into the user directory.
    Import {
        /// A file written by `dg db export` or `dg autotune`.
        path: PathBuf,
    },
    /// Delete the user database's device files (shipped results stay; other files in the directory are kept).
    Clear,
}

/// The largest `--min-dofs`: 2³⁰ degrees of freedom, inside the kernels' 32-bit indices.
const MAX_TIMING_DOFS: u64 = 1 << 30;

/// Tunes and stores.
pub fn autotune(args: AutotuneArgs) -> anyhow::Result<()> {
    if let Some(dofs) = args.min_dofs {
        crate::memory::ensure_timing_fits("--min-dofs", dofs)?;
    }
    let law = dg_run::registry::law(&args.what.law)?;
    let formulation = formulation_of(args.what.formulation, law);
    check_law(formulation, law)?;
    let orders = args.what.orders_of(formulation)?;
    let mut device = open_device(&args.what.device)?;
    let opts = TuneOptions {
        strategy: args.strategy,
        budget: args.budget,
        early_stop: !args.no_early_stop,
        every_variant: args.every_variant,
        ..TuneOptions::default()
    };
    let default_size = match (device.fingerprint().is_gpu, formulation) {
        (true, FormulationId::NodalTet | FormulationId::Hex) => 2_000_000,
        (true, _) => DEFAULT_MIN_DOFS,
        (false, _) => CPU_DEVICE_MIN_DOFS,
    };
    let dir = tuning_db::user_dir();
    let run = AutotuneRun {
        formulation,
        flux: args.what.flux.as_deref(),
        orders: &orders,
        precision: args.what.precision,
        opts,
        timing_dofs: args.min_dofs.unwrap_or(default_size),
        operation: args.what.operation.into(),
        dir: &dir,
        json: args.json,
    };
    Ok(autotune_law(law, device.as_mut(), &run)?)
}

/// Verifies and times the stored winners again and prints what was measured now (or seed 002's per-kernel
/// report with `--per-kernel`).
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    if let Some(dofs) = args.min_dofs {
        crate::memory::ensure_timing_fits("--min-dofs", dofs)?;
    }
    if args.per_kernel {
        crate::memory::ensure_timing_fits("--nodes", args.nodes)?;
    }
    if args.per_kernel {
        let precision = match args.what.precision {
            PrecisionArg::F32 => Precision::F32,
            PrecisionArg::F64 => Precision::F64,
            PrecisionArg::Both => bail!("--per-kernel takes one precision"),
        };
        if let Some(file) = &args.out {
            super::run::check_writable("--out", file)?;
        }
        // one list of orders for every law, the first law's formulation's default; each law's must take them
        let mut laws = args.what.law.split(',').map(|name| dg_run::registry::law(name.trim()));
        let first = laws.next().ok_or_else(|| anyhow::anyhow!("no law given"))??;
        let formulation = formulation_of(args.what.formulation, first);
        check_law(formulation, first)?;
        let orders = args.what.orders_of(formulation)?;
        for law in laws {
            let law = law?;
            let formulation = formulation_of(args.what.formulation, law);
            check_law(formulation, law)?;
            check_orders(formulation, &orders)?;
        }
        let mut device = open_device(&args.what.device)?;
        return Ok(dg_commands::kernel_report::execute(
            dg_commands::kernel_report::KernelReportArgs {
                laws: args.what.law.split(',').map(|l| l.trim().to_string()).collect(),
                formulation: args.what.formulation,
                orders,
                size: usize::try_from(args.nodes)?,
                precision,
                repeats: usize::from(args.repeats),
                json: args.out,
            },
            device.as_mut(),
        )?);
    }
    let law = dg_run::registry::law(&args.what.law)?;
    let formulation = formulation_of_spec(args.what.formulation, args.variant.as_deref(), law);
    check_law(formulation, law)?;
    let orders = args.what.orders_of(formulation)?;
    let mut device = open_device(&args.what.device)?;
    let run = BenchRun {
        formulation,
        flux: args.what.flux.as_deref(),
        orders: &orders,
        precision: args.what.precision,
        timing_dofs: args.min_dofs,
        operation: args.what.operation.into(),
        repeats: usize::from(args.repeats),
        json: args.json,
        variant: args.variant.as_deref(),
    };
    Ok(bench_law(law, device.as_mut(), &run)?)
}

/// Manages the database.
pub fn db(command: DbCommand) -> anyhow::Result<()> {
    use dg_commands::db;
    Ok(match command {
        DbCommand::List => db::list(),
        DbCommand::Show { key } => db::show(&key),
        DbCommand::Export { file } => db::export(&file),
        DbCommand::Import { path } => db::import(&path),
        DbCommand::Clear => db::clear(),
    }?)
}

/// `--budget`: positive seconds, at most a day (a larger or non-finite value would not fit a `Duration` or
/// never end a search).
fn parse_budget(s: &str) -> Result<Duration, String> {
    const DAY: f64 = 86_400.0;
    let seconds = super::mesh_args::positive_finite(s)?;
    if seconds > DAY {
        return Err(format!("at most {DAY} seconds (a day), got {}", s.trim()));
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{seconds} s: {e}"))
}
