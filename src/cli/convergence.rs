//! `dg convergence`: errors and observed orders over refined meshes.

use super::mesh_args::{MeshArgs, SolverArgs};
use anyhow::{bail, Context};
use clap::Args;
use dg::cases::MaxwellCase;
use dg::simulate::{convergence, ConvergenceStudy};
use indicatif::{ProgressBar, ProgressStyle};
use std::ops::RangeInclusive;

/// Arguments of `dg convergence`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  dg convergence maxwell-cavity --orders 1..6 --levels 4 --json
  dg convergence maxwell-cavity --orders 2..3 --levels 3 --nx 2 --perturb 0.2
  dg convergence euler-isentropic-vortex --orders 1..4 --levels 4 --json
  dg convergence euler-supersonic-vortex --orders 1..2 --levels 3 --flux hllc_flux
  dg convergence acoustic-cube --orders 1..6 --levels 3 --json          (tetrahedra; --nx sets the base box)
  dg convergence elastic-cube --orders 1..6 --levels 3 --json")]
pub struct ConvergenceArgs {
    /// MaxwellCase to run (must have an exact solution).
    pub case: String,
    /// Orders to test, as A..B (inclusive) or a single N.
    #[arg(long, default_value = "1..4", value_parser = parse_orders)]
    pub orders: RangeInclusive<usize>,
    /// Number of meshes: the base mesh and its uniform refinements.
    #[arg(long, default_value_t = 4)]
    pub levels: usize,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Final time (default: the case's).
    #[arg(long, value_name = "T")]
    pub t_end: Option<f64>,
    /// Print one JSON document instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Euler cases: where to run, cpu (the native path), auto (a GPU if there is one), cuda:N, opencl. Maxwell
    /// studies run on the CPU.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Euler cases: the modal formulation (seed 001, theirs) or, for comparison, the nodal one (seed 000).
    #[arg(long, value_enum, default_value_t = FormulationArg::Modal)]
    pub formulation: FormulationArg,
}

/// `--formulation`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum FormulationArg {
    /// Modal weak form with quadrature.
    Modal,
    /// Nodal strong form.
    Nodal,
}

impl From<FormulationArg> for dg::euler_study::Formulation {
    fn from(f: FormulationArg) -> Self {
        match f {
            FormulationArg::Modal => Self::Modal,
            FormulationArg::Nodal => Self::Nodal,
        }
    }
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

/// Runs the study of a Maxwell case (Euler and wave cases: `euler_cmds::convergence`,
/// `wave_cmds::convergence`).
pub fn maxwell(args: ConvergenceArgs, case: Box<dyn MaxwellCase>) -> anyhow::Result<()> {
    if args.device != "cpu" || matches!(args.formulation, FormulationArg::Nodal) {
        bail!("Maxwell convergence studies run on the native CPU path with the nodal formulation (drop --device and --formulation)");
    }
    if !case.has_exact() {
        bail!("case `{}` has no exact solution; choose one of the cases marked so in `dg cases`", case.name());
    }
    if !(2..=8).contains(&args.levels) {
        bail!("--levels must be between 2 and 8 (got {})", args.levels);
    }
    let base = args.mesh.build(case.as_ref(), 2)?;
    let opts = args.solver.options(args.t_end)?;
    let bar = study_bar(&args);
    let first = *args.orders.start();
    let levels = args.levels;
    let study = convergence(case.as_ref(), &base, args.orders.clone(), args.levels, &opts, &mut |order, level| {
        bar.set_message(format!("N={order} level {level}"));
        bar.set_position(((order - first) * levels + level) as u64);
    })
    .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json, "L2 error")
}

/// The progress bar of a study: one step per run.
pub fn study_bar(args: &ConvergenceArgs) -> ProgressBar {
    let total = (args.orders.end() - args.orders.start() + 1) * args.levels;
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} runs, {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Prints a study as JSON or as a table of errors and rates.
pub fn print_study(study: &ConvergenceStudy, json: bool, what: &str) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(&study)?);
        return Ok(());
    }
    println!("{}: {what} and observed order", study.case);
    println!("{:>3} {:>10} {:>14} {:>7}", "N", "h", "L2 error", "rate");
    for r in &study.results {
        for (i, (h, e)) in r.h.iter().zip(&r.l2).enumerate() {
            let rate = if i == 0 { String::from("-") } else { format!("{:.2}", r.rates[i - 1]) };
            println!("{:>3} {:>10.5} {:>14.4e} {:>7}", r.order, h, e, rate);
        }
    }
    Ok(())
}
