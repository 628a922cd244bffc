//! `dg run --restart FILE`: the run a restart file continues, rebuilt from the command line stored in it, with
//! the options that say where and how to run (not what) taken from this command line.

use super::run::RunArgs;
use super::{Cli, Command};
use anyhow::{bail, Context};
use clap::parser::ValueSource;
use clap::{Args, Parser};

/// The options `--restart` may be combined with: where the run goes and what it writes, never what it computes.
const WITH_RESTART: [&str; 12] = [
    "restart",
    "device",
    "variant",
    "no_tune",
    "json",
    "out",
    "out_every",
    "checkpoint_every",
    "checkpoint",
    "png",
    "png_width",
    "db",
];

/// The ids of the options given on the command line of `dg run`.
pub fn given_on_command_line(matches: &clap::ArgMatches) -> Vec<String> {
    // (`ids` also yields the argument group clap makes of each flattened struct, named after it — `BackendArgs`
    // once `--device` or `--variant` is given —: only the command's own arguments count)
    let run = RunArgs::augment_args(clap::Command::new("run"));
    matches
        .ids()
        .filter(|id| run.get_arguments().any(|arg| arg.get_id() == *id))
        .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.to_string())
        .collect()
}

/// `args` itself without `--restart`; else the run stored in the restart file, continuing from its state, with
/// this command line's device, kernel and output options.
pub fn resolve(args: RunArgs) -> anyhow::Result<RunArgs> {
    let Some(path) = args.restart.clone() else {
        return Ok(args);
    };
    let mut extra: Vec<String> = args
        .given
        .iter()
        .filter(|id| !WITH_RESTART.contains(&id.as_str()))
        .map(|id| format!("--{}", id.replace('_', "-")))
        .collect();
    if !extra.is_empty() {
        extra.sort();
        bail!(
            "--restart continues the run saved in {}, with its case and options; {} cannot be given with it (only \
             --device, --variant, --no-tune, --json, --out, --out-every, --png, --png-width, --checkpoint-every and \
             --checkpoint can)",
            path.display(),
            extra.join(", ")
        );
    }
    let file = dg_runtime::restart::read(&path).context("cannot continue from the restart file")?;
    let command: Vec<String> = serde_json::from_value(file.run.get("args").cloned().unwrap_or_default())
        .with_context(|| format!("{}: the file does not hold the command of its run", path.display()))?;
    let stored = Cli::try_parse_from(&command).map_err(|e| {
        anyhow::anyhow!(
            "{}: its command `{}` is not one this program runs: {}",
            path.display(),
            command.join(" "),
            e.kind()
        )
    })?;
    let Command::Run(mut run) = stored.command else {
        bail!("{}: its command `{}` is not a `dg run`", path.display(), command.join(" "));
    };
    // the stored run's precision stays (a --variant given now must be of it): pinned before the SPEC it may come
    // from is replaced
    run.precision = Some(run.precision());
    for id in &args.given {
        match id.as_str() {
            "device" => run.backend.device = args.backend.device.clone(),
            "variant" => run.backend.variant = args.backend.variant.clone(),
            "no_tune" => run.backend.no_tune = args.backend.no_tune,
            "json" => run.json = args.json,
            "out" => run.out = args.out.clone(),
            "out_every" => run.out_every = args.out_every,
            "checkpoint_every" => run.checkpoint_every = args.checkpoint_every,
            "checkpoint" => run.checkpoint = args.checkpoint.clone(),
            "png" => run.png = args.png.clone(),
            "png_width" => run.png_width = args.png_width,
            _ => {}
        }
    }
    // a --variant given now in the other precision cannot continue this state (the refusal at the variant's choice
    // would ask for a --precision, which --restart does not take)
    let pinned = dg_codegen::Precision::from(run.precision());
    if let (Some(spec), true) = (&run.backend.variant, args.given.iter().any(|id| id == "variant")) {
        if let Some(theirs) = dg_commands::bench::precision_of_spec(spec).filter(|&p| p != pinned) {
            bail!(
                "--variant {spec} is in {}, but the run saved in {} is in {}: give a variant ending in /{}",
                theirs.name(),
                path.display(),
                pinned.name(),
                pinned.name()
            );
        }
    }
    run.command = command;
    run.restart = Some(path);
    run.resume = Some(std::sync::Arc::new(file.state));
    Ok(run)
}
