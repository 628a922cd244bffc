//! The energy kernel on the OpenCL device (PoCL in CI): the state's mass-weighted square norm formed on the device,
//! one term per element (`DeviceOperator::square_norm`), must match the host's `DgSpace2d::square_norm` on random
//! states in every layout, cover the last, partly filled group, and carry a non-finite value into the norm.

use dg_codegen::{LawInput, Target};
use dg_core::law::ConservationLaw;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_nodal_tri::device::DeviceOperator;
use dg_nodal_tri::variant::Variant;
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::verify::random_state;

/// A random state's (device norm, host norm), then the same state's with its last value changed.
type NormPairs = [(f64, f64); 2];

/// (device norm, host norm) of random states on `space` for `spec`, and the device norm of the same state with the
/// last element's last value changed to `last` (the host norm of that state second).
fn norms<T: Real>(device: &mut dyn Device, space: &DgSpace2d, spec: &str, last: f64) -> NormPairs {
    let law = dg_laws::MaxwellTm::default();
    let ir = dg_runtime::formulation::law_ir(&law).expect("registered law");
    let params = law.param_values();
    let input = LawInput { ir: &ir, params: &params, numerical_flux: law.numerical_flux_name() };
    let variant: Variant = spec.parse().expect("a SPEC");
    let source = DeviceOperator::<T>::kernel_source(device, Target::OpenCl, &input, &space.element, &variant)
        .expect("the program renders");
    let program = DeviceOperator::<T>::compile(device, &source).expect("the program builds");
    let binding = BoundaryBinding::for_law(&law, space, &Default::default()).expect("bound");
    let op = DeviceOperator::<T>::with_program(device, source, program, space, &binding, &[]).expect("operator");
    let nv = dg_laws::MaxwellTm::NVARS;
    let names = law.variable_names();
    let mut q: Vec<T> = random_state(names, space.element.np, space.num_elements(), spec.len() as u64);
    let buffer = op.new_state(device).expect("a state buffer");
    let mut pair = |q: &[T]| {
        op.write_state(device, buffer, q).expect("upload");
        let (on_device, seconds) = op.square_norm(device, buffer).expect("the energy kernel runs");
        assert!(seconds >= 0.0, "{spec}: {seconds}");
        (on_device, space.square_norm(nv, q))
    };
    let random = pair(&q);
    if let Some(value) = q.last_mut() {
        *value = T::from_f64(last);
    }
    [random, pair(&q)]
}

#[test]
fn the_energy_kernel_matches_the_host_in_every_layout() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let device = device.as_mut();
    // 2·7·9 = 126 elements: no multiple of the kernel's 128, of the tiles' 32 or of the microblocks
    let mut mesh = dg_core::mesh::rectangle(&dg_core::mesh::RectangleSpec {
        nx: 7,
        ny: 9,
        ..dg_core::mesh::RectangleSpec::unit_square(1)
    })
    .expect("mesh");
    dg_core::mesh::perturb_interior(&mut mesh, 0.2, 7);
    for order in [3, 8] {
        let space = DgSpace2d::new(mesh.clone(), order).expect("space");
        let f64_specs = [
            "node/mb1/seq1/field-local/fused/elem-major/f64",
            "elem/wg32/seq1/field-local/merged/node-major/f64",
            "tile4/wg32/seq1/matrix-local/merged/tiled/f64",
        ];
        let f32_specs =
            ["node/mb2/seq1/field-local/fused/elem-major/f32", "tile4/wg32/seq1/matrix-local/merged/tiled/f32"];
        let mut results: Vec<(&str, f64, NormPairs)> = Vec::new();
        for spec in f64_specs {
            results.push((spec, 1e-13, norms::<f64>(device, &space, spec, 40.0)));
        }
        for spec in f32_specs {
            results.push((spec, 2e-6, norms::<f32>(device, &space, spec, 40.0)));
        }
        for (spec, tolerance, pairs) in results {
            for (on_device, on_host) in pairs {
                let relative = (on_device - on_host).abs() / on_host.abs();
                // (a NaN fails the comparison: never `max`)
                assert!(relative <= tolerance, "N = {order}, {spec}: device {on_device:e}, host {on_host:e}");
            }
            // the last element's value changed to 40 moves both norms by the same amount: the last group is summed
            let [(d0, h0), (d1, h1)] = pairs;
            assert!(h1 - h0 > 1e-3 * h0, "N = {order}, {spec}: {pairs:?}");
            assert!(((d1 - d0) - (h1 - h0)).abs() <= 4.0 * tolerance * h1, "N = {order}, {spec}: {pairs:?}");
        }
    }
    // a non-finite value comes through as one
    let space = DgSpace2d::new(mesh, 3).expect("space");
    let [_, (on_device, _)] =
        norms::<f64>(device, &space, "elem/wg32/seq1/field-local/merged/node-major/f64", f64::NAN);
    assert!(on_device.is_nan(), "{on_device}");
    let [_, (on_device, _)] =
        norms::<f32>(device, &space, "tile4/wg32/seq1/matrix-local/merged/tiled/f32", f64::INFINITY);
    assert!(!on_device.is_finite(), "{on_device}");
}
