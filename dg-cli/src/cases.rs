//! `dg cases`: the available cases.

/// Prints every case with its description.
pub fn execute() -> anyhow::Result<()> {
    // each description says whether the case has an exact solution
    for case in dg_cases::all() {
        println!("{:<24} {}", case.name(), case.description());
    }
    for case in dg_cases::euler::all() {
        println!("{:<24} {}", case.name(), case.description());
    }
    for case in dg_cases::waves::all() {
        println!("{:<24} {}", case.name(), case.description());
    }
    for case in dg_cases::hex::all() {
        println!("{:<24} {}", case.name(), case.description());
    }
    for case in dg_cases::fv::all() {
        println!("{:<24} {}", case.name(), case.description());
    }
    for case in dg_cases::elliptic::all() {
        println!("{:<24} {}", case.name(), case.description());
    }
    Ok(())
}
