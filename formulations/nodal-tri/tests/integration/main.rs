//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod cost;
mod energy;
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

/// The Maxwell TM program of `variant` at `order` for `target`, less its first line (the comment naming the variant).
pub(crate) fn maxwell_program(
    order: usize,
    variant: &dg_nodal_tri::variant::Variant,
    target: dg_codegen::Target,
) -> String {
    let law = dg_laws::MaxwellTm::default();
    let ir = dg_runtime::formulation::law_ir(&law).expect("registered law");
    let params = dg_core::law::ConservationLaw::param_values(&law);
    let input = dg_codegen::LawInput {
        ir: &ir,
        params: &params,
        numerical_flux: dg_core::law::ConservationLaw::numerical_flux_name(&law),
    };
    let element = dg_core::triangle::ReferenceTriangle::new(order).expect("order");
    let source = dg_nodal_tri::render::render_nodal_tri(&input, &element, variant, target).expect("renders").source;
    source.split_once('\n').map_or(source.clone(), |(_, rest)| rest.to_string())
}
