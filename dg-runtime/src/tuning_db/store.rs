//! Device files of the tuning database: their format, reading them from every source (the shipped files compiled
//! into the program, the user cache directory), lookups with the nearest-size and driver rules, and durable,
//! locked merges.

use super::key::TuningKey;
use crate::backend::DeviceFingerprint;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Version of the file format.
pub const SCHEMA_VERSION: u32 = 1;

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

/// One candidate's measurement. Its `verified` flag is set only from a verification outcome
/// ([`Candidate::checked`]); a file's candidates keep what the verifying run wrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// Variant SPEC.
    pub variant: String,
    /// Whether it passed verification.
    verified: bool,
    /// Median seconds per right-hand side (NaN-free: absent if not timed).
    pub median_s: Option<f64>,
    /// Relative spread (p90 − p10) / median.
    pub spread: Option<f64>,
    /// Why it was not timed, if it was not.
    pub note: Option<String>,
}

impl Candidate {
    /// A candidate as its verification left it: verified exactly when `check` passed; timed only if it passed
    /// (a timing given for a failed check is dropped and the failure noted).
    pub fn checked(check: &crate::verify::VerifyOutcome, timing: Option<(f64, f64)>, note: Option<String>) -> Self {
        let failure = (!check.passed).then(|| {
            check
                .error
                .clone()
                .unwrap_or_else(|| format!("verification failed: relative error {:e}", check.relative_error))
        });
        let timing = timing.filter(|_| check.passed);
        Self {
            variant: check.variant.clone(),
            verified: check.passed,
            median_s: timing.map(|t| t.0),
            spread: timing.map(|t| t.1),
            note: failure.or(note),
        }
    }

    /// Whether the run that wrote it verified it against the CPU reference.
    pub fn verified(&self) -> bool {
        self.verified
    }
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
    /// The driver (and compiler) it was tuned under, as the device fingerprint names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
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
    /// Peak f64 GFLOP/s (fused multiply-add chains on the FP64 pipe).
    pub gflops_f64: f64,
    /// Library GEMM throughput in f32 (cuBLAS SGEMM on a large square problem), GFLOP/s; the ceiling of GEMM steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_gflops_f32: Option<f64>,
    /// Library GEMM throughput in f64 (cuBLAS DGEMM, which runs on the FP64 tensor cores of recent GPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_gflops_f64: Option<f64>,
    /// Tensor-core throughput of `mma.sync.m16n8k8` with tf32 operands (chains of the instruction alone),
    /// GFLOP/s; measured on CUDA devices of compute capability 8.0 and later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mma_tf32_gflops: Option<f64>,
    /// Tensor-core throughput of `mma.sync.m8n8k4` with double operands (chains of the instruction alone), GFLOP/s;
    /// measured on CUDA devices of compute capability 8.0 and later (on 9.0 half the rate of the larger f64 shapes
    /// the library DGEMM runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mma_f64_m8n8k4_gflops: Option<f64>,
}

/// The arithmetic units a kernel's flops run on, which set its roofline's ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ArithmeticUnits {
    /// The FMA pipe of the precision (generated kernels).
    Fma,
    /// The library GEMM (cuBLAS; DGEMM runs on the FP64 tensor cores of recent GPUs), as measured.
    LibraryGemm,
    /// f32 products as three tf32 tensor-core products of split operands: a third of the measured tf32 `mma` rate
    /// in f32 flops.
    SplitTf32,
    /// f64 products on the FP64 tensor cores, at the best rate measured on them: the library DGEMM's or the
    /// `m8n8k4` chain's, whichever is higher (a kernel issuing a slower instruction shape is still measured
    /// against what the units can do).
    F64TensorCores,
}

impl Ceilings {
    /// Ceilings of one GB/s and one GFLOP/s, nothing else measured: for tests.
    #[cfg(test)]
    pub(crate) fn units() -> Self {
        Self {
            bandwidth_gbs: 1.0,
            gflops_f32: 1.0,
            gflops_f64: 1.0,
            gemm_gflops_f32: None,
            gemm_gflops_f64: None,
            mma_tf32_gflops: None,
            mma_f64_m8n8k4_gflops: None,
        }
    }

    /// The arithmetic ceiling of kernels of a precision (`f32` or `f64`) on `units`: the FMA pipe, the library
    /// GEMM, a third of the tf32 tensor cores, or the FP64 tensor cores' best measured rate (each falling back to
    /// the FMA pipe where it was not measured, and never below it).
    pub fn peak_gflops(&self, double: bool, units: ArithmeticUnits) -> f64 {
        let fma = if double { self.gflops_f64 } else { self.gflops_f32 };
        let other = match units {
            ArithmeticUnits::Fma => None,
            ArithmeticUnits::LibraryGemm => {
                if double {
                    self.gemm_gflops_f64
                } else {
                    self.gemm_gflops_f32
                }
            }
            ArithmeticUnits::SplitTf32 => self.mma_tf32_gflops.map(|t| t / 3.0),
            ArithmeticUnits::F64TensorCores if double => {
                [self.gemm_gflops_f64, self.mma_f64_m8n8k4_gflops].into_iter().flatten().reduce(f64::max)
            }
            ArithmeticUnits::F64TensorCores => None,
        };
        other.unwrap_or(fma).max(fma)
    }

    /// Percent of the roofline bound min(peak, bandwidth × intensity) reached by `seconds` for `flops` and
    /// `bytes`, at most 100: a kernel cannot beat the units it runs on, so a higher raw figure means the measured
    /// ceilings were low ([`Ceilings::exceeded_by`] reports it).
    pub fn roofline_percent(&self, flops: f64, bytes: f64, seconds: f64, double: bool, units: ArithmeticUnits) -> f64 {
        self.raw_roofline_percent(flops, bytes, seconds, double, units).min(100.0)
    }

    /// The raw roofline percentage when it is above 100 (the ceilings were measured too low), else `None`.
    pub fn exceeded_by(
        &self,
        flops: f64,
        bytes: f64,
        seconds: f64,
        double: bool,
        units: ArithmeticUnits,
    ) -> Option<f64> {
        Some(self.raw_roofline_percent(flops, bytes, seconds, double, units)).filter(|&p| p > 100.0)
    }

    fn raw_roofline_percent(&self, flops: f64, bytes: f64, seconds: f64, double: bool, units: ArithmeticUnits) -> f64 {
        let bound = (flops / (self.peak_gflops(double, units) * 1e9)).max(bytes / (self.bandwidth_gbs * 1e9));
        100.0 * bound / seconds
    }
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

/// File name of a device's results: backend, name and architecture (the driver is not part of it: results
/// survive a driver update, see [`DeviceDb`]).
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

/// The device identity a file is for, the driver left out.
fn same_device(a: &DeviceFingerprint, b: &DeviceFingerprint) -> bool {
    (&a.backend, &a.vendor, &a.name, &a.architecture) == (&b.backend, &b.vendor, &b.name, &b.architecture)
}

/// Whether `other` is another CUDA device of `device`'s architecture (compute capability): the same instruction
/// set, so a winner tuned there is a valid, verified choice here, though not one timed here. OpenCL architectures
/// (a platform and a device type) say too little about the hardware to borrow across names.
fn same_architecture(device: &DeviceFingerprint, other: &DeviceFingerprint) -> bool {
    device.backend == "cuda"
        && (&other.backend, &other.vendor, &other.architecture)
            == (&device.backend, &device.vendor, &device.architecture)
        && other.name != device.name
}

/// The directory `--db` chose for this process, if any.
static USER_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Makes `dir` this process's user database: every later [`user_dir`] (reads and writes of every command)
/// returns it. The first call wins; `false` when a directory was already set.
pub fn set_user_dir(dir: PathBuf) -> bool {
    USER_DIR.set(dir).is_ok()
}

/// The user database directory for new results: the one [`set_user_dir`] chose (`dg --db DIR`), else
/// `$DG_CACHE_DIR/tuning`, else the user's cache directory.
pub fn user_dir() -> PathBuf {
    if let Some(dir) = USER_DIR.get() {
        return dir.clone();
    }
    cache_dir("tuning")
}

/// `sub` in dg's cache directory: `$DG_CACHE_DIR/sub`, else the user's cache directory's `dg/sub` (never beside
/// a `--db` directory: `dg autotune --db tuning-db` writes only the database there).
pub fn cache_dir(sub: &str) -> PathBuf {
    if let Some(d) = std::env::var_os("DG_CACHE_DIR") {
        return PathBuf::from(d).join(sub);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("dg").join(sub)
}

/// Parses a device file's text; `origin` names it in errors.
pub fn parse_file(text: &str, origin: &Path) -> Result<DeviceFile, DbError> {
    let file: DeviceFile = serde_json::from_str(text)
        .map_err(|e| DbError::Corrupt { path: origin.to_path_buf(), message: e.to_string() })?;
    if file.schema != SCHEMA_VERSION {
        return Err(DbError::Corrupt {
            path: origin.to_path_buf(),
            message: format!("schema {} (this dg reads {SCHEMA_VERSION})", file.schema),
        });
    }
    Ok(file)
}

/// Reads one device file; `Ok(None)` when it does not exist.
pub fn read_file(path: &Path) -> Result<Option<DeviceFile>, DbError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(DbError::Io { path: path.to_path_buf(), source }),
    };
    parse_file(&text, path).map(Some)
}

/// Where tuning results come from, in increasing precedence.
#[derive(Debug, Clone)]
pub enum DbSource {
    /// A file compiled into the program (the shipped `tuning-db/`): its name and text.
    Shipped {
        /// File name.
        name: &'static str,
        /// Its JSON text.
        text: &'static str,
    },
    /// A directory of device files (the user cache directory).
    Dir(PathBuf),
}

impl DbSource {
    /// A readable name: `shipped:<file>` or the file's path.
    fn describe(&self, file: &str) -> String {
        match self {
            DbSource::Shipped { name, .. } => format!("shipped:{name}"),
            DbSource::Dir(dir) => dir.join(file).display().to_string(),
        }
    }

    /// Every device file of this source: (where, parsed file or error).
    pub fn files(&self) -> Vec<(String, Result<DeviceFile, DbError>)> {
        self.files_except(None)
    }

    /// Every device file of this source but the one named `skip` (not read at all): (where, parsed file or error).
    fn files_except(&self, skip: Option<&str>) -> Vec<(String, Result<DeviceFile, DbError>)> {
        match self {
            DbSource::Shipped { name, .. } if skip == Some(*name) => Vec::new(),
            DbSource::Shipped { name, text } => {
                vec![(self.describe(name), parse_file(text, Path::new(&format!("shipped:{name}"))))]
            }
            DbSource::Dir(dir) => {
                let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
                let mut paths: Vec<PathBuf> = read
                    .flatten()
                    .map(|f| f.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .filter(|p| skip.is_none_or(|skip| p.file_name().is_none_or(|n| n != skip)))
                    .collect();
                paths.sort();
                paths
                    .into_iter()
                    .filter_map(|p| match read_file(&p) {
                        Ok(Some(f)) => Some((p.display().to_string(), Ok(f))),
                        Ok(None) => None,
                        Err(e) => Some((p.display().to_string(), Err(e))),
                    })
                    .collect()
            }
        }
    }

    /// The file of `device` in this source, if there is one.
    fn file_for(&self, device: &DeviceFingerprint) -> (String, Result<Option<DeviceFile>, DbError>) {
        let name = file_name(device);
        match self {
            DbSource::Shipped { name: shipped, text } if *shipped == name => {
                (self.describe(shipped), parse_file(text, Path::new(&format!("shipped:{shipped}"))).map(Some))
            }
            DbSource::Shipped { name: shipped, .. } => (self.describe(shipped), Ok(None)),
            DbSource::Dir(dir) => (self.describe(&name), read_file(&dir.join(&name))),
        }
    }
}

/// An entry found for a key, and how well it matches.
#[derive(Debug, Clone)]
pub struct Found<'a> {
    /// The stored key.
    pub key: TuningKey,
    /// The entry.
    pub entry: &'a Entry,
    /// Where it was read (`shipped:<file>` or a path).
    pub origin: &'a str,
    /// Whether the problem size matches (else it is the nearest stored size).
    pub exact_size: bool,
    /// The device it was tuned on when that is another device of this one's architecture
    /// ([`DeviceDb::load_same_architecture`]); `None` for this device's own results.
    pub tuned_on: Option<&'a str>,
}

impl Found<'_> {
    /// A sentence on what was taken: the key, the size match, the driver it was tuned under when it differs from
    /// `driver`.
    pub fn describe(&self, driver: &str) -> String {
        let mut s = format!("{} from {} ({})", self.entry.winner, self.origin, self.key);
        if !self.exact_size {
            s.push_str(&format!("; nearest stored size, tuned on {} DOFs", self.entry.dofs));
        }
        if let Some(other) = self.tuned_on {
            s.push_str(&format!(
                "; tuned on {other}, a device of this one's architecture, not on this device: `dg autotune` tunes here"
            ));
            return s;
        }
        if let Some(d) = self.entry.driver.as_deref().filter(|d| *d != driver) {
            s.push_str(&format!("; tuned under {d}, this is {driver}: `dg autotune` re-tunes"));
        }
        s
    }
}

/// The results visible to this program for one device, from every source (later sources override earlier ones
/// key by key).
///
/// Across driver updates: files are per device (backend, vendor, name, architecture), and each entry records the
/// driver it was tuned under. Lookups take entries of any driver and say so when it differs from the current one
/// ([`Found::describe`]); a re-tune replaces them. Results of other generated code (another code fingerprint in
/// the key) are never taken.
#[derive(Debug, Clone, Default)]
pub struct DeviceDb {
    entries: BTreeMap<TuningKey, (Entry, usize)>,
    origins: Vec<String>,
    /// Per origin, the device its file is for when that is not the device loaded for
    /// ([`DeviceDb::load_same_architecture`]).
    tuned_on: Vec<Option<String>>,
    /// Stored keys that do not parse (an older dg), by origin.
    pub unreadable_keys: Vec<(String, String)>,
    /// Measured ceilings (the last source that has them).
    pub ceilings: Option<Ceilings>,
    /// Files that could not be read, one sentence each.
    pub warnings: Vec<String>,
}

impl DeviceDb {
    /// Reads `device`'s file from each source. A file that cannot be read is a warning, never an error.
    pub fn load(sources: &[DbSource], device: &DeviceFingerprint) -> Self {
        let mut db = DeviceDb::default();
        for source in sources {
            let (origin, file) = source.file_for(device);
            match file {
                Ok(Some(file)) if same_device(&file.device, device) => db.add(origin, None, file),
                Ok(_) => {}
                Err(e) => db.warnings.push(format!("warning: {e}; ignoring it")),
            }
        }
        db
    }

    /// The results stored for *other* CUDA devices of `device`'s architecture (an H200's for an H100: both
    /// `sm_90`), from every source, later sources overriding earlier ones key by key; each [`Found`] names the
    /// device it was tuned on. Where a device has no result of its own for a key, a run takes one of these
    /// instead of tuning on first use. Empty for OpenCL devices. Unreadable files are skipped here (the device's
    /// own [`DeviceDb::load`] reports its file; another device's is reported by `dg db list`).
    pub fn load_same_architecture(sources: &[DbSource], device: &DeviceFingerprint) -> Self {
        let mut db = DeviceDb::default();
        if device.backend != "cuda" {
            return db;
        }
        // (the device's own file, which `load` reads, is not read again)
        let own = file_name(device);
        for source in sources {
            for (origin, file) in source.files_except(Some(&own)) {
                match file {
                    Ok(file) if same_architecture(device, &file.device) => {
                        let name = file.device.name.clone();
                        db.add(origin, Some(name), file);
                    }
                    _ => {}
                }
            }
        }
        db
    }

    /// Adds a file's entries (overriding earlier ones key by key) and, for the device's own file, its ceilings
    /// (another device's ceilings are not this one's).
    fn add(&mut self, origin: String, tuned_on: Option<String>, file: DeviceFile) {
        let slot = self.origins.len();
        self.origins.push(origin.clone());
        self.tuned_on.push(tuned_on);
        for (text, entry) in file.entries {
            match text.parse::<TuningKey>() {
                Ok(key) => {
                    self.entries.insert(key, (entry, slot));
                }
                Err(_) => self.unreadable_keys.push((origin.clone(), text)),
            }
        }
        if self.tuned_on[slot].is_none() {
            self.ceilings = file.ceilings.or(self.ceilings.take());
        }
    }

    /// The entry of `key`, else the same key's entry at the nearest problem size (ties go to the smaller size).
    pub fn find(&self, key: &TuningKey) -> Option<Found<'_>> {
        if let Some((k, (e, slot))) = self.entries.get_key_value(key) {
            return Some(self.found(k, e, *slot, true));
        }
        self.entries
            .iter()
            .filter(|(k, _)| key.same_but_size(k))
            .min_by_key(|(k, _)| ((k.size_bucket as i64 - key.size_bucket as i64).abs(), k.size_bucket))
            .map(|(k, (e, slot))| self.found(k, e, *slot, false))
    }

    fn found<'a>(&'a self, key: &TuningKey, entry: &'a Entry, slot: usize, exact_size: bool) -> Found<'a> {
        Found {
            key: key.clone(),
            entry,
            origin: self.origins[slot].as_str(),
            exact_size,
            tuned_on: self.tuned_on.get(slot).and_then(|d| d.as_deref()),
        }
    }

    /// Entries of the same law, flux, order and precision measured on other generated code (why a lookup missed).
    pub fn stale_for(&self, key: &TuningKey) -> usize {
        self.entries.keys().filter(|k| key.same_but_code(k) && k.code != key.code).count()
    }

    /// The winners stored for keys related to `key` — the same formulation, element and precision, any law, flux,
    /// order, operation, size or generated code — most related first (nearest order, then the same law, the same
    /// operation, the same generated code, the nearest size), each variant once, at most `limit`: where a search
    /// for a key without a result can start (a run's tuning on first use).
    pub fn related_winners(&self, key: &TuningKey, limit: usize) -> Vec<String> {
        let mut related: Vec<(&TuningKey, &Entry)> = self
            .entries
            .iter()
            .filter(|(k, _)| {
                k.formulation == key.formulation && k.element == key.element && k.precision == key.precision
            })
            .map(|(k, (e, _))| (k, e))
            .collect();
        related.sort_by_key(|(k, _)| {
            (
                k.order.abs_diff(key.order),
                (k.law != key.law || k.law_hash != key.law_hash || k.numerical_flux != key.numerical_flux),
                k.role != key.role,
                k.code != key.code,
                k.size_bucket.abs_diff(key.size_bucket),
            )
        });
        let mut winners: Vec<String> = Vec::new();
        for (_, entry) in related {
            if winners.len() == limit {
                break;
            }
            if !winners.contains(&entry.winner) {
                winners.push(entry.winner.clone());
            }
        }
        winners
    }

    /// Where a search for `key` starts on a device whose own results are `self`: the winners related to `key`
    /// among them ([`DeviceDb::related_winners`]), then those among the results of other devices of its
    /// architecture (`same_architecture`, [`DeviceDb::load_same_architecture`]; the winner of `key` itself first
    /// when one holds it), each variant once, at most `limit` from each.
    pub fn seeds(&self, same_architecture: &DeviceDb, key: &TuningKey, limit: usize) -> Vec<String> {
        let mut seeds = self.related_winners(key, limit);
        for w in same_architecture.related_winners(key, limit) {
            if !seeds.contains(&w) {
                seeds.push(w);
            }
        }
        seeds
    }

    /// Every entry with its origin.
    pub fn iter(&self) -> impl Iterator<Item = (&TuningKey, &Entry, &str)> {
        self.entries.iter().map(|(k, (e, slot))| (k, e, self.origins[*slot].as_str()))
    }

    /// The exact entry of a key.
    pub fn get(&self, key: &TuningKey) -> Option<&Entry> {
        self.entries.get(key).map(|(e, _)| e)
    }
}

/// A device's results ([`DeviceDb::load`]) and, read on first need, those of the other CUDA devices of its
/// architecture ([`DeviceDb::load_same_architecture`]): where a run, a bench and a search look for winners.
#[derive(Debug)]
pub struct DeviceResults {
    /// The device's own results.
    pub own: DeviceDb,
    same_architecture: std::sync::OnceLock<DeviceDb>,
    sources: Vec<DbSource>,
    device: DeviceFingerprint,
}

impl DeviceResults {
    /// Reads `device`'s own files from `sources` (the other devices' when first needed).
    pub fn load(sources: Vec<DbSource>, device: &DeviceFingerprint) -> Self {
        let own = DeviceDb::load(&sources, device);
        Self { own, same_architecture: std::sync::OnceLock::new(), sources, device: device.clone() }
    }

    /// The results of the other CUDA devices of this one's architecture.
    pub fn same_architecture(&self) -> &DeviceDb {
        self.same_architecture.get_or_init(|| DeviceDb::load_same_architecture(&self.sources, &self.device))
    }

    /// The device's own entry of `key` (at the nearest stored size when the exact one is missing), else the one
    /// another device of its architecture holds ([`Found::tuned_on`] names it).
    pub fn find(&self, key: &TuningKey) -> Option<Found<'_>> {
        self.own.find(key).or_else(|| self.same_architecture().find(key))
    }

    /// Where a search for `key` starts ([`DeviceDb::seeds`]).
    pub fn seeds(&self, key: &TuningKey, limit: usize) -> Vec<String> {
        self.own.seeds(self.same_architecture(), key, limit)
    }
}

/// Adds entries (and ceilings) to the device file in `dir`, under an exclusive lock, merging with what other
/// processes wrote meanwhile; entries without a driver are stamped with `device`'s, and the file takes `device`'s
/// fingerprint (the current driver). A corrupt existing file is renamed to `*.corrupt-PID` first (and said so in
/// the returned notes); a file of another schema is left in place and the write refused. The new file is written
/// to a temporary name, flushed to disk, renamed, and the directory flushed, so that a crash leaves the old file
/// or the new one.
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
    let empty =
        || DeviceFile { schema: SCHEMA_VERSION, device: device.clone(), ceilings: None, entries: BTreeMap::new() };
    let mut file = match read_file(&path) {
        Ok(Some(f)) => f,
        Ok(None) => empty(),
        Err(DbError::Corrupt { message, .. }) if message.starts_with("schema ") => {
            return Err(DbError::Corrupt {
                path: path.clone(),
                message: format!("{message}: written by another dg version; left in place, nothing written"),
            });
        }
        Err(DbError::Corrupt { message, .. }) => {
            let aside = path.with_extension(format!("corrupt-{}", std::process::id()));
            std::fs::rename(&path, &aside).map_err(io(&path))?;
            eprintln!("warning: {} was not valid ({message}); kept as {}", path.display(), aside.display());
            empty()
        }
        Err(e) => return Err(e),
    };
    for (key, mut entry) in new {
        entry.driver.get_or_insert_with(|| device.driver.clone());
        file.entries.insert(key, entry);
    }
    file.device = device.clone();
    if ceilings.is_some() {
        file.ceilings = ceilings;
    }
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| DbError::Corrupt { path: path.clone(), message: e.to_string() })?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    write_durably(&tmp, text.as_bytes()).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    sync_dir(dir).map_err(io(dir))?;
    drop(lock);
    Ok(path)
}

/// Writes `bytes` to `path` and flushes them to the disk before returning.
pub fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Flushes a directory's entries (a rename inside it) to the disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{
        file_name, ArithmeticUnits, Ceilings, DbSource, DeviceDb, DeviceFile, DeviceResults, Entry, SCHEMA_VERSION,
    };
    use crate::backend::DeviceFingerprint;
    use crate::tuning_db::TuningKey;

    fn entry(winner: &str) -> Entry {
        Entry {
            winner: winner.into(),
            median_s: 1e-3,
            dofs: 1000,
            gflops: 1.0,
            gbs: 1.0,
            roofline_percent: None,
            candidates: Vec::new(),
            date: "2026-11-30".into(),
            driver: None,
            strategy: "exhaustive".into(),
        }
    }

    #[test]
    fn related_winners_come_nearest_order_first_then_the_same_law_operation_and_code() {
        let key: TuningKey = "maxwell2d@aa|upwind|nodal-strong|tri|N5|f32|stage|2^24dof|cg111".parse().unwrap();
        let stored = [
            // another formulation and another precision: never related
            ("maxwell2d@aa|upwind|modal|tri|N5|f32|stage|2^24dof|cg111", "other-formulation"),
            ("maxwell2d@aa|upwind|nodal-strong|tri|N5|f64|stage|2^24dof|cg111", "other-precision"),
            // two orders away
            ("maxwell2d@aa|upwind|nodal-strong|tri|N7|f32|stage|2^24dof|cg111", "two-orders-away"),
            // one order away: another law, then the same law's other operation, then the same law's and operation's
            ("acoustics2d@bb|upwind|nodal-strong|tri|N4|f32|stage|2^24dof|cg111", "other-law"),
            ("maxwell2d@aa|upwind|nodal-strong|tri|N6|f32|rhs|2^24dof|cg111", "other-operation"),
            ("maxwell2d@aa|upwind|nodal-strong|tri|N4|f32|stage|2^20dof|cg111", "same-law-and-operation"),
            // the same order, older generated code, and a duplicate winner of a less related key
            ("maxwell2d@aa|upwind|nodal-strong|tri|N5|f32|stage|2^24dof|cg000", "older-code"),
            ("euler2d@cc|hllc|nodal-strong|tri|N5|f32|stage|2^24dof|cg111", "older-code"),
        ];
        let db = DeviceDb {
            entries: stored.iter().map(|(k, w)| (k.parse().unwrap(), (entry(w), 0))).collect(),
            origins: vec!["test".into()],
            ..DeviceDb::default()
        };
        let all = db.related_winners(&key, 10);
        assert_eq!(
            all,
            ["older-code", "same-law-and-operation", "other-operation", "other-law", "two-orders-away"],
            "nearest order, then the same law, operation and code; each winner once"
        );
        assert_eq!(db.related_winners(&key, 2), ["older-code", "same-law-and-operation"]);
        assert!(DeviceDb::default().related_winners(&key, 4).is_empty());
    }

    fn gpu(backend: &str, name: &str, architecture: &str) -> DeviceFingerprint {
        DeviceFingerprint {
            backend: backend.into(),
            vendor: "NVIDIA Corporation".into(),
            name: name.into(),
            architecture: architecture.into(),
            driver: "13.0".into(),
            memory_bytes: 1 << 36,
            selector: format!("{backend}:0"),
            is_gpu: true,
        }
    }

    /// A shipped source holding `device`'s file with one entry per (key, winner).
    fn shipped(device: &DeviceFingerprint, entries: &[(&str, &str)]) -> DbSource {
        let file = DeviceFile {
            schema: SCHEMA_VERSION,
            device: device.clone(),
            ceilings: Some(Ceilings::units()),
            entries: entries.iter().map(|(k, w)| (k.to_string(), entry(w))).collect(),
        };
        let text: &'static str = Box::leak(serde_json::to_string(&file).unwrap().into_boxed_str());
        let name: &'static str = Box::leak(file_name(device).into_boxed_str());
        DbSource::Shipped { name, text }
    }

    #[test]
    fn a_device_without_a_result_borrows_one_of_its_architecture_and_says_where_it_was_tuned() {
        let key = "maxwell2d@aa|upwind|nodal-strong|tri|N4|f32|stage|2^24dof|cg111";
        let only_a100 = "maxwell2d@aa|upwind|nodal-strong|tri|N5|f32|stage|2^24dof|cg111";
        let h100 = gpu("cuda", "NVIDIA H100 80GB HBM3", "sm_90");
        let h200 = gpu("cuda", "NVIDIA H200", "sm_90");
        let a100 = gpu("cuda", "NVIDIA A100-SXM4-80GB", "sm_80");
        let sources = [
            // the H100's own file holds the key for older generated code only
            shipped(&h100, &[("maxwell2d@aa|upwind|nodal-strong|tri|N4|f32|stage|2^24dof|cg000", "stale")]),
            shipped(&h200, &[(key, "h200-winner")]),
            shipped(&a100, &[(key, "a100-winner"), (only_a100, "a100-only")]),
        ];
        let key: TuningKey = key.parse().unwrap();
        let own = DeviceDb::load(&sources, &h100);
        assert!(own.find(&key).is_none(), "another generated code's result is never taken");
        let same = DeviceDb::load_same_architecture(&sources, &h100);
        let found = same.find(&key).expect("the H200's result for an H100");
        assert_eq!(found.entry.winner, "h200-winner", "the sm_90 device's, not the sm_80 one's");
        assert_eq!(found.tuned_on, Some("NVIDIA H200"));
        assert!(found.describe("13.0").contains("tuned on NVIDIA H200"), "{}", found.describe("13.0"));
        assert!(same.find(&only_a100.parse().unwrap()).is_none(), "another architecture is never borrowed from");
        assert!(same.ceilings.is_none(), "another device's ceilings are not this one's");
        // a search on the H100 starts from its own related winners and the H200's, the H200's for the key first
        let seeds = own.seeds(&same, &key, 4);
        assert_eq!(seeds, ["stale", "h200-winner"]);
        // the device's own results first, the other device's where it has none
        let results = DeviceResults::load(sources.to_vec(), &h100);
        assert_eq!(
            results.find(&key).map(|f| (f.entry.winner.as_str(), f.tuned_on)),
            Some(("h200-winner", Some("NVIDIA H200")))
        );
        let results = DeviceResults::load(sources.to_vec(), &h200);
        assert_eq!(results.find(&key).map(|f| (f.entry.winner.as_str(), f.tuned_on)), Some(("h200-winner", None)));
        // the device's own file is not "another device", and its results carry no `tuned_on`
        let on_h200 = DeviceDb::load(&sources, &h200);
        assert_eq!(on_h200.find(&key).map(|f| f.tuned_on), Some(None));
        assert!(DeviceDb::load_same_architecture(&sources, &h200).find(&key).is_none());
        // OpenCL devices borrow nothing, even from a file of the same architecture string
        let pocl = |name: &str| gpu("opencl", name, "Portable Computing Language CPU");
        let sources = [shipped(&pocl("cpu-a"), &[(&key.to_string(), "pocl-a")])];
        assert!(DeviceDb::load_same_architecture(&sources, &pocl("cpu-b")).find(&key).is_none());
    }

    #[test]
    fn a_directory_lends_the_other_devices_files_and_not_this_ones() {
        let key = "maxwell2d@aa|upwind|nodal-strong|tri|N4|f32|stage|2^24dof|cg111";
        let h100 = gpu("cuda", "NVIDIA H100 80GB HBM3", "sm_90");
        let h200 = gpu("cuda", "NVIDIA H200", "sm_90");
        let dir = std::env::temp_dir().join(format!("dg-store-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (device, winner) in [(&h100, "h100-winner"), (&h200, "h200-winner")] {
            let DbSource::Shipped { name, text } = shipped(device, &[(key, winner)]) else { unreachable!() };
            std::fs::write(dir.join(name), text).unwrap();
        }
        std::fs::write(dir.join("notes.json"), "{ not a database").unwrap();
        let sources = [DbSource::Dir(dir.clone())];
        let key: TuningKey = key.parse().unwrap();
        let lent = DeviceDb::load_same_architecture(&sources, &h200);
        let found = lent.find(&key).map(|f| (f.entry.winner.clone(), f.tuned_on.map(str::to_string)));
        let own = DeviceDb::load(&sources, &h200).find(&key).map(|f| f.entry.winner.clone());
        let h100_lent = DeviceDb::load_same_architecture(&sources, &h100).find(&key).map(|f| f.entry.winner.clone());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found, Some(("h100-winner".to_string(), Some("NVIDIA H100 80GB HBM3".to_string()))));
        assert_eq!(own.as_deref(), Some("h200-winner"));
        assert_eq!(h100_lent.as_deref(), Some("h200-winner"));
    }

    #[test]
    fn a_kernel_faster_than_the_ceilings_is_capped_and_reported() {
        let c = Ceilings {
            bandwidth_gbs: 1.0,
            gflops_f32: 10.0,
            gflops_f64: 5.0,
            gemm_gflops_f32: None,
            gemm_gflops_f64: None,
            mma_tf32_gflops: None,
            mma_f64_m8n8k4_gflops: None,
        };
        // 2 GB in one second against a 1 GB/s ceiling: 200% raw
        assert_eq!(c.roofline_percent(1e9, 2e9, 1.0, false, ArithmeticUnits::Fma), 100.0);
        assert_eq!(c.exceeded_by(1e9, 2e9, 1.0, false, ArithmeticUnits::Fma), Some(200.0));
        // half the bandwidth bound: 50%, nothing exceeded
        assert!((c.roofline_percent(1e9, 0.5e9, 1.0, false, ArithmeticUnits::Fma) - 50.0).abs() < 1e-12);
        assert_eq!(c.exceeded_by(1e9, 0.5e9, 1.0, false, ArithmeticUnits::Fma), None);
    }

    #[test]
    fn each_unit_has_its_ceiling_and_none_is_below_the_fma_pipe() {
        let mut c = Ceilings {
            bandwidth_gbs: 1e6,
            gflops_f32: 60.0,
            gflops_f64: 30.0,
            gemm_gflops_f32: Some(50.0),
            gemm_gflops_f64: Some(60.0),
            mma_tf32_gflops: Some(300.0),
            mma_f64_m8n8k4_gflops: Some(45.0),
        };
        assert_eq!(c.peak_gflops(false, ArithmeticUnits::Fma), 60.0);
        assert_eq!(c.peak_gflops(true, ArithmeticUnits::LibraryGemm), 60.0);
        // SGEMM below the FMA pipe: the pipe
        assert_eq!(c.peak_gflops(false, ArithmeticUnits::LibraryGemm), 60.0);
        // three tf32 products per f32 product
        assert_eq!(c.peak_gflops(false, ArithmeticUnits::SplitTf32), 100.0);
        c.mma_tf32_gflops = None;
        assert_eq!(c.peak_gflops(false, ArithmeticUnits::SplitTf32), 60.0);
        // the FP64 tensor cores at their best measured rate: the library's here, not the slower m8n8k4 chain's
        assert_eq!(c.peak_gflops(true, ArithmeticUnits::F64TensorCores), 60.0);
        c.gemm_gflops_f64 = None;
        assert_eq!(c.peak_gflops(true, ArithmeticUnits::F64TensorCores), 45.0);
        c.mma_f64_m8n8k4_gflops = Some(20.0);
        assert_eq!(c.peak_gflops(true, ArithmeticUnits::F64TensorCores), 30.0);
        c.gemm_gflops_f64 = Some(50.0);
        assert_eq!(c.peak_gflops(true, ArithmeticUnits::F64TensorCores), 50.0);
        // an f32 kernel has no FP64 tensor cores: its FMA pipe
        assert_eq!(c.peak_gflops(false, ArithmeticUnits::F64TensorCores), 60.0);
    }
}
