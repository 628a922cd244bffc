//! The memory this machine has available (Linux's `MemAvailable`), and the check that refuses a run whose least
//! memory exceeds it: a run far too large for the machine ends with the figures instead of an allocation failure
//! (the process aborting, or the kernel's out-of-memory killer) minutes into building it.

/// `MemAvailable` of `/proc/meminfo`, in bytes; `None` where the system does not say.
pub fn available_bytes() -> Option<u128> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

fn parse_mem_available(meminfo: &str) -> Option<u128> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u128 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => Some(value * 1024),
        _ => None,
    }
}

/// Refuses `least` bytes (what `made` needs at the least, e.g. "--nx 20000 makes 800000000 triangles, which need")
/// when this machine has less available, with the figures and `advice`; passes where the available memory is
/// unknown.
pub fn ensure_available(least: u128, made: &str, advice: &str) -> Result<(), String> {
    ensure_available_in(available_bytes(), least, made, advice)
}

/// [`ensure_available`] against `available` bytes.
pub fn ensure_available_in(available: Option<u128>, least: u128, made: &str, advice: &str) -> Result<(), String> {
    match available {
        Some(available) if least > available => {
            let gb = |bytes: u128| bytes as f64 / 1e9;
            Err(format!(
                "{made} at least {:.1} GB of memory; this machine has {:.1} GB available: {advice}",
                gb(least),
                gb(available)
            ))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_gives_the_available_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   23000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(23_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: 5 MB\n"), None);
    }

    #[test]
    fn more_than_is_available_is_refused_with_the_figures() {
        let available = Some(8_000_000_000);
        assert_eq!(
            ensure_available_in(available, 9_000_000_000, "--min-dofs 375000000 needs", "smaller"),
            Err("--min-dofs 375000000 needs at least 9.0 GB of memory; this machine has 8.0 GB available: smaller"
                .into())
        );
        assert!(ensure_available_in(available, 8_000_000_000, "x", "y").is_ok());
        assert!(ensure_available_in(None, u128::MAX, "x", "y").is_ok());
    }
}
