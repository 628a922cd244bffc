//! `dg convergence`: errors and observed orders over refined meshes.

use super::mesh_args::{BackendArgs, MeshArgs, SolverArgs};
use anyhow::Context;
use clap::Args;
use dg_cases::MaxwellCase;
use dg_run::formulations::FormulationId;
use dg_run::maxwell_run::convergence;
use dg_runtime::backend::Device;
use dg_runtime::study::ConvergenceStudy;
use indicatif::{ProgressBar, ProgressStyle};
use std::ops::RangeInclusive;

/// Arguments of `dg convergence`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  dg convergence maxwell-cavity --orders 1..6 --levels 4 --json
  dg convergence maxwell-cavity --orders 2..3 --levels 3 --nx 2 --perturb 0.2
  dg convergence euler-isentropic-vortex --orders 1..3 --levels 3 --json
  dg convergence euler-supersonic-vortex --orders 1..2 --levels 3 --flux hllc_flux
  dg convergence acoustic-cube --orders 1..4 --levels 3 --json          (tetrahedra; --nx sets the base box)
  dg convergence elastic-cube --orders 1..2 --levels 3 --json
  dg convergence maxwell-cavity --orders 1..4 --levels 3 --device cuda:0   (generated kernels, database winners)
  dg convergence euler-isentropic-vortex --formulation nodal-tri --orders 1..3 --levels 3")]
pub struct ConvergenceArgs {
    /// Case to run (must have an exact solution).
    pub case: String,
    /// Orders to test, as A..B (inclusive) or a single N.
    #[arg(long, default_value = "1..4", value_parser = parse_orders)]
    pub orders: RangeInclusive<usize>,
    /// Number of meshes: the base mesh and its uniform refinements (2..=8; 2..=6 for 3D cases).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(2..=8))]
    pub levels: u16,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Final time (default: the case's).
    #[arg(long, value_name = "T", value_parser = super::mesh_args::positive_finite, allow_negative_numbers = true)]
    pub t_end: Option<f64>,
    /// Print one JSON document instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub backend: BackendArgs,
}

fn parse_orders(s: &str) -> Result<RangeInclusive<usize>, String> {
    let parse = |t: &str| t.trim().parse::<usize>().map_err(|_| format!("`{t}` is not an order"));
    let range = match s.split_once("..") {
        Some((a, b)) => parse(a)?..=parse(b.trim_start_matches('='))?,
        None => parse(s)?..=parse(s)?,
    };
    if range.is_empty() || *range.start() < 1 || *range.end() > 10 {
        return Err(format!("orders must lie in 1..10 with A ≤ B (got {s})"));
    }
    Ok(range)
}

/// The refusal of a study of a case without an exact solution (every family's).
pub fn no_exact_solution(case: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "`{case}` has no exact solution to converge to (`dg cases` marks the cases that have one); run it with dg run"
    )
}

/// Runs the study of a Maxwell case (Euler and wave cases: `euler_cmds::convergence`,
/// `wave_cmds::convergence`).
pub fn maxwell(args: ConvergenceArgs, case: Box<dyn MaxwellCase>) -> anyhow::Result<()> {
    args.backend.formulation(case.name(), &[FormulationId::NodalTri])?;
    if !case.has_exact() {
        return Err(no_exact_solution(case.name()));
    }
    let base = args.mesh.build(case.as_ref(), 2)?;
    finest_level_fits(&args, base.num_elements())?;
    let opts = args.solver.options(args.t_end, &args.backend)?;
    let mut device = args.backend.open("cpu")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = study_bar(&args);
    let mut progress = |order, level| study_progress(&bar, &args, order, level);
    let (orders, levels) = (args.orders.clone(), args.levels as usize);
    let study = convergence(case.as_ref(), &base, orders, levels, &opts, device, &mut progress)
        .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json)
}

/// Refuses a study whose finest mesh (`base_elements` triangles refined `--levels` − 1 times) would not fit this
/// machine's memory, before the first level runs.
pub fn finest_level_fits(args: &ConvergenceArgs, base_elements: usize) -> anyhow::Result<()> {
    let levels = args.levels as usize;
    let finest = crate::memory::refined(base_elements as u128, 4, levels.saturating_sub(1));
    crate::memory::ensure_fits(
        crate::memory::ElementKind::Triangle,
        finest,
        &format!("--levels {levels} (the finest mesh)"),
    )
}

/// The progress bar of a study: one step per run.
pub fn study_bar(args: &ConvergenceArgs) -> ProgressBar {
    let total = (args.orders.end() - args.orders.start() + 1) * args.levels as usize;
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} runs, {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Moves a [`study_bar`] to the run of `order` on `level`; where stderr is no terminal, prints one line per run
/// instead ([`super::run::logs_progress`]).
pub fn study_progress(bar: &ProgressBar, args: &ConvergenceArgs, order: usize, level: usize) {
    bar.set_message(format!("N={order} level {level}"));
    let position = ((order - args.orders.start()) * args.levels as usize + level) as u64;
    bar.set_position(position);
    if super::run::logs_progress(bar) {
        eprintln!(
            "convergence: run {} of {} (N={order}, level {} of {}), {:.1} s so far",
            position + 1,
            bar.length().unwrap_or(0),
            level + 1,
            args.levels,
            bar.elapsed().as_secs_f64()
        );
    }
}

/// Prints a study as JSON or as a table of errors and rates.
pub fn print_study(study: &ConvergenceStudy, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(&study)?);
    } else {
        print!("{}", study.table());
    }
    Ok(())
}
