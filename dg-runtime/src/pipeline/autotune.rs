//! The autotuner, once for every formulation: candidates from a strategy, verification first, device timing
//! (warm-up, repeats, median and spread) on the tuner's timing problem, the fastest checked again at that size
//! against the CPU reference, a winner with hysteresis against the stored one, and its tuning-database entry.

use crate::backend::Device;
use crate::formulation::{FormulationError, TimingPlan, Tuner};
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
    /// Stop timing a candidate after its probe when it is clearly slower than the best so far
    /// ([`EARLY_STOP`]); off, every candidate is timed in full (an untruncated search).
    pub early_stop: bool,
}

impl Default for TuneOptions {
    fn default() -> Self {
        Self { strategy: Strategy::Exhaustive, budget: None, repeats: 20, hysteresis: 0.03, early_stop: true }
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
    let valid = tuner.candidates(device);
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
    if let Some(why) = device.lost() {
        // the batch ran in list order: the first failure that ran (a refusal before any launch cannot fault) is
        // the candidate that faulted, or one that failed before it
        let first = checks.iter().find(|c| !c.passed && !c.rejected).map(|c| (c.variant.as_str(), c.error.as_deref()));
        return Err(device_lost(tuner, first, &why));
    }
    // the timing programs of every verified candidate compiled at once (in parallel on CUDA)
    let passed: Vec<String> = checks.iter().filter(|c| c.passed).map(|c| c.variant.clone()).collect();
    if !passed.is_empty() {
        tuner.prepare(device, &passed);
    }
    let mut warm = !device.fingerprint().is_gpu;
    let mut best_so_far = f64::INFINITY;
    let mut evaluate = |spec: &str,
                        device: &mut dyn Device,
                        tuner: &mut dyn Tuner,
                        candidates: &mut Vec<Candidate>|
     -> Result<Option<f64>, FormulationError> {
        if let Some(c) = candidates.iter().find(|c| c.variant == spec) {
            return Ok(c.median_s);
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
            if !warm {
                warm_clocks(tuner, device, spec, opts.repeats);
                warm = true;
            }
            let stop_above = opts.early_stop.then_some(best_so_far * EARLY_STOP);
            let plan = TimingPlan { repeats: opts.repeats, stop_above };
            match tuner.time(device, spec, &plan) {
                Ok(timing) => {
                    let note = plan.stopped_early(timing.0).then(|| {
                        format!("probe only ({} runs): above {EARLY_STOP}× the best so far", TimingPlan::PROBE)
                    });
                    best_so_far = best_so_far.min(timing.0);
                    Candidate::checked(&check, Some(timing), note)
                }
                Err(e) => Candidate::checked(&check, None, Some(e.to_string())),
            }
        };
        let time = candidate.median_s;
        if time.is_none() {
            if let Some(why) = device.lost() {
                return Err(device_lost(
                    tuner,
                    Some((spec, candidate.note.as_deref().or(check.error.as_deref()))),
                    &why,
                ));
            }
        }
        progress(TuneEvent::Candidate(&candidate));
        candidates.push(candidate);
        Ok(time)
    };
    match opts.strategy {
        Strategy::Exhaustive | Strategy::Random(_) => {
            for spec in &list {
                evaluate(spec, device, tuner, &mut candidates)?;
            }
        }
        Strategy::Greedy => {
            let mut best = match tuner.baseline().filter(|b| valid.contains(b)) {
                Some(b) => b,
                None => valid.first().cloned().ok_or_else(|| FormulationError::NoWinner("no valid variant".into()))?,
            };
            let mut best_time = evaluate(&best, device, tuner, &mut candidates)?.unwrap_or(f64::INFINITY);
            loop {
                let mut improved = false;
                let neighbours: Vec<String> =
                    tuner.neighbours(&best).into_iter().filter(|n| valid.contains(n)).collect();
                for spec in neighbours {
                    if let Some(t) = evaluate(&spec, device, tuner, &mut candidates)? {
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
    retime_fastest(tuner, device, &mut candidates, opts.repeats);
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
        roofline_percent: ceilings.map(|c| c.roofline_percent(cost.flops, cost.bytes, median_s, double, cost.units)),
        candidates,
        date: super::today(),
        strategy: opts.strategy.to_string(),
        driver: Some(device.fingerprint().driver.clone()),
    })
}

/// The tuned winners' geometric-mean speed-up over the best single fixed variant across several tunings (one per
/// order, say): the variants verified and timed in every entry are the fixed choices; each one's geometric mean
/// of (its time / the winner's time) is taken over the entries, and the smallest is the best fixed variant.
/// `None` when no variant was timed in every entry.
pub fn speedup_over_fixed(entries: &[&Entry]) -> Option<(String, f64)> {
    let first = entries.first()?;
    let timed = |e: &Entry, variant: &str| {
        e.candidates.iter().find(|c| c.variant == variant && c.verified()).and_then(|c| c.median_s)
    };
    first
        .candidates
        .iter()
        .filter_map(|c| {
            let logs: Option<Vec<f64>> =
                entries.iter().map(|e| timed(e, &c.variant).map(|t| (t / e.median_s).ln())).collect();
            let logs = logs?;
            Some((c.variant.clone(), (logs.iter().sum::<f64>() / logs.len() as f64).exp()))
        })
        .filter(|(_, ratio)| ratio.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// A candidate whose probe is this many times slower than the best so far is not timed further.
pub const EARLY_STOP: f64 = 1.25;

/// How many of the fastest candidates are timed a second time at the end.
pub const RETIMED: usize = 3;

/// Wall time spent running the first candidate before any timing, so that a GPU's clocks have ramped up.
const WARM_CLOCKS: Duration = Duration::from_millis(400);

/// Runs `spec` until [`WARM_CLOCKS`] have passed (results discarded; errors surface when it is timed).
fn warm_clocks(tuner: &mut dyn Tuner, device: &mut dyn Device, spec: &str, repeats: usize) {
    let started = Instant::now();
    while started.elapsed() < WARM_CLOCKS {
        if tuner.time(device, spec, &TimingPlan::full(repeats)).is_err() {
            return;
        }
    }
}

/// Times the [`RETIMED`] fastest candidates again with full repetitions (all the others have been timed
/// meanwhile, so clocks and caches are in the same state for them); each keeps the faster of its two medians.
fn retime_fastest(tuner: &mut dyn Tuner, device: &mut dyn Device, candidates: &mut [Candidate], repeats: usize) {
    let mut timed: Vec<usize> = (0..candidates.len()).filter(|&i| candidates[i].median_s.is_some()).collect();
    timed.sort_by(|&a, &b| {
        candidates[a].median_s.unwrap_or(f64::INFINITY).total_cmp(&candidates[b].median_s.unwrap_or(f64::INFINITY))
    });
    for &i in timed.iter().take(RETIMED) {
        let spec = candidates[i].variant.clone();
        if let Ok((median, spread)) = tuner.time(device, &spec, &TimingPlan::full(repeats)) {
            if median < candidates[i].median_s.unwrap_or(f64::INFINITY) {
                candidates[i].median_s = Some(median);
                candidates[i].spread = Some(spread);
            }
        }
    }
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
        if let Some(why) = device.lost() {
            return Err(device_lost(tuner, Some((&spec, check.error.as_deref())), &why));
        }
        let note = format!("failed at the timing size ({} DOFs)", tuner.timing_dofs());
        candidates[best] = Candidate::checked(&check, None, Some(note));
    }
}

/// The error that ends a tuning whose device was lost (`Device::lost` gave `why`), naming the first candidate that
/// failed and its error: a kernel that faults leaves the device unusable for the rest of the process, so every
/// later candidate would fail the same way, and "no candidate could be verified" would blame the wrong thing.
fn device_lost(tuner: &dyn Tuner, first: Option<(&str, Option<&str>)>, why: &str) -> FormulationError {
    let key = tuner.key();
    let culprit = match first {
        Some((spec, Some(error))) => format!("the first candidate to fail was {spec} ({error})"),
        Some((spec, None)) => format!("the first candidate to fail was {spec}"),
        None => "no candidate had failed before".to_string(),
    };
    FormulationError::DeviceLost(format!(
        "the device was lost while tuning {} N = {} ({}): {why}; {culprit}. A kernel that faults leaves the device \
         unusable for the rest of the process, so the tuning stops here; verifying that variant alone \
         (`dg verify … --variant SPEC`) reproduces it",
        key.law, key.order, key.precision
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(winner: &str, times: &[(&str, Option<f64>)]) -> Entry {
        let candidates = times
            .iter()
            .map(|&(v, t)| {
                let check = crate::verify::VerifyOutcome::of::<f64>(v.into(), Ok(0.0));
                Candidate::checked(&check, t.map(|t| (t, 0.0)), None)
            })
            .collect();
        let median_s = times.iter().find(|(v, _)| *v == winner).and_then(|t| t.1).expect("winner timed");
        Entry {
            winner: winner.into(),
            median_s,
            dofs: 1,
            gflops: 0.0,
            gbs: 0.0,
            roofline_percent: None,
            candidates,
            date: String::new(),
            driver: None,
            strategy: "exhaustive".into(),
        }
    }

    #[test]
    fn the_speedup_over_fixed_variants_is_the_best_fixed_geometric_mean() {
        // order 1: a wins; order 2: b wins by 4x; c is missing at order 2
        let one = entry("a", &[("a", Some(1.0)), ("b", Some(2.0)), ("c", Some(1.0))]);
        let two = entry("b", &[("a", Some(4.0)), ("b", Some(1.0)), ("c", None)]);
        let (variant, speedup) = speedup_over_fixed(&[&one, &two]).expect("a fixed variant");
        // a: sqrt(1 * 4) = 2, b: sqrt(2 * 1) = 1.414..; c is not timed everywhere
        assert_eq!(variant, "b");
        assert!((speedup - 2f64.sqrt()).abs() < 1e-12, "{speedup}");
        let lone = entry("c", &[("c", Some(1.0))]);
        assert_eq!(speedup_over_fixed(&[&lone, &two]), None, "no variant timed in every entry");
        assert_eq!(speedup_over_fixed(&[]), None);
    }

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
