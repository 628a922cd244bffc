//! The start-up timeline of a run: named marks in seconds since the program started (the first mark), so that a
//! report can say where the time to the first step went (`"startup"` in `dg run --json`).

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

fn marks() -> &'static Mutex<Vec<(String, f64)>> {
    static MARKS: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());
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

/// Records that `phase` ended now.
pub fn mark(phase: &str) {
    let t = elapsed();
    if let Ok(mut m) = marks().lock() {
        m.push((phase.to_string(), t));
    }
}

/// The marks so far: (phase, seconds since the start at its end).
pub fn timeline() -> Vec<(String, f64)> {
    marks().lock().map(|m| m.clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn marks_are_kept_in_order_with_increasing_times() {
        super::start();
        super::mark("a");
        super::mark("b");
        let t = super::timeline();
        let (a, b) = (t.iter().position(|m| m.0 == "a").unwrap(), t.iter().position(|m| m.0 == "b").unwrap());
        assert!(a < b && t[a].1 <= t[b].1);
    }
}
