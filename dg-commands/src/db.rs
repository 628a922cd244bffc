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
    let dir = tuning_db::user_dir();
    if std::path::Path::new(file).components().count() != 1 {
        bail!("`{file}` is a path; dg db export takes the name of a file in the user directory {}", dir.display());
    }
    let path = dir.join(file);
    let Some(data) = tuning_db::read_file(&path)? else {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| n.ends_with(".json"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        let has = match names.is_empty() {
            true => "it has no device file (`dg autotune` writes them)".to_string(),
            false => format!("its device files: {}", names.join(", ")),
        };
        bail!("no file `{file}` in the user directory {}; {has}", dir.display());
    };
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

/// What a file of the user directory is to `dg db clear`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeviceFileKind {
    /// A `.json` that parses as a device file of the tuning database.
    Readable,
    /// A `.json` that does not parse but begins as every device file dg writes does (`{` and the `"schema"` field
    /// first): cut short or damaged, the kind of file every run warns about until it is removed.
    Damaged,
}

/// Whether `path` is a device file of the tuning database, and whether it reads (the file is read once). Another
/// JSON file a user keeps in the directory is neither.
fn device_file_kind(path: &std::path::Path) -> Option<DeviceFileKind> {
    if path.extension().is_none_or(|e| e != "json") {
        return None;
    }
    match tuning_db::read_file(path) {
        Ok(file) => file.map(|_| DeviceFileKind::Readable),
        Err(_) => {
            let mut head = [0u8; 64];
            let n = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).unwrap_or(0);
            let text = String::from_utf8_lossy(&head[..n]);
            let begins_as_ours =
                text.trim_start().strip_prefix('{').is_some_and(|rest| rest.trim_start().starts_with("\"schema\""));
            begins_as_ours.then_some(DeviceFileKind::Damaged)
        }
    }
}

/// Deletes the user database (shipped results stay): the device files of the user directory (JSON files that are
/// dg databases, damaged ones included: `device_file_kind`) and the lock, temporary and set-aside files the store
/// makes beside them; nothing else, since `--db` may name a directory that holds other files (the directory itself
/// goes when nothing is left in it).
pub fn clear() -> Result<(), CommandError> {
    let dir = tuning_db::user_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("nothing to clear: {} does not exist", dir.display());
            return Ok(());
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let files: Vec<std::path::PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    // the stems of the device files: their side files are `<stem>.lock`, `<stem>.tmp-PID`, `<stem>.corrupt-PID`
    let kinds: Vec<Option<DeviceFileKind>> = files.iter().map(|p| device_file_kind(p)).collect();
    let stems: Vec<&std::ffi::OsStr> =
        files.iter().zip(&kinds).filter(|(_, k)| k.is_some()).filter_map(|(p, _)| p.file_stem()).collect();
    let side_file = |p: &std::path::Path| {
        let (Some(stem), Some(ext)) = (p.file_stem(), p.extension().and_then(|e| e.to_str())) else { return false };
        stems.contains(&stem) && (ext == "lock" || ext.starts_with("tmp-") || ext.starts_with("corrupt-"))
    };
    let (mut removed, mut damaged, mut left) = (0, 0, Vec::new());
    for (file, kind) in files.iter().zip(&kinds) {
        if kind.is_some() || side_file(file) {
            damaged += usize::from(*kind == Some(DeviceFileKind::Damaged));
            std::fs::remove_file(file).with_context(|| format!("cannot remove {}", file.display()))?;
            removed += usize::from(kind.is_some());
        } else {
            left.push(file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        }
    }
    let _ = std::fs::remove_dir(&dir); // only if empty
    let damaged = match damaged {
        0 => String::new(),
        n => format!(" ({n} of them damaged: not readable as a database)"),
    };
    println!("cleared {}: {removed} device file(s) removed{damaged}", dir.display());
    if !left.is_empty() {
        left.sort();
        println!("left {} file(s) that are not dg databases: {}", left.len(), left.join(", "));
    }
    Ok(())
}
