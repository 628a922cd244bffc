//! The start-up timeline of a run: named marks in seconds since the program started (the first mark), so that a
//! report can say where the time to the first step went (`"startup"` in `dg run --json`).

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// Marks in order: (phase, seconds since the start at its end), closed once [`FIRST_STEP`] is marked.
#[derive(Debug, Default)]
struct Timeline(Vec<(String, f64)>);

impl Timeline {
    fn mark(&mut self, phase: &str, t: f64) {
        if self.0.last().is_some_and(|(last, _)| last == FIRST_STEP) {
            return;
        }
        self.0.push((phase.to_string(), t));
    }
}

fn marks() -> &'static Mutex<Timeline> {
    static MARKS: Mutex<Timeline> = Mutex::new(Timeline(Vec::new()));
    &MARKS
}

/// Seconds since the program's first mark (the program calls [`start`] first thing).
pub fn elapsed() -> f64 {
    origin().elapsed().as_secs_f64()
}

/// Starts the clock (idempotent): the program calls it before anything else.
pub fn start() {
    let _ = origin();
}

/// The phase that ends the start-up: later marks (a study's further runs, a tuner's operators) are not kept.
pub const FIRST_STEP: &str = "first step";

/// Records that `phase` ended now (until [`FIRST_STEP`] has been marked).
pub fn mark(phase: &str) {
    let t = elapsed();
    if let Ok(mut m) = marks().lock() {
        m.mark(phase, t);
    }
}

/// The marks so far: (phase, seconds since the start at its end).
pub fn timeline() -> Vec<(String, f64)> {
    marks().lock().map(|m| m.0.clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{Timeline, FIRST_STEP};

    #[test]
    fn marks_are_kept_in_order_until_the_first_step() {
        let mut t = Timeline::default();
        t.mark("a", 0.1);
        t.mark("b", 0.2);
        t.mark(FIRST_STEP, 0.3);
        t.mark("after", 0.4);
        let phases: Vec<&str> = t.0.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(phases, ["a", "b", FIRST_STEP], "nothing is kept after the first step");
        super::start();
        assert!(super::elapsed() >= 0.0);
    }
}
