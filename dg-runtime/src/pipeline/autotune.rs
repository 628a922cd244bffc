//! The autotuner, once for every formulation: candidates from a strategy, verification first, device timing
//! (warm-up, repeats, median and spread) on the tuner's timing problem, the fastest checked again at that size
//! against the CPU reference, a winner with hysteresis against the stored one, and its tuning-database entry.

use crate::backend::Device;
use crate::formulation::{FormulationError, TimingPlan, Tuner};
use crate::tuning_db::{Candidate, Ceilings, Entry};
use crate::verify::VerifyOutcome;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::time::{Duration, Instant};

/// How candidates are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Every valid variant.
    Exhaustive,
    /// A random sample of this many (plus the baseline and the seeds, [`TuneOptions::seeds`]).
    Random(usize),
    /// Coordinate descent from the fastest of the formulation's baseline and the seeds: one axis at a time, keep
    /// the best, until no axis improves.
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
    /// Search every valid candidate ([`Tuner::candidates`]), also those the formulation's rules leave out of a
    /// search ([`Tuner::searched`]); with `early_stop` off, an untruncated search.
    pub every_variant: bool,
    /// Variants a greedy search also starts from and a random sample also takes, such as the winners a database
    /// holds for related keys on this device and on others of its architecture ([`crate::tuning_db::DeviceDb::seeds`]);
    /// those not valid here are skipped.
    pub seeds: Vec<String>,
}

impl Default for TuneOptions {
    fn default() -> Self {
        Self {
            strategy: Strategy::Exhaustive,
            budget: None,
            repeats: 20,
            hysteresis: 0.03,
            early_stop: true,
            every_variant: false,
            seeds: Vec::new(),
        }
    }
}

/// Where a search starts: the baseline, then the seeds, those valid, each once (the first valid variant when none
/// is).
fn starting_points(baseline: Option<String>, seeds: &[String], valid: &[String]) -> Vec<String> {
    let mut starts: Vec<String> = Vec::new();
    for spec in baseline.into_iter().chain(seeds.iter().cloned()) {
        if valid.contains(&spec) && !starts.contains(&spec) {
            starts.push(spec);
        }
    }
    if starts.is_empty() {
        starts.extend(valid.first().cloned());
    }
    starts
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
    let valid = if opts.every_variant { tuner.candidates(device) } else { tuner.searched(device) };
    let started = Instant::now();
    // the stored winner of this key, where it is still a candidate, is timed first by every strategy: a search cut
    // short (a budget, a sample, a descent elsewhere) that never timed it replaced it with a slower one
    let kept = previous.map(|p| p.winner.clone()).filter(|w| valid.contains(w));
    let kept_first = |mut list: Vec<String>| {
        if let Some(w) = &kept {
            list.retain(|s| s != w);
            list.insert(0, w.clone());
        }
        list
    };
    let list: Vec<String> = match opts.strategy {
        Strategy::Exhaustive => kept_first(valid.clone()),
        Strategy::Random(n) => {
            let mut list = valid.clone();
            list.shuffle(&mut rand::rngs::StdRng::seed_from_u64(tuner.key().order as u64));
            list.truncate(n);
            for start in starting_points(tuner.baseline(), &opts.seeds, &valid) {
                if !list.contains(&start) {
                    list.push(start);
                }
            }
            kept_first(list)
        }
        Strategy::Greedy => Vec::new(),
    };
    progress(TuneEvent::Start { candidates: if opts.strategy == Strategy::Greedy { valid.len() } else { list.len() } });
    let mut candidates: Vec<Candidate> = Vec::new();
    // verification of the listed candidates in one pass (formulations batch their programs)
    let mut checks = Vec::new();
    check_batch(tuner, device, &list, &mut checks)?;
    let mut warm = !device.fingerprint().is_gpu;
    let mut best_so_far = f64::INFINITY;
    let mut evaluate = |spec: &str,
                        device: &mut dyn Device,
                        tuner: &mut dyn Tuner,
                        candidates: &mut Vec<Candidate>,
                        checks: &mut Vec<VerifyOutcome>|
     -> Result<Option<f64>, FormulationError> {
        if let Some(c) = candidates.iter().find(|c| c.variant == spec) {
            return Ok(c.median_s);
        }
        let check = match checks.iter().position(|c| c.variant == spec) {
            Some(i) => checks.swap_remove(i),
            None => tuner.verify(device, &[spec.to_string()], &mut |_| {}).swap_remove(0),
        };
        // the budget ends the search once something is timed, never before: on a slow machine with a cold kernel
        // cache, verifying the first candidates alone could spend it and leave a first-use run with no variant
        let over_budget = opts.budget.is_some_and(|b| started.elapsed() > b) && best_so_far.is_finite();
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
                evaluate(spec, device, tuner, &mut candidates, &mut checks)?;
            }
        }
        Strategy::Greedy => {
            let starts = kept_first(starting_points(tuner.baseline(), &opts.seeds, &valid));
            let Some(first) = starts.first().cloned() else {
                return Err(FormulationError::NoWinner("no valid variant".into()));
            };
            // the descent starts from the fastest starting point (the first when none could be timed); each
            // round's new variants are verified and compiled together
            check_batch(tuner, device, &starts, &mut checks)?;
            let (mut best, mut best_time) = (first, f64::INFINITY);
            for spec in starts {
                if let Some(t) = evaluate(&spec, device, tuner, &mut candidates, &mut checks)? {
                    if t < best_time {
                        (best, best_time) = (spec, t);
                    }
                }
            }
            loop {
                let mut improved = false;
                let neighbours: Vec<String> =
                    tuner.neighbours(&best).into_iter().filter(|n| valid.contains(n)).collect();
                let fresh: Vec<String> =
                    neighbours.iter().filter(|n| !candidates.iter().any(|c| &c.variant == *n)).cloned().collect();
                check_batch(tuner, device, &fresh, &mut checks)?;
                for spec in neighbours {
                    if let Some(t) = evaluate(&spec, device, tuner, &mut candidates, &mut checks)? {
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

/// Verifies `specs` in one pass (formulations batch their programs) and compiles the timing programs of those that
/// pass at once (in parallel on CUDA); their outcomes join `checks`, where the timing takes them. A device lost
/// during the pass ends the tuning, naming the first candidate that failed.
fn check_batch(
    tuner: &mut dyn Tuner,
    device: &mut dyn Device,
    specs: &[String],
    checks: &mut Vec<VerifyOutcome>,
) -> Result<(), FormulationError> {
    if specs.is_empty() {
        return Ok(());
    }
    let outcomes = tuner.verify(device, specs, &mut |_| {});
    if let Some(why) = device.lost() {
        // the batch ran in order: the first failure that ran (a refusal before any launch cannot fault) is the
        // candidate that faulted, or one that failed before it
        let first =
            outcomes.iter().find(|c| !c.passed && !c.rejected).map(|c| (c.variant.as_str(), c.error.as_deref()));
        return Err(device_lost(tuner, first, &why));
    }
    let passed: Vec<String> = outcomes.iter().filter(|c| c.passed).map(|c| c.variant.clone()).collect();
    if !passed.is_empty() {
        tuner.prepare(device, &passed);
    }
    checks.extend(outcomes);
    Ok(())
}

/// How many stored winners of related keys a search takes as seeds ([`TuneOptions::seeds`]).
pub const RELATED_SEEDS: usize = 4;

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

/// The two most frequent reasons the `candidates` were not timed, with their counts (`: 48 × reason`), so that a
/// search without a winner says why; empty when none gave one.
fn common_reasons(candidates: &[Candidate]) -> String {
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for note in candidates.iter().filter_map(|c| c.note.as_deref()) {
        match reasons.iter_mut().find(|(r, _)| *r == note) {
            Some((_, n)) => *n += 1,
            None => reasons.push((note, 1)),
        }
    }
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    let listed: Vec<String> = reasons.iter().take(2).map(|(r, n)| format!("{n} × {r}")).collect();
    if listed.is_empty() {
        String::new()
    } else {
        format!(": {}", listed.join("; "))
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
                "no candidate could be verified and timed for {} N = {} ({}) among {}{}",
                key.law,
                key.order,
                key.precision,
                candidates.len(),
                common_reasons(candidates)
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
    use crate::backend::BackendError;

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

    /// A search without a winner says why: the most frequent reasons first, with their counts.
    #[test]
    fn the_reasons_no_candidate_was_timed_are_counted_most_frequent_first() {
        let refused = |v: &str, why: &str| {
            Candidate::checked(&crate::verify::VerifyOutcome::rejected(v.into(), why.into()), None, None)
        };
        let candidates = [
            refused("a", "timing mesh: too small"),
            refused("b", "local memory"),
            refused("c", "timing mesh: too small"),
            refused("d", "registers"),
            refused("e", "timing mesh: too small"),
            refused("f", "local memory"),
        ];
        assert_eq!(common_reasons(&candidates), ": 3 × timing mesh: too small; 2 × local memory");
        assert_eq!(common_reasons(&[]), "");
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

    /// A device no candidate runs on: the searches below time their candidates through [`Line`] alone.
    struct NoDevice(crate::backend::DeviceFingerprint);

    impl Device for NoDevice {
        fn fingerprint(&self) -> &crate::backend::DeviceFingerprint {
            &self.0
        }
        fn compile(&mut self, _: &str, _: &[String]) -> Result<crate::backend::ProgramId, BackendError> {
            Err(Self::refused())
        }
        fn alloc(&mut self, _: usize) -> Result<crate::backend::BufferId, BackendError> {
            Err(Self::refused())
        }
        fn upload(&mut self, _: crate::backend::BufferId, _: &[u8]) -> Result<(), BackendError> {
            Err(Self::refused())
        }
        fn download(&mut self, _: crate::backend::BufferId, _: &mut [u8]) -> Result<(), BackendError> {
            Err(Self::refused())
        }
        fn copy_buffer(
            &mut self,
            _: crate::backend::BufferId,
            _: crate::backend::BufferId,
            _: usize,
        ) -> Result<(), BackendError> {
            Err(Self::refused())
        }
        fn free_buffers(&mut self) {}
        fn buffer_bytes(&self, _: crate::backend::BufferId) -> Option<usize> {
            None
        }
        fn run(
            &mut self,
            _: crate::backend::ProgramId,
            _: &[crate::backend::Launch],
            _: usize,
        ) -> Result<Vec<f64>, BackendError> {
            Err(Self::refused())
        }
        fn kernel_max_work_group(&self, _: crate::backend::ProgramId, _: &str) -> Option<usize> {
            None
        }
        fn local_memory(&self) -> usize {
            0
        }
        fn max_work_group(&self) -> usize {
            1
        }
        fn supports_f64(&self) -> bool {
            true
        }
    }

    impl NoDevice {
        fn new() -> Self {
            Self(crate::backend::DeviceFingerprint {
                backend: "test".into(),
                vendor: "test".into(),
                name: "no device".into(),
                architecture: "none".into(),
                driver: "0".into(),
                memory_bytes: 0,
                selector: "test".into(),
                is_gpu: false,
            })
        }
        fn refused() -> BackendError {
            BackendError::Call { backend: "test", call: "any", message: "nothing runs on this device".into() }
        }
    }

    /// Variants `v0`, `v1`, … on a line, each a neighbour of the next, with the given times; `v0` is the baseline.
    struct Line {
        times: Vec<f64>,
        /// A variant a search leaves out ([`Tuner::searched`]), if any.
        unsearched: Option<String>,
        timed: Vec<String>,
        verified: Vec<Vec<String>>,
    }

    impl Line {
        fn index(spec: &str) -> Option<usize> {
            spec.strip_prefix('v')?.parse().ok()
        }
    }

    impl Tuner for Line {
        fn key(&self) -> crate::tuning_db::TuningKey {
            "line@00|flux|nodal-strong|tri|N1|f64|rhs|2^0dof|cg0".parse().expect("a key")
        }
        fn timing_dofs(&self) -> u64 {
            1
        }
        fn verification_elements(&self) -> usize {
            1
        }
        fn candidates(&mut self, _: &mut dyn Device) -> Vec<String> {
            (0..self.times.len()).map(|i| format!("v{i}")).collect()
        }
        fn searched(&mut self, device: &mut dyn Device) -> Vec<String> {
            self.candidates(device).into_iter().filter(|v| Some(v) != self.unsearched.as_ref()).collect()
        }
        fn baseline(&self) -> Option<String> {
            Some("v0".into())
        }
        fn neighbours(&self, spec: &str) -> Vec<String> {
            let i = Self::index(spec).unwrap_or(0);
            [i.checked_sub(1), Some(i + 1)].into_iter().flatten().map(|j| format!("v{j}")).collect()
        }
        fn verify(
            &mut self,
            _: &mut dyn Device,
            specs: &[String],
            _: &mut dyn FnMut(&crate::verify::VerifyOutcome),
        ) -> Vec<crate::verify::VerifyOutcome> {
            self.verified.push(specs.to_vec());
            // (`refused`: a variant the device refuses before any launch)
            let outcome = |s: &String| match s.as_str() {
                "refused" => crate::verify::VerifyOutcome::rejected(s.clone(), "too much local memory".into()),
                _ => crate::verify::VerifyOutcome::of::<f64>(s.clone(), Ok(0.0)),
            };
            specs.iter().map(outcome).collect()
        }
        fn time(&mut self, _: &mut dyn Device, spec: &str, _: &TimingPlan) -> Result<(f64, f64), FormulationError> {
            self.timed.push(spec.to_string());
            let t = Self::index(spec).and_then(|i| self.times.get(i).copied());
            t.map(|t| (t, 0.0)).ok_or_else(|| FormulationError::Problem(format!("no variant {spec}")))
        }
        fn check_at_size(&mut self, _: &mut dyn Device, spec: &str) -> crate::verify::VerifyOutcome {
            crate::verify::VerifyOutcome::of::<f64>(spec.to_string(), Ok(0.0))
        }
        fn cost(&self, _: &str) -> Result<crate::formulation::UnitCost, FormulationError> {
            Ok(crate::formulation::UnitCost { flops: 1.0, bytes: 1.0, units: crate::tuning_db::ArithmeticUnits::Fma })
        }
    }

    /// `dg bench`'s measurement of a variant the device refuses (its rules with the device's limits) is that
    /// refusal, with the reason, and nothing is timed (a timing program would not compile); a verified one is timed.
    #[test]
    fn a_bench_measurement_does_not_time_a_variant_the_device_refused() {
        let mut line = Line { times: vec![1.0], unsearched: None, timed: Vec::new(), verified: Vec::new() };
        let ceilings = crate::tuning_db::Ceilings::units();
        let mut device = NoDevice::new();
        let refused = crate::pipeline::bench::measure(&mut line, &mut device, "refused", 3, &ceilings, true);
        match refused {
            Err(FormulationError::Operator(crate::DeviceOperatorError::Variant(
                dg_codegen::VariantError::Rejected { spec, reason },
            ))) => assert_eq!((spec.as_str(), reason.as_str()), ("refused", "too much local memory")),
            other => panic!("{other:?}"),
        }
        assert!(line.timed.is_empty(), "timed {:?}", line.timed);
        let timed = crate::pipeline::bench::measure(&mut line, &mut device, "v0", 3, &ceilings, true).expect("timed");
        assert!(timed.verified && timed.median_s == 1.0, "{timed:?}");
        assert_eq!(line.timed, ["v0"]);
    }

    /// The winner, the variants timed (in order, each once) and the batches verified.
    fn search(strategy: Strategy, seeds: &[&str]) -> (String, Vec<String>, Vec<Vec<String>>) {
        // from the baseline v0 the next variant is slower; v5 is the fastest, reached from v3
        let times = vec![1.0, 1.2, 0.8, 0.6, 0.5, 0.4, 0.45];
        let mut line = Line { times, unsearched: None, timed: Vec::new(), verified: Vec::new() };
        let seeds = seeds.iter().map(|s| s.to_string()).collect();
        let opts = TuneOptions { strategy, repeats: 3, seeds, ..TuneOptions::default() };
        let entry = tune(&mut line, &mut NoDevice::new(), &opts, None, None, true, &mut |_| {}).expect("a winner");
        let mut timed = line.timed;
        timed.dedup();
        (entry.winner, timed, line.verified)
    }

    #[test]
    fn a_greedy_search_descends_from_the_fastest_of_the_baseline_and_the_seeds() {
        // the baseline alone stops at its local minimum
        assert_eq!(search(Strategy::Greedy, &[]).0, "v0");
        // a seed (an invalid one skipped) leads to the fastest variant
        let (winner, timed, verified) = search(Strategy::Greedy, &["v99", "v3"]);
        assert_eq!(winner, "v5", "timed {timed:?}");
        assert!(!timed.iter().any(|t| t == "v99"), "an invalid seed is never timed: {timed:?}");
        // the starting points are verified together, then each round's new neighbours, each variant once
        assert_eq!(verified[0], ["v0", "v3"]);
        assert_eq!(verified[1], ["v2", "v4"], "the first round's neighbours, in one batch");
        let all: Vec<&String> = verified.iter().flatten().collect();
        assert!((1..all.len()).all(|i| !all[..i].contains(&all[i])), "verified twice: {verified:?}");
        // a seed slower than the baseline: the descent starts from the baseline
        assert_eq!(search(Strategy::Greedy, &["v1"]).0, "v0");
        // a random sample of none takes the baseline and the seeds
        let (winner, timed, _) = search(Strategy::Random(0), &["v4"]);
        assert_eq!(winner, "v4");
        assert!(timed.iter().all(|t| t == "v0" || t == "v4"), "{timed:?}");
    }

    #[test]
    fn a_search_leaves_out_what_the_tuner_does_not_search_unless_every_variant_is_asked_for() {
        let times = vec![1.0, 1.2, 0.8, 0.6, 0.5, 0.4, 0.45];
        for every_variant in [false, true] {
            let mut line =
                Line { times: times.clone(), unsearched: Some("v5".into()), timed: Vec::new(), verified: Vec::new() };
            let opts = TuneOptions { repeats: 3, every_variant, ..TuneOptions::default() };
            let entry = tune(&mut line, &mut NoDevice::new(), &opts, None, None, true, &mut |_| {}).expect("a winner");
            let seen = line.verified.iter().flatten().chain(&line.timed).any(|v| v == "v5");
            assert_eq!(seen, every_variant, "verified {:?}, timed {:?}", line.verified, line.timed);
            assert_eq!(entry.winner, if every_variant { "v5" } else { "v6" });
            assert_eq!(entry.candidates.len(), if every_variant { 7 } else { 6 });
        }
    }

    /// A search cut short — a sample, a spent budget, a descent that never reaches it — times the stored winner of
    /// its key first and keeps it (a 1-candidate search replaced a winner 35 % faster with the baseline).
    #[test]
    fn a_search_cut_short_keeps_the_stored_winner() {
        let times = vec![1.0, 1.2, 0.8, 0.6, 0.5, 0.4, 0.45];
        let stored = entry("v5", &[("v5", Some(0.4))]);
        let budget = TuneOptions { budget: Some(Duration::ZERO), repeats: 3, ..TuneOptions::default() };
        let sample = TuneOptions { strategy: Strategy::Random(0), repeats: 3, ..TuneOptions::default() };
        let greedy = TuneOptions { strategy: Strategy::Greedy, repeats: 3, ..TuneOptions::default() };
        for opts in [budget, sample, greedy] {
            let mut line = Line { times: times.clone(), unsearched: None, timed: Vec::new(), verified: Vec::new() };
            let found = tune(&mut line, &mut NoDevice::new(), &opts, Some(&stored), None, true, &mut |_| {});
            let entry = found.expect("a winner");
            assert_eq!(entry.winner, "v5", "{:?}: timed {:?}", opts.strategy, line.timed);
            assert_eq!(line.timed.first().map(String::as_str), Some("v5"), "{:?}", opts.strategy);
        }
        // a stored winner that is no longer a candidate is not timed
        let gone = entry("v9", &[("v9", Some(0.1))]);
        let mut line = Line { times, unsearched: None, timed: Vec::new(), verified: Vec::new() };
        let opts = TuneOptions { repeats: 3, ..TuneOptions::default() };
        let entry =
            tune(&mut line, &mut NoDevice::new(), &opts, Some(&gone), None, true, &mut |_| {}).expect("a winner");
        assert_eq!(entry.winner, "v5");
        assert!(!line.timed.iter().any(|t| t == "v9"), "{:?}", line.timed);
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
