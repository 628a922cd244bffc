//! `dg laws` and `dg ir`: the laws linked into this program and their intermediate representation.

use anyhow::Context;
use clap::Args;
use dg::ir::{registered_laws, FunctionRole, LawIr};

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

fn find_law(name: &str) -> anyhow::Result<LawIr> {
    let laws = registered_laws();
    let law = laws.iter().find(|l| l.name == name).with_context(|| {
        format!("unknown law `{name}`; available: {}", laws.iter().map(|l| l.name).collect::<Vec<_>>().join(", "))
    })?;
    Ok((law.ir)())
}

fn names_of(ir: &LawIr, role: FunctionRole, prefix: &str) -> Vec<String> {
    ir.functions_of(role).map(|f| f.name.trim_start_matches(prefix).to_string()).collect()
}

/// Lists the laws.
pub fn list(args: LawsArgs) -> anyhow::Result<()> {
    let irs: Vec<LawIr> = registered_laws().iter().map(|l| (l.ir)()).collect();
    if args.json {
        let doc: Vec<serde_json::Value> = irs
            .iter()
            .map(|ir| {
                serde_json::json!({
                    "name": ir.name,
                    "dim": ir.dim,
                    "variables": ir.variables,
                    "materials": ir.materials,
                    "params": ir.params.iter().map(|(n, v)| serde_json::json!({"name": n, "default": v})).collect::<Vec<_>>(),
                    "linear": ir.is_linear(),
                    "numerical_fluxes": names_of(ir, FunctionRole::NumericalFlux, "numerical_flux:"),
                    "boundaries": names_of(ir, FunctionRole::Boundary, "boundary:"),
                    "hash": ir.hash(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    let rows: Vec<[String; 7]> = irs
        .iter()
        .map(|ir| {
            [
                ir.name.clone(),
                ir.dim.to_string(),
                if ir.is_linear() { "linear" } else { "nonlinear" }.to_string(),
                ir.variables.join(", "),
                if ir.materials.is_empty() { "-".to_string() } else { ir.materials.join(", ") },
                names_of(ir, FunctionRole::NumericalFlux, "numerical_flux:").join(", "),
                names_of(ir, FunctionRole::Boundary, "boundary:").join(", "),
            ]
        })
        .collect();
    let header = ["law", "dim", "linear", "variables", "materials", "numerical fluxes", "boundaries"].map(String::from);
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().chain(std::iter::once(&header)).map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        println!("{}", cells.join("  ").trim_end());
    }
    Ok(())
}

/// Prints a law's IR.
pub fn show(args: IrArgs) -> anyhow::Result<()> {
    let ir = find_law(&args.law)?;
    match &args.function {
        None => print!("{}", ir.print()),
        Some(name) => {
            let text = ir.print();
            let start = text.find(&format!("fn {name}:")).with_context(|| {
                let names: Vec<&str> = ir.functions.iter().map(|(_, f)| f.name.as_str()).collect();
                format!("law `{}` has no function `{name}`; it has {}", ir.name, names.join(", "))
            })?;
            let rest = &text[start..];
            let end = rest.find("\n\n").map_or(rest.len(), |e| e + 1);
            print!("{}", &rest[..end]);
        }
    }
    Ok(())
}
