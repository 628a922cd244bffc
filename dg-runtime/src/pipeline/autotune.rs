//! The autotuner, once for every formulation: candidates from a strategy, verification first, device timing
//! (warm-up, repeats, median and spread) on the tuner's timing problem, the fastest checked again at that size
//! against the CPU reference, a winner with hysteresis against the stored one, and its tuning-database entry.

use crate::backend::Device;
use crate::formulation::{FormulationError, Tuner};
use crate::tuning_db::{Candidate, Ceilings, Entry};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::time::{Duration, Instant};

/// How candidates are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Every valid variant.
    Exhaustive,
    /// A random sample of this many (plus the baseline).
    Random(usize),
    /// Coordinate descent from the formulation's baseline: one axis at a time, keep the best, until no axis
    /// improves.
    Greedy,
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "exhaustive" => Ok(Self::Exhaustive),
            "greedy" => Ok(Self::Greedy),
            _ => match s.strip_prefix("random") {
                Some("") => Ok(Self::Random(16)),
                Some(rest) => rest
                    .trim_start_matches(':')
                    .parse()
                    .map(Self::Random)
                    .map_err(|_| format!("`{s}`: random:<count> wants a whole number")),
                None => Err(format!("unknown strategy `{s}`: exhaustive, random[:N] or greedy")),
            },
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Strategy::Exhaustive => write!(f, "exhaustive"),
            Strategy::Random(n) => write!(f, "random:{n}"),
            Strategy::Greedy => write!(f, "greedy"),
        }
    }
}

/// Default size of timing problems: 16M DOFs, so that the state and right-hand side (128 MB in f32) are well
/// above the last-level cache of current GPUs (50 MB L2 on an H100) and launch overheads are amortised.
pub const DEFAULT_MIN_DOFS: u64 = 16_000_000;

/// Default size of timing problems on a CPU device (an OpenCL CPU platform such as PoCL), whose kernels run about
/// a hundred times slower than a GPU's: an exhaustive tuning at 16M DOFs would take hours there.
pub const CPU_DEVICE_MIN_DOFS: u64 = 1_000_000;

/// Options of a tuning run.
#[derive(Debug, Clone)]
pub struct TuneOptions {
    /// Candidate strategy.
    pub strategy: Strategy,
    /// Stop timing new candidates after this long (per order and precision).
    pub budget: Option<Duration>,
    /// Timed repetitions per candidate (after warm-up runs).
    pub repeats: usize,
    /// A previous winner is kept unless the new one is this much faster (relative).
    pub hysteresis: f64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        Self { strategy: Strategy::Exhaustive, budget: None, repeats: 20, hysteresis: 0.03 }
    }
}

/// Progress events of a tuning run.
pub enum TuneEvent<'a> {
    /// Starting with this many candidates.
    Start {
        /// Candidates the strategy will visit (all valid ones for greedy).
        candidates: usize,
    },
    /// One candidate done.
    Candidate(&'a Candidate),
}

/// Tunes one (law, order, precision): verifies and times the strategy's candidates, checks the fastest again at
/// the timing size against the CPU reference (the next fastest wins if it fails), and keeps `previous` (the
/// stored winner of the same key) unless the new one is faster by the hysteresis, both timed now. Returns the
/// entry to store under `tuner.key()`.
pub fn tune(
    tuner: &mut dyn Tuner,
    device: &mut dyn Device,
    opts: &TuneOptions,
    previous: Option<&Entry>,
    ceilings: Option<&Ceilings>,
    double: bool,
    progress: &mut dyn FnMut(TuneEvent<'_>),
) -> Result<Entry, FormulationError> {
    let valid = tuner.candidates();
    let started = Instant::now();
    let list: Vec<String> = match opts.strategy {
        Strategy::Exhaustive => valid.clone(),
        Strategy::Random(n) => {
            let mut list = valid.clone();
            list.shuffle(&mut rand::rngs::StdRng::seed_from_u64(tuner.key().order as u64));
            list.truncate(n);
            if let Some(base) = tuner.baseline().filter(|b| valid.contains(b) && !list.contains(b)) {
                list.push(base);
            }
            list
        }
        Strategy::Greedy => Vec::new(),
    };
    progress(TuneEvent::Start { candidates: if opts.strategy == Strategy::Greedy { valid.len() } else { list.len() } });
    let mut candidates: Vec<Candidate> = Vec::new();
    // verification of the listed candidates in one pass (formulations batch their programs)
    let mut checks = if list.is_empty() { Vec::new() } else { tuner.verify(device, &list, &mut |_| {}) };
    let mut evaluate = |spec: &str, device: &mut dyn Device, tuner: &mut dyn Tuner, candidates: &mut Vec<Candidate>| {
        if let Some(c) = candidates.iter().find(|c| c.variant == spec) {
            return c.median_s;
        }
        let check = match checks.iter().position(|c| c.variant == spec) {
            Some(i) => checks.swap_remove(i),
            None => tuner.verify(device, &[spec.to_string()], &mut |_| {}).swap_remove(0),
        };
        let over_budget = opts.budget.is_some_and(|b| started.elapsed() > b);
        let candidate = if over_budget {
            Candidate::checked(&check, None, Some("time budget spent".into()))
        } else if !check.passed {
            Candidate::checked(&check, None, None)
        } else {
            match tuner.time(device, spec, opts.repeats) {
                Ok(timing) => Candidate::checked(&check, Some(timing), None),
                Err(e) => Candidate::checked(&check, None, Some(e.to_string())),
            }
        };
        let time = candidate.median_s;
        progress(TuneEvent::Candidate(&candidate));
        candidates.push(candidate);
        time
    };
    match opts.strategy {
        Strategy::Exhaustive | Strategy::Random(_) => {
            for spec in &list {
                evaluate(spec, device, tuner, &mut candidates);
            }
        }
        Strategy::Greedy => {
            let mut best = match tuner.baseline().filter(|b| valid.contains(b)) {
                Some(b) => b,
                None => valid.first().cloned().ok_or_else(|| FormulationError::NoWinner("no valid variant".into()))?,
            };
            let mut best_time = evaluate(&best, device, tuner, &mut candidates).unwrap_or(f64::INFINITY);
            loop {
                let mut improved = false;
                let neighbours: Vec<String> =
                    tuner.neighbours(&best).into_iter().filter(|n| valid.contains(n)).collect();
                for spec in neighbours {
                    if let Some(t) = evaluate(&spec, device, tuner, &mut candidates) {
                        if t < best_time {
                            best = spec;
                            best_time = t;
                            improved = true;
                        }
                    }
                }
                if !improved || opts.budget.is_some_and(|b| started.elapsed() > b) {
                    break;
                }
            }
        }
    }
    let winner = pick_winner(tuner, device, &mut candidates, previous, opts.hysteresis)?;
    let median_s = candidates[winner].median_s.unwrap_or(f64::NAN);
    let spec = candidates[winner].variant.clone();
    let cost = tuner.cost(&spec)?;
    Ok(Entry {
        winner: spec,
        median_s,
        dofs: tuner.timing_dofs(),
        gflops: cost.flops / median_s * 1e-9,
        gbs: cost.bytes / median_s * 1e-9,
        roofline_percent: ceilings.map(|c| c.roofline_percent(cost.flops, cost.bytes, median_s, double, cost.gemm)),
        candidates,
        date: super::today(),
        strategy: opts.strategy.to_string(),
        driver: Some(device.fingerprint().driver.clone()),
    })
}

/// The index of the winner among the timed `candidates`: the fastest that also matches the CPU reference on the
/// timing problem itself; a candidate failing that check is marked unverified, with the reason, and the next
/// fastest is tried. The `previous` winner is kept while the new fastest is not faster than it by `hysteresis`.
fn pick_winner(
    tuner: &mut dyn Tuner,
    device: &mut dyn Device,
    candidates: &mut [Candidate],
    previous: Option<&Entry>,
    hysteresis: f64,
) -> Result<usize, FormulationError> {
    loop {
        let time = |i: usize| candidates[i].median_s.unwrap_or(f64::INFINITY);
        let mut order: Vec<usize> = (0..candidates.len()).filter(|&i| candidates[i].median_s.is_some()).collect();
        order.sort_by(|&a, &b| time(a).total_cmp(&time(b)));
        let Some(&fastest) = order.first() else {
            let key = tuner.key();
            return Err(FormulationError::NoWinner(format!(
                "no candidate could be verified and timed for {} N = {} ({})",
                key.law, key.order, key.precision
            )));
        };
        let mut best = fastest;
        if let Some(prev) = previous {
            if let Some(&old) = order.iter().find(|&&i| candidates[i].variant == prev.winner) {
                if time(fastest) > time(old) * (1.0 - hysteresis) {
                    best = old;
                }
            }
        }
        let spec = candidates[best].variant.clone();
        let check = tuner.check_at_size(device, &spec);
        if check.passed {
            return Ok(best);
        }
        let note = format!("failed at the timing size ({} DOFs)", tuner.timing_dofs());
        candidates[best] = Candidate::checked(&check, None, Some(note));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_and_print() {
        for text in ["exhaustive", "greedy", "random:7"] {
            assert_eq!(text.parse::<Strategy>().unwrap().to_string(), text);
        }
        assert_eq!("random".parse::<Strategy>().unwrap(), Strategy::Random(16));
        assert!("random:x".parse::<Strategy>().is_err());
        assert!("anneal".parse::<Strategy>().is_err());
    }
}
