//! Verify, autotune and bench, written once over [`crate::formulation::Tuner`]: every formulation gets the same
//! verification rules, candidate strategies, winner checks, hysteresis, database entries and fresh bench figures.

pub mod autotune;
pub mod bench;

pub use autotune::{
    speedup_over_fixed, tune, Strategy, TuneEvent, TuneOptions, CPU_DEVICE_MIN_DOFS, DEFAULT_MIN_DOFS, RELATED_SEEDS,
};
pub use bench::{measure, Measured};

use crate::backend::Device;
use crate::formulation::Tuner;
use crate::verify::VerifyOutcome;

/// Verifies `only` (or every candidate) of `tuner`; `progress` after each.
pub fn verify(
    tuner: &mut dyn Tuner,
    device: &mut dyn Device,
    only: Option<&str>,
    progress: &mut dyn FnMut(&VerifyOutcome),
) -> Vec<VerifyOutcome> {
    let specs = match only {
        Some(spec) => vec![spec.to_string()],
        None => tuner.candidates(device),
    };
    tuner.verify(device, &specs, progress)
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // civil-from-days (Howard Hinnant)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    format!("{:04}-{:02}-{:02}", if m <= 2 { y + 1 } else { y }, m, d)
}
