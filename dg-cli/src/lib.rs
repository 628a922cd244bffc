//! Command-line interface: argument definitions and dispatch to one module per subcommand. [`main`] is the whole
//! program; a crate that defines its own laws calls it from its own `main` and gets every command for them.

mod cases;
mod convergence;
mod euler_cmds;
mod exact_domain;
mod fv_cmds;
mod hdg_cmds;
mod hex_cmds;
pub mod kernel_cmds;
mod laws;
mod memory;
mod mesh_args;
mod ranks;

mod restart;
mod run;
mod tune_cmds;
mod wave_cmds;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use dg_cases::AnyCase;

/// dg: discontinuous Galerkin solvers for conservation laws.
#[derive(Debug, Parser)]
#[command(name = "dg", version, about = "Discontinuous Galerkin solvers for conservation laws, from a flux description to tuned kernels", long_about = None, after_help = "\
Examples:
  dg run maxwell-cavity --order 4 --nx 8 --ny 8 --out cavity.vtu
  dg run maxwell-pulse --mesh examples/meshes/square_hole.msh --order 3 --t-end 0.5
  dg convergence maxwell-cavity --orders 1..6 --levels 4 --json
  dg convergence maxwell3d-plane-wave --orders 1..3 --levels 3 --nx 3
  dg cases
  dg laws
  dg ir euler2d")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The user tuning database directory for this command, read and written by every command that uses winners
    /// (run, convergence, autotune, bench, db) [default: $DG_CACHE_DIR/tuning, else ~/.cache/dg/tuning]
    #[arg(long, global = true, value_name = "DIR")]
    db: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a case and report its error, energy and throughput.
    Run(run::RunArgs),
    /// Measure the order of accuracy of a case over refined meshes.
    Convergence(convergence::ConvergenceArgs),
    /// List the available cases.
    Cases,
    /// List the conservation laws linked into this program.
    Laws(laws::LawsArgs),
    /// Print a law's intermediate representation with flop counts.
    Ir(laws::IrArgs),
    /// List compute devices (CUDA, OpenCL) with fingerprints.
    Devices(kernel_cmds::DevicesArgs),
    /// List the kernel variants of a law and order, valid and rejected.
    Variants(kernel_cmds::VariantsArgs),
    /// Print the generated kernel source of one variant.
    Emit(kernel_cmds::EmitArgs),
    /// Check every valid variant against the CPU reference on a device.
    Verify(kernel_cmds::VerifyArgs),
    /// Find the fastest verified variant per order and store it in the tuning database.
    Autotune(tune_cmds::AutotuneArgs),
    /// Time the tuned variants: ms per RHS, GDOF/s, GFLOP/s, GB/s, % of roofline, speedups.
    Bench(tune_cmds::BenchArgs),
    /// Draw the crossover plot of a `dg bench --formulation nodal-tet --per-kernel --out FILE` file.
    TetPlot(tune_cmds::TetPlotArgs),
    /// Manage the tuning database.
    #[command(subcommand)]
    Db(tune_cmds::DbCommand),
}

/// The `dg` program: parses the command line, runs the command, prints an error and returns a failure exit code
/// when it fails. Every law linked into the program is available to the kernel commands (`dg laws` lists them),
/// so a physics crate's `fn main() -> std::process::ExitCode { dg::cli::main() }` gives `cargo run -- verify
/// my_law --order 1..4` and the rest for its own laws.
pub fn main() -> std::process::ExitCode {
    dg_runtime::startup::start();
    restore_default_sigpipe();
    let matches = Cli::command().get_matches();
    let mut args = match Cli::from_arg_matches(&matches) {
        Ok(args) => args,
        Err(e) => e.exit(),
    };
    if let (Command::Run(run), Some(("run", given))) = (&mut args.command, matches.subcommand()) {
        run.given = restart::given_on_command_line(given);
        run.command = std::env::args().collect();
    }
    // a run or a study asked for JSON prints a JSON document on failure too (rank 0 under mpirun), so that a script
    // reading stdout meets `{"error": …}` instead of nothing; the message goes to stderr as always
    let json_error = match &args.command {
        Command::Run(run) => run.json,
        Command::Convergence(study) => study.json,
        _ => false,
    } && ranks::is_rank_0();
    match dispatch(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // (a split run's refusal, printed where every rank could still print)
        Err(e) if ranks::already_printed(&e) => std::process::ExitCode::FAILURE,
        Err(e) => {
            print_error(&error_line(&e), json_error);
            std::process::ExitCode::FAILURE
        }
    }
}

/// Prints `error: LINE` on stderr and, for a run or a study asked for JSON (`json`), `{"error": LINE}` on stdout.
fn print_error(line: &str, json: bool) {
    eprintln!("error: {line}");
    if json {
        println!("{}", serde_json::json!({ "error": line }));
    }
}

/// An error and its causes on one line, each cause left out when a message before it already shows it (typed
/// errors often print their source in their own message, which `{:#}` would then print twice).
fn error_line(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

/// `dg … | head` should end quietly like any Unix tool when the reader goes away, not panic in `println!`:
/// Rust ignores SIGPIPE by default, so restore the default action.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting the disposition of SIGPIPE to its default before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs the parsed command.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    if let Some(dir) = cli.db {
        // (a directory that does not exist yet is made when the first result is stored)
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!("--db {} is a file: it names the tuning database's directory", dir.display());
        }
        dg_runtime::tuning_db::set_user_dir(dir);
    }
    if !matches!(cli.command, Command::Run(_)) {
        ranks::refuse_several()?;
    }
    match cli.command {
        // each kind of case has its own module; only this dispatch knows them all
        Command::Run(args) => {
            let args = restart::resolve(args)?;
            args.check_output_paths()?;
            let case = mesh_args::find_case(args.case.as_deref().unwrap_or_default())?;
            args.solver.refuse_other_families(&case)?;
            // --schedule or --exchange in one process: the split path on one rank (the baseline of scaling studies)
            let alone = (args.schedule.is_some() || args.exchange.is_some())
                .then(|| -> Box<dyn dg_parallel::comm::Communicator> { Box::new(dg_parallel::comm::Solo) });
            if let Some(comm) = ranks::join()?.or(alone) {
                return match case {
                    AnyCase::Maxwell(case) => run::maxwell_over_ranks(args, case, comm.as_ref()),
                    AnyCase::Hex(case) => hex_cmds::run_over_ranks(args, case, comm.as_ref()),
                    AnyCase::Wave(case) => wave_cmds::run_over_ranks(args, case, comm.as_ref()),
                    AnyCase::Euler(case) => euler_cmds::run_over_ranks(args, case, comm.as_ref()),
                    AnyCase::Elliptic(case) => anyhow::bail!(
                        "{} is a steady elliptic problem: it runs in one process (not over MPI ranks)",
                        case.name()
                    ),
                    AnyCase::Fv(case) => fv_cmds::run_over_ranks(args, case, comm.as_ref()),
                };
            }
            if args.partition.is_some() {
                anyhow::bail!("--partition applies to runs split over MPI ranks (under mpirun)");
            }
            match case {
                AnyCase::Maxwell(case) => run::maxwell(args, case),
                AnyCase::Euler(case) => euler_cmds::run(args, case),
                AnyCase::Wave(case) => wave_cmds::run(args, case),
                AnyCase::Hex(case) => hex_cmds::run(args, case),
                AnyCase::Fv(case) => fv_cmds::run(args, case),
                AnyCase::Elliptic(case) => hdg_cmds::run(args, case),
            }
        }
        // (a study's errors fall far below f32's round-off: it runs in f64, and takes no --precision)
        Command::Convergence(args) if args.backend.variant.as_deref().is_some_and(|v| v.ends_with("/f32")) => {
            anyhow::bail!("a convergence study runs in f64: give a --variant ending in /f64")
        }
        Command::Convergence(args) => match mesh_args::find_case(&args.case)
            .and_then(|case| args.solver.refuse_other_families(&case).map(|()| case))?
        {
            AnyCase::Maxwell(case) => convergence::maxwell(args, case),
            AnyCase::Euler(case) => euler_cmds::convergence(args, case),
            AnyCase::Wave(case) => wave_cmds::convergence(args, case),
            AnyCase::Hex(case) => hex_cmds::convergence(args, case),
            AnyCase::Elliptic(case) => hdg_cmds::convergence(args, case),
            AnyCase::Fv(case) => Err(convergence::no_exact_solution(case.name())),
        },
        Command::Cases => cases::execute(),
        Command::Laws(args) => laws::list(args),
        Command::Ir(args) => laws::show(args),
        Command::Devices(args) => kernel_cmds::devices(args),
        Command::Variants(args) => kernel_cmds::variants(args),
        Command::Emit(args) => kernel_cmds::emit(args),
        Command::Verify(args) => kernel_cmds::verify(args),
        Command::Autotune(args) => tune_cmds::autotune(args),
        Command::Bench(args) => tune_cmds::bench(args),
        Command::TetPlot(args) => tune_cmds::tet_plot(args),
        Command::Db(command) => tune_cmds::db(command),
    }
}

#[cfg(test)]
mod tests {
    use super::{error_line, Cli};
    use clap::{CommandFactory, Parser};

    /// Every example line (`  dg …`) of a command's help and of its subcommands', with the trailing comment
    /// (`   (…)` or `   # …`) removed: (the command's path, the example).
    fn examples(command: &clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        if let Some(help) = command.get_after_help() {
            for line in help.to_string().lines() {
                let line = line.trim_start();
                if let Some(rest) = line.strip_prefix("dg ") {
                    let end = [rest.find("  ("), rest.find(" # "), rest.find("   ")].into_iter().flatten().min();
                    out.push((path.to_string(), format!("dg {}", rest[..end.unwrap_or(rest.len())].trim_end())));
                }
            }
        }
        for sub in command.get_subcommands() {
            examples(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_example_in_the_help_parses_as_printed() {
        let mut found = Vec::new();
        examples(&Cli::command(), "dg", &mut found);
        assert!(found.len() >= 40, "{} examples found: {found:?}", found.len());
        for command in ["dg run", "dg convergence", "dg verify", "dg autotune", "dg bench", "dg tet-plot"] {
            assert!(found.iter().any(|(path, _)| path == command), "no example in `{command} --help`");
        }
        for (path, example) in &found {
            let words: Vec<&str> = example.split_whitespace().collect();
            if let Err(e) = Cli::try_parse_from(&words) {
                panic!("`{path} --help` shows `{example}`, which does not parse:\n{e}");
            }
        }
    }

    #[test]
    fn each_subcommand_is_described_by_its_own_sentence() {
        let cli = Cli::command();
        let about = |name: &str| {
            let sub = cli.get_subcommands().find(|c| c.get_name() == name).expect("subcommand");
            sub.get_about().map(|a| a.to_string()).unwrap_or_default()
        };
        // (a stale doc comment once ran into the next variant's and described tet-plot as the modal tuner)
        assert!(about("tet-plot").starts_with("Draw the crossover plot"), "{}", about("tet-plot"));
        for sub in cli.get_subcommands() {
            let text = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(!text.is_empty() && !text.contains(". "), "`dg {}`: {text}", sub.get_name());
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("choosing the kernel variant: {0}")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("variant x/f32 is in f32")]
    struct Inner;

    #[test]
    fn a_cause_already_in_the_message_is_printed_once() {
        let e = anyhow::Error::new(Outer(Inner)).context("running the case");
        assert_eq!(error_line(&e), "running the case: choosing the kernel variant: variant x/f32 is in f32");
        let plain = anyhow::Error::new(std::io::Error::other("disk full")).context("writing out.vtu");
        assert_eq!(error_line(&plain), "writing out.vtu: disk full");
    }

    #[test]
    fn a_run_takes_the_formulation_its_variant_is_of() {
        use crate::mesh_args::BackendArgs;
        use dg_run::formulations::FormulationId::{Hex, ModalTri, NodalTri};
        let args = |formulation, variant: Option<&str>| BackendArgs {
            device: None,
            formulation,
            no_tune: false,
            variant: variant.map(str::to_string),
        };
        let euler = [ModalTri, NodalTri];
        let nodal = "elem/wg128/seq1/matrix-const/merged/node-major/f32";
        let chosen = |formulation, variant| args(formulation, variant).formulation("vortex", &euler).unwrap();
        assert_eq!(chosen(None, None), ModalTri, "the case's default");
        assert_eq!(chosen(None, Some(nodal)), NodalTri);
        assert_eq!(chosen(None, Some("modal/wg128/edge-flux/const/mode-major/f64")), ModalTri);
        // a SPEC of a formulation the case does not run with, or of another than --formulation, is refused naming both
        let hex = args(None, Some("hex/fused/spec/c1/kvi/f32")).formulation("vortex", &euler).unwrap_err().to_string();
        assert!(hex.contains("is a hex variant, but case `vortex` runs modal-tri here"), "{hex}");
        let modal = Some("modal/wg128/edge-flux/const/mode-major/f64");
        let err = args(Some(NodalTri), modal).formulation("vortex", &euler).unwrap_err().to_string();
        assert!(err.contains("is a modal-tri variant, but case `vortex` runs nodal-tri here"), "{err}");
        // --formulation wins, and must be one the case runs with
        assert_eq!(chosen(Some(ModalTri), Some(nodal)), ModalTri);
        assert!(args(Some(Hex), None).formulation("vortex", &euler).is_err());
    }

    #[test]
    fn a_spec_names_its_formulation_by_its_first_part() {
        use dg_run::formulations::FormulationId;
        let named = |spec| FormulationId::named_by_spec(spec);
        assert_eq!(named("modal/wg128/edge/const/mode-major/f64"), Some(FormulationId::ModalTri));
        assert_eq!(named("tet/node/v2/s1/u2/f32"), Some(FormulationId::NodalTet));
        assert_eq!(named("hex/fused/spec/c1/kvi/f32"), Some(FormulationId::Hex));
        assert_eq!(named("fv/tiled/twice/w64/f32"), Some(FormulationId::Fv));
        // the nodal triangles' SPECs start with a partition; nothing else names a formulation
        for spec in ["elem/wg128/seq1/matrix-const/merged/node-major/f32", "tile4/wg32/x", "", "modalx/f32", "f64"] {
            assert_eq!(named(spec), None, "{spec}");
        }
    }
}
