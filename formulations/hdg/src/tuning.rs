//! The local generation's choices in the tuning database: the key of a problem's operator at a degree and size, and
//! the entry a run's timed and checked candidates make, so that later runs of the key take the stored winner (still
//! checked against the CPU's element solves) without timing the others.

use crate::device::{DeviceSolution, LocalSolve, LOCAL_TOLERANCE};
use crate::render::TEMPLATES;
use crate::HelmholtzProblem;
use dg_runtime::tuning_db::{Candidate, Entry, KernelFamily, TuningKey};
use dg_runtime::verify::VerifyOutcome;
use std::sync::OnceLock;

/// The code fingerprint of the HDG kernels: their templates, the renderer and the reference tables' generator (the
/// host's launch code is not in it, as for the other formulations).
pub fn code_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut inputs: Vec<&str> = TEMPLATES.iter().map(|(_, t)| *t).collect();
        inputs.extend([include_str!("render.rs"), include_str!("tables.rs")]);
        // the reference triangle the tables are built on
        inputs.extend(dg_core::triangle::GENERATOR_SOURCES);
        dg_codegen::fingerprint::code_hash(&inputs)
    })
}

/// The kernel family of the HDG local generation's keys.
pub fn family() -> KernelFamily {
    KernelFamily { formulation: "hdg", element: "tri", code: code_hash() }
}

/// Whether `key` is one of this program's HDG keys (its kernels' code fingerprint).
pub fn owns(key: &TuningKey) -> bool {
    let f = family();
    key.formulation == f.formulation && key.element == f.element && key.code == f.code
}

/// The key of the local generation for `problem`'s operator (κ and λ; τ = 1) at degree `order` on a mesh of
/// `elements` triangles (its size: element modes).
pub fn tuning_key(problem: &HelmholtzProblem, order: usize, elements: usize) -> TuningKey {
    let operator = format!("kappa {:e} lambda {:e}", problem.kappa, problem.lambda);
    let operator_hash = dg_codegen::fingerprint::code_hash(&[&operator]);
    let modes = (order + 1) * (order + 2) / 2;
    TuningKey::new(family(), "helmholtz", &operator_hash, "tau1", order, "f64", "local", (elements * modes) as u64)
}

/// A variant's text: the element solve and the width, as `--variant` takes them (`cublas-lu/w256`).
pub fn variant_name(solve: LocalSolve, width: usize) -> String {
    format!("{}/w{width}", solve.name())
}

/// The database entry of a run that timed and checked every candidate: the kept one the winner, each checked one
/// verified as its check left it (the candidates set aside failed theirs), their device seconds.
pub fn entry_of(solution: &DeviceSolution, elements: usize, driver: &str) -> Entry {
    let mut candidates: Vec<Candidate> = solution
        .local_trials
        .iter()
        .map(|t| {
            let check = VerifyOutcome::compared(variant_name(t.solve, t.width), t.error, LOCAL_TOLERANCE);
            Candidate::checked(&check, Some((t.seconds, 0.0)), Some("one run on the solve's own mesh".into()))
        })
        .collect();
    candidates.extend(solution.local_refused.iter().map(|r| {
        let check = VerifyOutcome::failed(r.variant.clone(), r.reason.clone());
        Candidate::checked(&check, None, None)
    }));
    let modes = solution.solution.u.first().map_or(0, Vec::len);
    Entry {
        winner: variant_name(solution.local_solve, solution.local_width),
        median_s: solution.device_seconds.local,
        dofs: (elements * modes) as u64,
        gflops: solution.local_gflops,
        gbs: 0.0,
        roofline_percent: None,
        candidates,
        date: dg_runtime::pipeline::today(),
        driver: Some(driver.to_string()),
        strategy: "exhaustive".into(),
    }
}
