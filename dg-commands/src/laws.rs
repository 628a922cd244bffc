//! `dg laws` and `dg ir`: the laws linked into this program and their intermediate representation.

use crate::{CommandError, Context};
use dg_ir::{registered_laws, FunctionRole, LawIr};

fn find_law(name: &str) -> Result<LawIr, CommandError> {
    let laws = registered_laws();
    let law = laws.iter().find(|l| l.name == name).with_context(|| {
        format!("unknown law `{name}`; available: {}", laws.iter().map(|l| l.name).collect::<Vec<_>>().join(", "))
    })?;
    Ok((law.ir)())
}

fn names_of(ir: &LawIr, role: FunctionRole, prefix: &str) -> Vec<String> {
    ir.functions_of(role).map(|f| f.name.trim_start_matches(prefix).to_string()).collect()
}

/// Lists the laws (one JSON document with `json`).
pub fn list(json: bool) -> Result<(), CommandError> {
    let irs: Vec<LawIr> = registered_laws().iter().map(|l| (l.ir)()).collect();
    if json {
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

/// Prints the IR of the law called `law` (only its function `function` when given).
pub fn show(law: &str, function: Option<&str>) -> Result<(), CommandError> {
    let ir = find_law(law)?;
    match function {
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
