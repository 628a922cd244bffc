//! Restart files: a run's whole state at one step, so that a stopped run continues bit for bit.
//!
//! A restart file holds what started the run (the command, opaque to this crate), where the time loop stood
//! ([`LoopPosition`]: step, time, the step schedule), the stepper's small state (integrator counters, as JSON)
//! and its arrays (the solution and, for multistep schemes, the stored right-hand sides), every value as an f64 —
//! an f32 widens to f64 and back exactly, so both precisions continue bit for bit.
//!
//! Layout, little-endian: the magic line `dg-restart\n`; the format version (u32); the header's length (u64);
//! the header (JSON, [`RestartHeader`]); the arrays' values (8 bytes each, in the header's order); the SHA-256
//! of everything before it (32 bytes). The reader trusts nothing: it checks the magic, refuses a newer version
//! by name, compares every length with the file's size before allocating, and checks the digest before it
//! reads a value. Files are written to a temporary name and renamed, so a reader never sees half a file.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The first bytes of every restart file.
pub const MAGIC: &[u8] = b"dg-restart\n";
/// The format version this program writes and reads.
pub const VERSION: u32 = 1;
/// The largest header a reader accepts, bytes.
const MAX_HEADER: u64 = 16 << 20;

/// Why a restart file cannot be written or used.
#[derive(Debug, thiserror::Error)]
pub enum RestartError {
    /// The file cannot be read or written.
    #[error("{path}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a restart file, is damaged or does not fit this run.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The file was written by a newer dg.
    #[error("{path}: restart format version {found}, newer than this program's {VERSION}; use the dg that wrote it")]
    Newer {
        /// The file.
        path: String,
        /// Its version.
        found: u32,
    },
}

/// How the time loop chooses its steps, as far as a continued run must repeat it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Schedule {
    /// `steps` equal steps of `dt`, the last one ending exactly at the final time.
    Uniform {
        /// Steps of the whole run.
        steps: u64,
        /// The step.
        dt: f64,
    },
    /// Each step chosen from the state (its value follows from the saved state).
    Adaptive,
}

/// Where the time loop stands.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoopPosition {
    /// Steps taken.
    pub step: u64,
    /// Time reached.
    pub t: f64,
    /// The final time of the run.
    pub t_end: f64,
    /// The step schedule.
    pub schedule: Schedule,
    /// Smallest and largest step taken so far.
    pub dt_range: [f64; 2],
}

/// A stepper's state: its small state (counters, as JSON) and named arrays of values.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Counters and settings the stepper needs to continue (its own shape).
    pub stepper: serde_json::Value,
    /// Named arrays (the first is the solution).
    pub arrays: Vec<(String, Vec<f64>)>,
}

impl Snapshot {
    /// The array called `name`.
    pub fn array(&self, name: &str) -> Option<&[f64]> {
        self.arrays.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }
}

/// A run's state at one step: the loop's position and the stepper's snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopState {
    /// Where the loop stands.
    pub position: LoopPosition,
    /// The stepper's state.
    pub snapshot: Snapshot,
}

/// A name and a length of an array in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArrayInfo {
    /// The array's name.
    pub name: String,
    /// Values in it.
    pub len: u64,
}

/// The JSON header of a restart file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestartHeader {
    /// What started the run (the program's command; this crate does not read it).
    pub run: serde_json::Value,
    /// Where the loop stood.
    pub position: LoopPosition,
    /// The stepper's counters.
    pub stepper: serde_json::Value,
    /// The arrays that follow the header, in order.
    pub arrays: Vec<ArrayInfo>,
}

/// A restart file's contents.
#[derive(Debug, Clone, PartialEq)]
pub struct RestartFile {
    /// What started the run.
    pub run: serde_json::Value,
    /// The loop's position and the stepper's state.
    pub state: LoopState,
}

/// The bytes of a restart file.
pub fn encode(file: &RestartFile) -> Result<Vec<u8>, serde_json::Error> {
    let header = RestartHeader {
        run: file.run.clone(),
        position: file.state.position,
        stepper: file.state.snapshot.stepper.clone(),
        arrays: file
            .state
            .snapshot
            .arrays
            .iter()
            .map(|(name, v)| ArrayInfo { name: name.clone(), len: v.len() as u64 })
            .collect(),
    };
    let json = serde_json::to_vec(&header)?;
    let values: usize = file.state.snapshot.arrays.iter().map(|(_, v)| v.len()).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + 12 + json.len() + 8 * values + 32);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    for (_, v) in &file.state.snapshot.arrays {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    let digest = Sha256::digest(&out);
    out.extend_from_slice(&digest);
    Ok(out)
}

/// Reads a restart file from its bytes; `path` names it in errors.
pub fn decode(bytes: &[u8], path: &str) -> Result<RestartFile, RestartError> {
    let invalid = |reason: String| RestartError::Invalid { path: path.to_string(), reason };
    let Some(rest) = bytes.strip_prefix(MAGIC) else {
        return Err(invalid("not a dg restart file (it does not start with `dg-restart`)".into()));
    };
    let (version, rest) = take::<4>(rest).ok_or_else(|| invalid("the file ends inside its version".into()))?;
    let version = u32::from_le_bytes(version);
    if version > VERSION {
        return Err(RestartError::Newer { path: path.to_string(), found: version });
    }
    if version != VERSION {
        return Err(invalid(format!("restart format version {version} is not one this program reads ({VERSION})")));
    }
    let (len, rest) = take::<8>(rest).ok_or_else(|| invalid("the file ends inside its header length".into()))?;
    let len = u64::from_le_bytes(len);
    if len > MAX_HEADER || len > rest.len() as u64 {
        return Err(invalid(format!("a header of {len} bytes does not fit the file ({} bytes)", bytes.len())));
    }
    let (json, payload) = rest.split_at(len as usize);
    if payload.len() < 32 {
        return Err(invalid("the file ends before its checksum: it is cut short".into()));
    }
    let (values, digest) = payload.split_at(payload.len() - 32);
    if Sha256::digest(&bytes[..bytes.len() - 32]).as_slice() != digest {
        return Err(invalid("the checksum does not match: the file is damaged or cut short".into()));
    }
    let header: RestartHeader =
        serde_json::from_slice(json).map_err(|e| invalid(format!("the header is not valid: {e}")))?;
    let total = header.arrays.iter().try_fold(0u64, |acc, a| acc.checked_add(a.len));
    if total.and_then(|t| t.checked_mul(8)) != Some(values.len() as u64) {
        return Err(invalid(format!(
            "the header announces arrays of {} values, the file holds {}",
            total.map_or("too many".to_string(), |t| t.to_string()),
            values.len() / 8
        )));
    }
    let mut chunks = values.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
    let arrays =
        header.arrays.iter().map(|a| (a.name.clone(), chunks.by_ref().take(a.len as usize).collect())).collect();
    let position = header.position;
    check_position(&position).map_err(invalid)?;
    let snapshot = Snapshot { stepper: header.stepper, arrays };
    Ok(RestartFile { run: header.run, state: LoopState { position, snapshot } })
}

fn check_position(p: &LoopPosition) -> Result<(), String> {
    let finite = p.t.is_finite() && p.t_end.is_finite() && p.t_end > 0.0 && (0.0..=p.t_end).contains(&p.t);
    if !finite {
        return Err(format!("time {} of final time {} is not a time a run reaches", p.t, p.t_end));
    }
    if let Schedule::Uniform { steps, dt } = p.schedule {
        if !(dt.is_finite() && dt > 0.0) || p.step > steps || steps > crate::run_loop::MAX_STEPS {
            return Err(format!("step {} of {steps} steps of {dt:e} is not a step schedule", p.step));
        }
    }
    Ok(())
}

fn take<const N: usize>(bytes: &[u8]) -> Option<([u8; N], &[u8])> {
    let head: [u8; N] = bytes.get(..N)?.try_into().ok()?;
    Some((head, &bytes[N..]))
}

/// Writes `file` to `path` (through a temporary file renamed into place).
pub fn write(path: &Path, file: &RestartFile) -> Result<(), RestartError> {
    let io = |source| RestartError::Io { path: path.display().to_string(), source };
    let bytes = encode(file).map_err(|e| io(std::io::Error::other(e)))?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Reads the restart file at `path`.
pub fn read(path: &Path) -> Result<RestartFile, RestartError> {
    let bytes = std::fs::read(path).map_err(|source| RestartError::Io { path: path.display().to_string(), source })?;
    decode(&bytes, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RestartFile {
        RestartFile {
            run: serde_json::json!({"command": ["dg", "run", "maxwell-cavity"]}),
            state: LoopState {
                position: LoopPosition {
                    step: 7,
                    t: 0.35,
                    t_end: 1.0,
                    schedule: Schedule::Uniform { steps: 20, dt: 0.05 },
                    dt_range: [0.05, 0.05],
                },
                snapshot: Snapshot {
                    stepper: serde_json::json!({"valid": 2}),
                    arrays: vec![("state".into(), vec![1.0, -0.0, 3.5e-310, f64::MAX]), ("history.0".into(), vec![])],
                },
            },
        }
    }

    #[test]
    fn a_file_reads_back_bit_for_bit() {
        let file = sample();
        let back = decode(&encode(&file).unwrap(), "x").unwrap();
        assert_eq!(back.run, file.run);
        assert_eq!(back.state.position, file.state.position);
        let bits = |f: &RestartFile| -> Vec<u64> {
            f.state.snapshot.arrays.iter().flat_map(|(_, v)| v.iter().map(|x| x.to_bits())).collect()
        };
        assert_eq!(bits(&back), bits(&file));
    }

    /// The header's times and steps come back to the bit (the JSON reader rounds correctly), or an adaptive run
    /// would continue from a time one unit in the last place away.
    #[test]
    fn header_times_read_back_to_the_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut file = sample();
        for _ in 0..2000 {
            let t_end: f64 = rng.random_range(1e-3..1e3);
            let (t, dt_range) = (t_end * rng.random::<f64>(), [rng.random(), rng.random()]);
            (file.state.position.t, file.state.position.t_end, file.state.position.dt_range) = (t, t_end, dt_range);
            let p = file.state.position;
            let back = decode(&encode(&file).unwrap(), "x").unwrap().state.position;
            assert_eq!(back.t.to_bits(), p.t.to_bits(), "{}", p.t);
            assert_eq!(back.dt_range.map(f64::to_bits), p.dt_range.map(f64::to_bits));
        }
    }

    #[test]
    fn damaged_cut_and_newer_files_are_refused_by_name() {
        let bytes = encode(&sample()).unwrap();
        for cut in [0, 5, MAGIC.len() + 2, MAGIC.len() + 10, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], "x").is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        let at = bytes.len() - 40;
        flipped[at] ^= 1;
        let err = decode(&flipped, "x").unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
        let mut newer = bytes.clone();
        newer[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(VERSION + 1).to_le_bytes());
        let err = decode(&newer, "x").unwrap_err();
        assert!(matches!(err, RestartError::Newer { found, .. } if found == VERSION + 1), "{err}");
    }
}
