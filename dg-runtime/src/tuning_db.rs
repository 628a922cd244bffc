//! The tuning database: winners per (device, law, formulation, element, order, precision, kernel role,
//! problem-size bucket, codegen version), in human-readable JSON files.
//!
//! Shipped results live in `tuning-db/` of the repository; new results go to the user cache directory
//! (`$DG_CACHE_DIR`, else `$XDG_CACHE_HOME/dg`, else `~/.cache/dg`). One file per device. Writes take an
//! exclusive lock on a lock file, re-read the file, merge, and replace it atomically (write + rename), so
//! concurrent tuners lose no entry. A corrupt file is reported once and skipped; it is kept aside, never
//! silently overwritten.

use crate::backend::DeviceFingerprint;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Version of the file format.
pub const SCHEMA_VERSION: u32 = 1;
/// Version of the kernel generator; results of older generators are not reused.
pub const CODEGEN_VERSION: u32 = 1;

/// Errors of the database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// File system error.
    #[error("tuning database {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file that is not a valid database.
    #[error("tuning database {path} is not valid: {message}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// One candidate's measurement.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// Variant SPEC.
    pub variant: String,
    /// Whether it passed verification.
    pub verified: bool,
    /// Median seconds per right-hand side (NaN-free: absent if not timed).
    pub median_s: Option<f64>,
    /// Relative spread (p90 − p10) / median.
    pub spread: Option<f64>,
    /// Why it was not timed, if it was not.
    pub note: Option<String>,
}

/// The winner of one key.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Winning variant SPEC.
    pub winner: String,
    /// Its median seconds per right-hand-side evaluation.
    pub median_s: f64,
    /// Degrees of freedom of the timing problem.
    pub dofs: u64,
    /// Achieved GFLOP/s (cost-model flops).
    pub gflops: f64,
    /// Achieved GB/s (cost-model minimal bytes).
    pub gbs: f64,
    /// Percent of the roofline bound (if the device ceilings were measured).
    pub roofline_percent: Option<f64>,
    /// Every candidate.
    pub candidates: Vec<Candidate>,
    /// When (UTC, RFC 3339 date).
    pub date: String,
    /// Strategy used.
    pub strategy: String,
}

/// Measured ceilings of a device.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ceilings {
    /// Copy bandwidth, bytes read + written per second, in GB/s.
    pub bandwidth_gbs: f64,
    /// Peak f32 GFLOP/s (fused multiply-add chains).
    pub gflops_f32: f64,
    /// Peak f64 GFLOP/s.
    pub gflops_f64: f64,
}

/// One device's file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DeviceFile {
    /// File format version.
    pub schema: u32,
    /// The device.
    pub device: DeviceFingerprint,
    /// Measured ceilings.
    pub ceilings: Option<Ceilings>,
    /// Entries by key.
    pub entries: BTreeMap<String, Entry>,
}

/// The key of one tuning result.
#[allow(clippy::too_many_arguments)]
pub fn key(
    law: &str,
    law_hash: &str,
    numerical_flux: &str,
    order: usize,
    precision: &str,
    role: &str,
    dofs: u64,
) -> String {
    let bucket = (dofs.max(1) as f64).log2().round() as u32;
    format!("{law}@{law_hash}|{numerical_flux}|nodal-strong|tri|N{order}|{precision}|{role}|2^{bucket}dof|cg{CODEGEN_VERSION}")
}

/// The key of one modal (seed 001 weak form) tuning result; `role` is `rhs`.
pub fn modal_key(law: &str, law_hash: &str, numerical_flux: &str, order: usize, precision: &str, dofs: u64) -> String {
    let bucket = (dofs.max(1) as f64).log2().round() as u32;
    format!(
        "{law}@{law_hash}|{numerical_flux}|modal-weak|tri|N{order}|{precision}|rhs|2^{bucket}dof|cg{CODEGEN_VERSION}"
    )
}

/// The key of one tetrahedral (seed 002) tuning result: the winning strategy of an AB3 step.
pub fn tet_key(law: &str, law_hash: &str, order: usize, precision: &str, nodes: u64) -> String {
    let bucket = (nodes.max(1) as f64).log2().round() as u32;
    format!("{law}@{law_hash}|upwind|nodal-strong|tet|N{order}|{precision}|ab3-step|2^{bucket}dof|cg{CODEGEN_VERSION}")
}

/// The stored entry whose key equals `key` except for the problem-size bucket (`2^Ndof`), with the nearest
/// bucket; ties go to the smaller size.
pub fn nearest_size<'a>(entries: &'a BTreeMap<String, Entry>, key: &str) -> Option<&'a Entry> {
    fn split(k: &str) -> Option<(&str, i64, &str)> {
        let (head, rest) = k.split_once("|2^")?;
        let (bucket, tail) = rest.split_once("dof|")?;
        Some((head, bucket.parse().ok()?, tail))
    }
    let (head, target, tail) = split(key)?;
    entries
        .iter()
        .filter_map(|(k, e)| split(k).filter(|(h, _, t)| *h == head && *t == tail).map(|(_, b, _)| (b, e)))
        .min_by_key(|(b, _)| ((b - target).abs(), *b))
        .map(|(_, e)| e)
}

/// File name of a device's results.
pub fn file_name(device: &DeviceFingerprint) -> String {
    let slug: String = format!("{}-{}-{}", device.backend, device.name, device.architecture)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    let mut out = String::new();
    for c in slug.chars() {
        if !(c == '-' && out.ends_with('-')) {
            out.push(c);
        }
    }
    format!("{}.json", out.trim_matches('-'))
}

/// The user cache directory for new results.
pub fn user_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("DG_CACHE_DIR") {
        return PathBuf::from(d).join("tuning");
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("dg").join("tuning")
}

/// Reads one device file; `Ok(None)` when it does not exist.
pub fn read_file(path: &Path) -> Result<Option<DeviceFile>, DbError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(DbError::Io { path: path.to_path_buf(), source }),
    };
    let file: DeviceFile = serde_json::from_str(&text)
        .map_err(|e| DbError::Corrupt { path: path.to_path_buf(), message: e.to_string() })?;
    if file.schema != SCHEMA_VERSION {
        return Err(DbError::Corrupt {
            path: path.to_path_buf(),
            message: format!("schema {} (this dg reads {SCHEMA_VERSION})", file.schema),
        });
    }
    Ok(Some(file))
}

/// The results visible to this program for a device: shipped files first, the user's override them.
/// Corrupt files produce a warning (returned) and are skipped.
pub fn lookup_all(
    dirs: &[PathBuf],
    device: &DeviceFingerprint,
) -> (BTreeMap<String, Entry>, Option<Ceilings>, Vec<String>) {
    let mut entries = BTreeMap::new();
    let mut ceilings = None;
    let mut warnings = Vec::new();
    for dir in dirs {
        let path = dir.join(file_name(device));
        match read_file(&path) {
            Ok(Some(file)) if file.device.key() == device.key() => {
                entries.extend(file.entries);
                ceilings = file.ceilings.or(ceilings);
            }
            Ok(_) => {}
            Err(e) => warnings.push(format!("warning: {e}; ignoring it")),
        }
    }
    (entries, ceilings, warnings)
}

/// Adds entries (and ceilings) to the device file in `dir`, under an exclusive lock, merging with what other
/// processes wrote meanwhile. A corrupt existing file is renamed to `*.corrupt` first.
pub fn merge_into(
    dir: &Path,
    device: &DeviceFingerprint,
    new: BTreeMap<String, Entry>,
    ceilings: Option<Ceilings>,
) -> Result<PathBuf, DbError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DbError::Io { path: path.clone(), source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(file_name(device));
    let lock_path = path.with_extension("lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io(&lock_path))?;
    lock.lock().map_err(io(&lock_path))?;
    let mut file = match read_file(&path) {
        Ok(Some(f)) => f,
        Ok(None) => {
            DeviceFile { schema: SCHEMA_VERSION, device: device.clone(), ceilings: None, entries: BTreeMap::new() }
        }
        Err(DbError::Corrupt { .. }) => {
            let aside = path.with_extension(format!("corrupt-{}", std::process::id()));
            std::fs::rename(&path, &aside).map_err(io(&path))?;
            DeviceFile { schema: SCHEMA_VERSION, device: device.clone(), ceilings: None, entries: BTreeMap::new() }
        }
        Err(e) => return Err(e),
    };
    file.entries.extend(new);
    if ceilings.is_some() {
        file.ceilings = ceilings;
    }
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| DbError::Corrupt { path: path.clone(), message: e.to_string() })?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    drop(lock);
    Ok(path)
}
