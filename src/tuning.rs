//! The autotuner: candidates from a strategy, verification first, device timing (warm-up, repeats, median
//! and spread) on a problem of at least `min_dofs` degrees of freedom, a winner with hysteresis, and its
//! tuning-database entry.

use crate::kernels::{law_ir, target_of, valid_variants, VerificationSetup};
use dg_codegen::cost::rhs_cost;
use dg_codegen::render::{render, LawInput};
use dg_codegen::variant::{
    DeviceLimits, Formulation, LawShape, Layout, Partition, Precision, Storage, Surface, Variant,
};
use dg_codegen::KernelFamily;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{rectangle, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::device_operator::DeviceOperator;
use dg_runtime::tuning_db::{Candidate, Ceilings, DeviceDb, Entry, TuningKey};
use dg_runtime::verify::{random_state, verify_variant, VerifyProblem};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How candidates are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Every valid variant.
    Exhaustive,
    /// A random sample of this many.
    Random(usize),
    /// Coordinate descent from seed 000's baseline: one axis at a time, keep the best, until no axis improves.
    Greedy,
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "exhaustive" => Ok(Self::Exhaustive),
            "greedy" => Ok(Self::Greedy),
            _ => match s.strip_prefix("random") {
                Some(rest) => Ok(Self::Random(rest.trim_start_matches(':').parse().unwrap_or(16))),
                None => Err(format!("unknown strategy `{s}`: exhaustive, random[:N] or greedy")),
            },
        }
    }
}

impl Strategy {
    fn name(&self) -> String {
        match self {
            Strategy::Exhaustive => "exhaustive".into(),
            Strategy::Random(n) => format!("random:{n}"),
            Strategy::Greedy => "greedy".into(),
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
    /// Smallest timing problem, in degrees of freedom.
    pub min_dofs: u64,
    /// Timed repetitions per candidate (after 3 warm-up runs).
    pub repeats: usize,
    /// A previous winner is kept unless the new one is this much faster (relative).
    pub hysteresis: f64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        Self { strategy: Strategy::Exhaustive, budget: None, min_dofs: DEFAULT_MIN_DOFS, repeats: 20, hysteresis: 0.03 }
    }
}

/// Seed 000's demonstration layout: one microblock per group, node per thread, field in local memory, fused
/// surface.
pub fn seed_baseline(precision: Precision) -> Variant {
    Variant {
        partition: Partition::Node,
        group: 1,
        seq: 1,
        storage: Storage::FieldLocal,
        surface: Surface::Fused,
        layout: Layout::ElementMajor,
        precision,
        formulation: Formulation::FluxFirst,
    }
}

fn median_and_spread(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let m = at(0.5);
    (m, (at(0.9) - at(0.1)) / m)
}

/// The timing problem: a structured square mesh with at least `min_dofs` DOFs.
pub fn timing_space(order: usize, nvars: usize, min_dofs: u64) -> anyhow::Result<DgSpace2d> {
    let np = dg_core::triangle::num_nodes(order) as f64;
    let n = ((min_dofs as f64 / (2.0 * np * nvars as f64)).sqrt().ceil() as usize).max(2);
    let mesh = rectangle(&RectangleSpec { periodic_x: true, periodic_y: true, ..RectangleSpec::unit_square(n) })?;
    Ok(DgSpace2d::new(mesh, order)?)
}

/// Times one variant on `space`: median seconds per right-hand side and spread.
pub fn time_variant<L: ConservationLaw, T: Real>(
    device: &mut dyn Device,
    law: &L,
    ir: &dg_ir::LawIr,
    space: &DgSpace2d,
    variant: &Variant,
    repeats: usize,
) -> anyhow::Result<(f64, f64)> {
    let binding = BoundaryBinding::for_law(law, space, &HashMap::new())?;
    let materials = vec![1.0; space.num_elements() * L::NMATERIALS];
    let target = target_of(device);
    let result = (|| -> anyhow::Result<(f64, f64)> {
        let op = DeviceOperator::<T>::new(
            device,
            target,
            ir,
            &law.param_values(),
            law.numerical_flux_name(),
            space,
            &binding,
            &materials,
            variant,
        )?;
        let q = random_state::<T>(law.variable_names(), space.element.np, space.num_elements(), 7);
        op.upload_state(device, &q)?;
        op.apply(device, 0.0, 3)?;
        let times = op.apply(device, 0.0, repeats)?;
        Ok(median_and_spread(times))
    })();
    device.free_buffers();
    result
}

/// What `dg bench` measures of a stored winner now.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WinnerNow {
    /// Whether it matches the CPU reference now: on the verification mesh and on the timing problem.
    pub verified: bool,
    /// The larger of the two relative differences (NaN if an output was not written).
    pub relative_error: f64,
    /// Degrees of freedom of the timing problem.
    pub dofs: u64,
    /// Median seconds per right-hand side.
    pub median_s: f64,
    /// Relative spread (p90 − p10) / median.
    pub spread: f64,
    /// Cost-model GFLOP/s.
    pub gflops: f64,
    /// Cost-model GB/s (bytes as the variant moves them).
    pub gbs: f64,
    /// Percent of the roofline bound with the device's measured ceilings.
    pub roofline_percent: f64,
}

/// Verifies `variant` (on the verification mesh and on the timing problem of `min_dofs` DOFs) and times it there,
/// as `dg bench` does for a stored winner: every figure is measured now.
pub fn measure_winner<L: ConservationLaw + Clone>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    variant: &Variant,
    min_dofs: u64,
    repeats: usize,
    ceilings: &Ceilings,
) -> anyhow::Result<WinnerNow> {
    match variant.precision {
        Precision::F32 => measure_winner_in::<L, f32>(device, law, order, variant, min_dofs, repeats, ceilings),
        Precision::F64 => measure_winner_in::<L, f64>(device, law, order, variant, min_dofs, repeats, ceilings),
    }
}

fn measure_winner_in<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    variant: &Variant,
    min_dofs: u64,
    repeats: usize,
    ceilings: &Ceilings,
) -> anyhow::Result<WinnerNow> {
    let ir = law_ir(law);
    let target = target_of(device);
    let setup = VerificationSetup::new(law, order)?;
    let small = verify_variant::<L, T>(device, target, &setup.problem(law, &ir), variant, 11);
    let space = timing_space(order, L::NVARS, min_dofs)?;
    let binding = BoundaryBinding::for_law(law, &space, &HashMap::new())?;
    let materials = random_materials::<L>(space.num_elements(), 23);
    let problem = VerifyProblem { law, ir: &ir, space: &space, binding: &binding, materials: &materials };
    let at_size = verify_variant::<L, T>(device, target, &problem, variant, 29);
    let (median_s, spread) = time_variant::<L, T>(device, law, &ir, &space, variant, repeats)?;
    let cost = rhs_cost(&ir, law.numerical_flux_name(), order, space.num_elements(), variant);
    Ok(WinnerNow {
        verified: small.passed && at_size.passed,
        relative_error: dg_core::max_or_nan(small.relative_error, at_size.relative_error),
        dofs: (space.num_nodes() * L::NVARS) as u64,
        median_s,
        spread,
        gflops: cost.flops / median_s * 1e-9,
        gbs: cost.bytes / median_s * 1e-9,
        roofline_percent: ceilings.roofline_percent(cost.flops, cost.bytes, median_s, T::NAME == "f64", false),
    })
}

/// Progress events of a tuning run.
pub enum TuneEvent<'a> {
    /// Starting an (order, precision) with this many candidates.
    Start { order: usize, precision: Precision, candidates: usize },
    /// One candidate done.
    Candidate(&'a Candidate),
}

/// Tunes one order and precision: verifies and times the strategy's candidates, checks the fastest again at the
/// timing size against the CPU reference (the next fastest wins if it fails), and keeps `db`'s previous winner of
/// the same key unless the new one is faster by the hysteresis. Returns the key and the entry to store.
#[allow(clippy::too_many_arguments)]
pub fn tune<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    opts: &TuneOptions,
    db: &DeviceDb,
    ceilings: Option<&Ceilings>,
    progress: &mut dyn FnMut(TuneEvent<'_>),
) -> anyhow::Result<(TuningKey, Entry)> {
    let precision = if T::NAME == "f32" { Precision::F32 } else { Precision::F64 };
    let ir = law_ir(law);
    let target = target_of(device);
    let limits = DeviceLimits { local_memory: device.local_memory(), max_work_group: device.max_work_group() };
    let (valid, _) = valid_variants(order, &LawShape::of(&ir), precision, &limits);
    let setup = VerificationSetup::new(law, order)?;
    let space = timing_space(order, L::NVARS, opts.min_dofs)?;
    let dofs = (space.num_nodes() * L::NVARS) as u64;
    let nflux = law.numerical_flux_name();
    let db_key = TuningKey::new(KernelFamily::NodalTri, law.name(), &ir.hash(), nflux, order, T::NAME, "rhs", dofs);
    let previous = db.get(&db_key);
    let started = Instant::now();
    let list: Vec<Variant> = match opts.strategy {
        Strategy::Exhaustive => valid.clone(),
        Strategy::Random(n) => {
            let mut list = valid.clone();
            list.shuffle(&mut rand::rngs::StdRng::seed_from_u64(order as u64));
            list.truncate(n);
            let base = seed_baseline(precision);
            if valid.contains(&base) && !list.contains(&base) {
                list.push(base);
            }
            list
        }
        Strategy::Greedy => Vec::new(),
    };
    let announced = if opts.strategy == Strategy::Greedy { valid.len() } else { list.len() };
    {
        let input = LawInput { ir: &ir, params: &law.param_values(), numerical_flux: nflux };
        let ahead = if opts.strategy == Strategy::Greedy { &valid } else { &list };
        let sources: Vec<String> =
            ahead.iter().filter_map(|v| render(&input, &space.element, v, target).ok().map(|s| s.source)).collect();
        device.prepare(&sources);
    }
    progress(TuneEvent::Start { order, precision, candidates: announced });
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut evaluate = |v: &Variant, device: &mut dyn Device, candidates: &mut Vec<Candidate>| -> Option<f64> {
        if let Some(c) = candidates.iter().find(|c| c.variant == v.to_string()) {
            return c.median_s;
        }
        let over_budget = opts.budget.is_some_and(|b| started.elapsed() > b);
        let check = verify_variant::<L, T>(device, target, &setup.problem(law, &ir), v, 11);
        let candidate = if over_budget {
            Candidate::checked(&check, None, Some("time budget spent".into()))
        } else if !check.passed {
            Candidate::checked(&check, None, None)
        } else {
            match time_variant::<L, T>(device, law, &ir, &space, v, opts.repeats) {
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
            for v in &list {
                evaluate(v, device, &mut candidates);
            }
        }
        Strategy::Greedy => {
            let mut best = seed_baseline(precision);
            if !valid.contains(&best) {
                best = valid.first().copied().ok_or_else(|| anyhow::anyhow!("no valid variant"))?;
            }
            let mut best_time = evaluate(&best, device, &mut candidates).unwrap_or(f64::INFINITY);
            loop {
                let mut improved = false;
                let neighbours: Vec<Variant> =
                    valid.iter().filter(|v| differs_in_one_axis(v, &best)).copied().collect();
                for v in neighbours {
                    if let Some(t) = evaluate(&v, device, &mut candidates) {
                        if t < best_time {
                            best = v;
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
    let winner = pick_winner::<L, T>(device, law, &ir, &space, &mut candidates, previous, opts.hysteresis)?;
    let median_s = candidates[winner].median_s.unwrap_or(f64::NAN);
    let winner_spec = candidates[winner].variant.clone();
    let winner_variant: Variant = winner_spec.parse()?;
    let cost = rhs_cost(&ir, nflux, order, space.num_elements(), &winner_variant);
    let entry = Entry {
        winner: winner_spec,
        median_s,
        dofs,
        gflops: cost.flops / median_s * 1e-9,
        gbs: cost.bytes / median_s * 1e-9,
        roofline_percent: ceilings
            .map(|c| c.roofline_percent(cost.flops, cost.bytes, median_s, T::NAME == "f64", false)),
        candidates,
        date: today(),
        strategy: opts.strategy.name(),
        driver: Some(device.fingerprint().driver.clone()),
    };
    Ok((db_key, entry))
}

/// The index of the winner among the timed `candidates`: the fastest that also matches the CPU reference on the
/// timing problem itself (random state and materials, the size the timings were taken at); a candidate failing
/// that check is marked unverified, with the reason, and the next fastest is tried. The `previous` winner is kept
/// while the new fastest is not faster than it by `hysteresis` (both timed now).
fn pick_winner<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    ir: &dg_ir::LawIr,
    space: &DgSpace2d,
    candidates: &mut [Candidate],
    previous: Option<&Entry>,
    hysteresis: f64,
) -> anyhow::Result<usize> {
    let binding = BoundaryBinding::for_law(law, space, &HashMap::new())?;
    let materials = random_materials::<L>(space.num_elements(), 23);
    let problem = VerifyProblem { law, ir, space, binding: &binding, materials: &materials };
    let target = target_of(device);
    loop {
        let mut order: Vec<usize> = (0..candidates.len()).filter(|&i| candidates[i].median_s.is_some()).collect();
        order.sort_by(|&a, &b| {
            candidates[a].median_s.unwrap_or(f64::INFINITY).total_cmp(&candidates[b].median_s.unwrap_or(f64::INFINITY))
        });
        let Some(&fastest) = order.first() else {
            anyhow::bail!("no candidate could be verified and timed for N = {} ({})", space.element.order, T::NAME);
        };
        let mut best = fastest;
        if let Some(prev) = previous {
            if let Some(&old) = order.iter().find(|&&i| candidates[i].variant == prev.winner) {
                let (new_t, old_t) = (
                    candidates[fastest].median_s.unwrap_or(f64::INFINITY),
                    candidates[old].median_s.unwrap_or(f64::INFINITY),
                );
                if new_t > old_t * (1.0 - hysteresis) {
                    best = old;
                }
            }
        }
        let variant: Variant = candidates[best].variant.parse()?;
        let check = verify_variant::<L, T>(device, target, &problem, &variant, 29);
        if check.passed {
            return Ok(best);
        }
        let note = format!("failed at the timing size ({} elements)", space.num_elements());
        candidates[best] = Candidate::checked(&check, None, Some(note));
    }
}

/// Per-element materials drawn in [0.5, 2] (coefficients that jump across every face).
pub fn random_materials<L: ConservationLaw>(elements: usize, seed: u64) -> Vec<f64> {
    use rand::Rng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..elements * L::NMATERIALS).map(|_| rng.random_range(0.5..2.0)).collect()
}

fn differs_in_one_axis(a: &Variant, b: &Variant) -> bool {
    let axes = [
        a.partition != b.partition,
        a.group != b.group,
        a.seq != b.seq,
        a.storage != b.storage,
        a.surface != b.surface,
        a.layout != b.layout,
        a.formulation != b.formulation,
    ];
    axes.iter().filter(|&&d| d).count() == 1
        || (a.partition != b.partition && a.storage == b.storage && a.surface == b.surface)
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
