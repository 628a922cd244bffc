//! `dg db`'s bodies: the shipped and user tuning databases listed, shown, exported, imported and cleared.

use crate::{bail, CommandError, Context};
use dg_run::formulations::FormulationId;
use dg_runtime::tuning_db::{self, TuningKey};

/// Lists every entry of every database file, marking those of other generated code.
pub fn list() -> Result<(), CommandError> {
    let fingerprints: Vec<String> = FormulationId::ALL
        .iter()
        .map(|f| {
            let family = f.get().family();
            format!("{f} ({}|{}) cg{}", family.formulation, family.element, family.code)
        })
        .chain(std::iter::once({
            let family = dg_hdg::tuning::family();
            format!("hdg ({}|{}) cg{}", family.formulation, family.element, family.code)
        }))
        .collect();
    println!("this program's kernel code fingerprints: {}", fingerprints.join(", "));
    for source in dg_run::shipped_db::sources() {
        for (origin, file) in source.files() {
            match file {
                Ok(file) => {
                    println!(
                        "{origin} ({} {}, {} entries)",
                        file.device.name,
                        file.device.architecture,
                        file.entries.len()
                    );
                    for (key, e) in &file.entries {
                        let current = key
                            .parse::<TuningKey>()
                            .is_ok_and(|k| FormulationId::ALL.iter().any(|f| f.owns(&k)) || dg_hdg::tuning::owns(&k));
                        let stale = if current { "" } else { "  [other generated code: not used]" };
                        println!("  {key}: {} {:.3} ms{stale}", e.winner, e.median_s * 1e3);
                    }
                }
                Err(e) => eprintln!("warning: {e}; ignoring it"),
            }
        }
    }
    Ok(())
}

/// Prints the entries whose key starts with `key`, every candidate included.
pub fn show(key: &str) -> Result<(), CommandError> {
    let mut found = false;
    for source in dg_run::shipped_db::sources() {
        for (origin, file) in source.files() {
            let Ok(file) = file else { continue };
            for (k, e) in file.entries.iter().filter(|(k, _)| k.starts_with(key)) {
                found = true;
                println!("{k} ({origin})\n{}", serde_json::to_string_pretty(e)?);
            }
        }
    }
    if !found {
        bail!("no entry starts with `{key}` (see `dg db list`)");
    }
    Ok(())
}

/// Prints the user database file `file` as JSON.
pub fn export(file: &str) -> Result<(), CommandError> {
    let path = tuning_db::user_dir().join(file);
    let data = tuning_db::read_file(&path)?.with_context(|| format!("{} does not exist", path.display()))?;
    println!("{}", serde_json::to_string_pretty(&data)?);
    Ok(())
}

/// Merges a database file into the user directory.
pub fn import(path: &std::path::Path) -> Result<(), CommandError> {
    let data = tuning_db::read_file(path)?.with_context(|| format!("{} does not exist", path.display()))?;
    let n = data.entries.len();
    let out = tuning_db::merge_into(&tuning_db::user_dir(), &data.device, data.entries, data.ceilings)?;
    println!("imported {n} entries into {}", out.display());
    Ok(())
}

/// Deletes the user database (shipped results stay).
pub fn clear() -> Result<(), CommandError> {
    let dir = tuning_db::user_dir();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    println!("cleared {}", dir.display());
    Ok(())
}
