//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod cost;
mod gemm_host;
mod mirror;
mod mixed;
mod search;
mod tuning_buffers;

/// Values of the local arrays a kernel declares (`LOCAL_MEM … name[N];`).
pub(crate) fn declared_local_values(source: &str) -> usize {
    source
        .lines()
        .filter(|l| l.trim_start().starts_with("LOCAL_MEM"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next()?.parse::<usize>().ok())
        .sum()
}
