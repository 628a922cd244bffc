//! `dg cases`: the available cases.

/// Prints every case with its description.
pub fn execute() -> anyhow::Result<()> {
    for case in dg::cases::all() {
        let exact = if case.has_exact() { "exact solution" } else { "no exact solution" };
        println!("{:<18} {} ({exact})", case.name(), case.description());
    }
    Ok(())
}
