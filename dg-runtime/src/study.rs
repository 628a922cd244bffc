//! The one convergence study of every formulation: runs over orders × refinement levels, observed orders, and
//! the report. The formulation supplies one run (an order on a level's mesh → mesh size, error, seconds).

use serde::Serialize;

/// What one run of a study measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelRun {
    /// Mesh size (longest edge).
    pub h: f64,
    /// The error the study tracks (an L2 norm).
    pub error: f64,
    /// Wall time of the run's time loop, seconds.
    pub seconds: f64,
}

/// Errors and observed orders of one polynomial order over the refinement levels.
#[derive(Debug, Clone, Serialize)]
pub struct OrderResult {
    /// Polynomial order.
    pub order: usize,
    /// Mesh size per level.
    pub h: Vec<f64>,
    /// L2 error per level.
    pub l2: Vec<f64>,
    /// Observed order between consecutive levels: log(e_i / e_{i+1}) / log(h_i / h_{i+1}).
    pub rates: Vec<f64>,
    /// Wall time of each run's time loop, seconds.
    pub seconds: Vec<f64>,
}

/// A convergence study.
#[derive(Debug, Clone, Serialize)]
pub struct ConvergenceStudy {
    /// Case name.
    pub case: String,
    /// What the error measures ("L2 error", "density L2 error", …).
    pub error: String,
    /// The formulation that ran it.
    pub formulation: String,
    /// Where it ran.
    pub device: String,
    /// Per order.
    pub results: Vec<OrderResult>,
}

/// Why a study failed.
#[derive(Debug, thiserror::Error)]
pub enum StudyError<E> {
    /// Fewer than two levels, or no order.
    #[error("{0}")]
    Plan(String),
    /// A run's error is not a finite number: that run diverged or produced nothing to measure.
    #[error("order {order}, level {level}: the error is {error}, not a finite number")]
    NotFinite {
        /// Order.
        order: usize,
        /// Level.
        level: usize,
        /// The value.
        error: f64,
    },
    /// A run failed.
    #[error("order {order}, level {level}: {source}")]
    Run {
        /// Order.
        order: usize,
        /// Level.
        level: usize,
        /// What went wrong.
        source: E,
    },
}

/// What a study covers and how to label it.
#[derive(Debug, Clone)]
pub struct StudyPlan {
    /// Case name.
    pub case: String,
    /// What the error measures.
    pub error: String,
    /// The formulation.
    pub formulation: String,
    /// Where it runs.
    pub device: String,
    /// Orders.
    pub orders: std::ops::RangeInclusive<usize>,
    /// Levels: the base mesh and its refinements.
    pub levels: usize,
}

/// Runs `run(order, level)` for every order of the plan on every level, in that order; `progress(order, level)`
/// before each run. Rates are computed here, once; a non-finite error fails the study.
pub fn convergence_study<E>(
    plan: &StudyPlan,
    run: &mut dyn FnMut(usize, usize) -> Result<LevelRun, E>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, StudyError<E>> {
    if plan.levels < 2 {
        return Err(StudyError::Plan(format!("a convergence study needs at least 2 levels, got {}", plan.levels)));
    }
    if plan.orders.is_empty() {
        return Err(StudyError::Plan("a convergence study needs at least one order".into()));
    }
    let mut results = Vec::new();
    for order in plan.orders.clone() {
        let (mut h, mut l2, mut seconds) = (Vec::new(), Vec::new(), Vec::new());
        for level in 0..plan.levels {
            progress(order, level);
            let r = run(order, level).map_err(|source| StudyError::Run { order, level, source })?;
            if !r.error.is_finite() {
                return Err(StudyError::NotFinite { order, level, error: r.error });
            }
            h.push(r.h);
            l2.push(r.error);
            seconds.push(r.seconds);
        }
        let rates = (1..h.len()).map(|i| (l2[i - 1] / l2[i]).ln() / (h[i - 1] / h[i]).ln()).collect();
        results.push(OrderResult { order, h, l2, rates, seconds });
    }
    Ok(ConvergenceStudy {
        case: plan.case.clone(),
        error: plan.error.clone(),
        formulation: plan.formulation.clone(),
        device: plan.device.clone(),
        results,
    })
}

/// Extra reduction of the step at refinement `level` for spatial order `order` and a time integrator of order
/// `time_order`: with dt ∝ h·2^(−level·s), the O(dtᵠ) time error falls like h^(q(1+s)); s = max(0, (N + 1)/q − 1)
/// keeps it at the spatial rate N + 1.
pub fn time_accuracy_factor(order: usize, level: usize, time_order: usize) -> f64 {
    let s = ((order as f64 + 1.0) / time_order.max(1) as f64 - 1.0).max(0.0);
    0.5f64.powf(level as f64 * s)
}

impl ConvergenceStudy {
    /// The study as a table: one line per run with h, error and the observed order.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{} ({}, {}): {} and observed order\n{:>3} {:>10} {:>14} {:>7}\n",
            self.case, self.formulation, self.device, self.error, "N", "h", "error", "rate"
        );
        for r in &self.results {
            for (i, (h, e)) in r.h.iter().zip(&r.l2).enumerate() {
                let rate = if i == 0 { String::from("-") } else { format!("{:.2}", r.rates[i - 1]) };
                s += &format!("{:>3} {:>10.5} {:>14.4e} {:>7}\n", r.order, h, e, rate);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(levels: usize) -> StudyPlan {
        StudyPlan {
            case: "c".into(),
            error: "L2 error".into(),
            formulation: "f".into(),
            device: "cpu".into(),
            orders: 1..=2,
            levels,
        }
    }

    #[test]
    fn rates_of_a_known_power_law() {
        let mut run = |order: usize, level: usize| -> Result<LevelRun, ()> {
            let h = 0.5f64.powi(level as i32);
            Ok(LevelRun { h, error: 3.0 * h.powi(order as i32 + 1), seconds: 0.0 })
        };
        let study = convergence_study(&plan(3), &mut run, &mut |_, _| {}).unwrap();
        for r in &study.results {
            for rate in &r.rates {
                assert!((rate - (r.order + 1) as f64).abs() < 1e-12, "{rate}");
            }
        }
        assert!(study.table().contains("2.00"));
    }

    #[test]
    fn a_nan_error_fails_the_study() {
        let mut run = |_: usize, level: usize| -> Result<LevelRun, ()> {
            Ok(LevelRun { h: 1.0, error: if level == 1 { f64::NAN } else { 1.0 }, seconds: 0.0 })
        };
        let err = convergence_study(&plan(2), &mut run, &mut |_, _| {}).unwrap_err();
        assert!(matches!(err, StudyError::NotFinite { order: 1, level: 1, .. }), "{err:?}");
        let err = convergence_study(&plan(1), &mut run, &mut |_, _| {}).unwrap_err();
        assert!(matches!(err, StudyError::Plan(_)));
    }
}
