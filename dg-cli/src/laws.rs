//! `dg laws` and `dg ir`: the laws linked into this program and their intermediate representation.

use clap::Args;

/// Arguments of `dg laws`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  dg laws\n  dg laws --json")]
pub struct LawsArgs {
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `dg ir`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  dg ir maxwell2d\n  dg ir euler2d --function numerical_flux:hllc_flux")]
pub struct IrArgs {
    /// Law name (see `dg laws`).
    pub law: String,
    /// Print only this function (e.g. `flux`, `numerical_flux:numerical_flux`, `boundary:wall`).
    #[arg(long)]
    pub function: Option<String>,
}

/// Lists the laws.
pub fn list(args: LawsArgs) -> anyhow::Result<()> {
    Ok(dg_commands::laws::list(args.json)?)
}

/// Prints a law's IR.
pub fn show(args: IrArgs) -> anyhow::Result<()> {
    Ok(dg_commands::laws::show(&args.law, args.function.as_deref())?)
}
