//! The mirror tiles (`mirror<t>/…`, the operator folded by the triangle's mirror symmetry): their rules, their cost
//! (half the tiles' products, counted by hand here), and the flux-first mirror tiles of nonlinear laws (which the
//! tuner's list, mixed only, never meets) against the CPU operator on the OpenCL device, with a source term in the
//! store and a planted bug that must fail them. The mixed mirror tiles are checked with the other mixed variants
//! (`mixed.rs`). The staged mirror tiles (`staged<t>/…`, valid on request, not in the list) are checked here: their
//! rules, the local memory they declare, and every group size, one and two groups in sequence, one to four chunks,
//! both precisions, flux-first and mixed, against the CPU operator on the OpenCL device, planted bugs failing them.

use dg_codegen::{Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_nodal_tri::cost::rhs_cost;
use dg_nodal_tri::variant::{LawShape, MirrorInputs, Partition, Variant, WholeRows};
use dg_nodal_tri::verify::verify_at_order;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::formulation::law_ir;

#[test]
fn the_rules_refuse_what_the_mirror_kernel_does_not_generate_with_a_reason() {
    let shape = LawShape::of(&law_ir(&dg_laws::MaxwellTm::default()).unwrap());
    let limits = dg_codegen::DeviceLimits { local_memory: 48 * 1024, ..Default::default() };
    let reason = |spec: &str, order: usize| {
        let v: Variant = spec.parse().unwrap();
        v.check(order, &shape, &limits).err().map(|e| e.to_string())
    };
    assert_eq!(reason("mirror4/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 6), None);
    assert_eq!(reason("mirror3/wg32/seq1/field-local/merged/node-major/f64", 5), None);
    assert_eq!(reason("whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 7), None);
    // `whole<t>b<G>` prints as parsed, and G must be a positive number
    let spec = "whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed";
    let v: Variant = spec.parse().unwrap();
    assert_eq!(
        v.partition,
        Partition::Mirror {
            threads: 5,
            inputs: MirrorInputs::WholeElement { min_groups: 5, rows: WholeRows::Consecutive }
        }
    );
    assert_eq!(v.to_string(), spec);
    // `balanced<t>` and `segregated<t>` (and with launch bounds) print as parsed
    for (spec, threads, rows, min_groups) in [
        ("balanced5/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 5, WholeRows::Balanced, 0),
        ("balanced4b6/wg16/seq1/matrix-local/merged/tiled/f64/mixed", 4, WholeRows::Balanced, 6),
        ("segregated6b4/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 6, WholeRows::Segregated, 4),
    ] {
        let v: Variant = spec.parse().unwrap();
        assert_eq!(v.partition, Partition::Mirror { threads, inputs: MirrorInputs::WholeElement { min_groups, rows } });
        assert_eq!(v.to_string(), spec);
        assert_eq!(reason(spec, 8), None, "{spec}");
    }
    for bad in [
        "whole5b0",
        "whole5b",
        "wholeb5",
        "whole5bx",
        "balanced",
        "balancedb5",
        "balanced5b0",
        "balanced0",
        "segregated",
        "segregatedx4",
    ] {
        let spec = format!("{bad}/wg32/seq1/matrix-local/merged/tiled/f32/mixed");
        assert!(spec.parse::<Variant>().is_err(), "{spec} parsed");
    }
    for (spec, order, words) in [
        (
            "mirror4/wg32/seq1/matrix-const/merged/tiled/f32/mixed",
            6,
            "local memory (matrix-local) or through the cache",
        ),
        ("mirror4/wg32/seq1/matrix-local/merged/tiled/f32/diff-first", 6, "flux-first or mixed"),
        ("mirror4/wg32/seq1/matrix-local/fused/node-major/f32", 6, "generated merged"),
        ("mirror4/wg32/seq1/matrix-local/merged/elem-major/f32", 6, "generated merged"),
        // N = 4 has 9 representatives, 18 folded rows: four work items of six leave the last none
        ("mirror4/wg32/seq1/matrix-local/merged/tiled/f64/mixed", 4, "leave one without a row"),
        ("mirror17/wg32/seq1/matrix-local/merged/tiled/f32", 8, "1 to 16 work items"),
        // launch bounds for 10 groups of 7 · 32 work items: 2,240, more than a multiprocessor holds
        ("whole7b10/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 8, "more than the 2048"),
        // N = 7 has 16 pairs and 4 fixed nodes: five work items' even share (4 pairs, 1 fixed node each) leaves the
        // fifth none
        ("balanced5/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 7, "leave one without a row"),
        // segregated, five pair work items of four pairs hold N = 7's 16 pairs in four: the fifth has none
        ("segregated6/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 7, "leave one without a row"),
    ] {
        let why = reason(spec, order).unwrap_or_else(|| panic!("{spec} N={order} accepted"));
        assert!(why.contains(words), "{spec} N={order}: {why}");
    }
    // the list: mixed, matrix-local, tiled, three, four, five or seven work items, faces ahead in groups of 32 (and
    // of 16 in f64), the whole element in one chunk with the faces' links in groups of 32 in f32 and of 16 in f64,
    // its rows consecutive and balanced (`mirror<t>`, `unrolled<t>` and `segregated<t>` on request)
    for (precision, p) in [(Precision::F32, "f32"), (Precision::F64, "f64")] {
        let listed: Vec<String> = Variant::all(precision)
            .into_iter()
            .filter(|v| matches!(v.partition, Partition::Mirror { .. }))
            .map(|v| v.to_string())
            .collect();
        let spec = |partition: &str, group: usize, seq: usize| {
            [3, 4, 5, 7].map(|t| format!("{partition}{t}/wg{group}/seq{seq}/matrix-local/merged/tiled/{p}/mixed"))
        };
        let mut expected = spec("ahead", 32, 1).to_vec();
        expected.extend(match precision {
            Precision::F32 => [
                spec("whole", 32, 1).to_vec(),
                spec("balanced", 32, 1).to_vec(),
                vec!["whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed".into()],
            ]
            .concat(),
            Precision::F64 => [spec("ahead", 16, 1), spec("whole", 16, 1), spec("balanced", 16, 1)].concat(),
        });
        assert_eq!(listed, expected);
    }
}

#[test]
fn the_rules_refuse_staged_mirror_tiles_off_one_tile_or_without_asynchronous_copies() {
    let shape = LawShape::of(&law_ir(&dg_laws::MaxwellTm::default()).unwrap());
    let limits = dg_codegen::DeviceLimits { local_memory: 48 * 1024, ..Default::default() };
    let reason = |spec: &str, order: usize, limits: &dg_codegen::DeviceLimits| {
        let v: Variant = spec.parse().unwrap();
        assert_eq!(v.to_string(), spec, "the SPEC prints as parsed");
        v.check(order, &shape, limits).err().map(|e| e.to_string())
    };
    for group in [8, 16, 32] {
        let spec = format!("staged4/wg{group}/seq1/matrix-local/merged/tiled/f32/mixed");
        assert_eq!(reason(&spec, 6, &limits), None, "{spec}");
    }
    let ampere_less = dg_codegen::DeviceLimits { async_copies: false, ..limits };
    for (spec, order, limits, words) in [
        ("staged4/wg32/seq1/matrix-local/merged/node-major/f32/mixed", 6, &limits, "tiled, wg8, wg16 or wg32"),
        ("staged4/wg64/seq1/matrix-local/merged/tiled/f32/mixed", 6, &limits, "tiled, wg8, wg16 or wg32"),
        ("staged4/wg4/seq1/matrix-local/merged/tiled/f32/mixed", 6, &limits, "tiled, wg8, wg16 or wg32"),
        ("staged4/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 6, &ampere_less, "cp.async"),
        ("staged4/wg32/seq1/matrix-const/merged/tiled/f32/mixed", 6, &limits, "matrix-local"),
        // the states of 32 elements of N = 8 in f64 alone take 34,560 bytes
        ("staged5/wg32/seq1/matrix-local/merged/tiled/f64/mixed", 8, &limits, "local memory"),
    ] {
        let why = reason(spec, order, limits).unwrap_or_else(|| panic!("{spec} N={order} accepted"));
        assert!(why.contains(words), "{spec} N={order}: {why}");
    }
    // valid on request only
    for precision in [Precision::F32, Precision::F64] {
        assert!(Variant::all(precision)
            .iter()
            .all(|v| !matches!(v.partition, Partition::Mirror { inputs: MirrorInputs::Staged, .. })));
    }
}

#[test]
fn the_rules_count_at_least_the_local_memory_a_mirror_tile_declares() {
    for (law, mixed) in [
        (law_ir(&dg_laws::MaxwellTm::default()).unwrap(), true),
        (law_ir(&dg_laws::mhd2d::Law::default()).unwrap(), false),
    ] {
        let shape = LawShape::of(&law);
        let params: Vec<f64> = law.params.iter().map(|(_, value)| *value).collect();
        let input = dg_codegen::LawInput { ir: &law, params: &params, numerical_flux: "numerical_flux" };
        let unlimited = dg_codegen::DeviceLimits { local_memory: usize::MAX, ..Default::default() };
        let mut checked = 0;
        for order in 2..=8 {
            let element = dg_core::triangle::ReferenceTriangle::new(order).unwrap();
            for (partition, threads) in
                ["mirror", "ahead", "staged"].into_iter().flat_map(|p| [3, 4, 5, 7].map(|t| (p, t)))
            {
                for group in [8, 16, 32] {
                    for (storage, precision, bytes) in
                        [("matrix-local", "f32", 4), ("field-local", "f64", 8), ("matrix-local", "f64", 8)]
                    {
                        let form = if mixed { "/mixed" } else { "" };
                        let spec =
                            format!("{partition}{threads}/wg{group}/seq1/{storage}/merged/tiled/{precision}{form}");
                        let variant: Variant = spec.parse().unwrap();
                        if variant.check(order, &shape, &unlimited).is_err() {
                            continue;
                        }
                        let source =
                            dg_nodal_tri::render::render_nodal_tri(&input, &element, &variant, Target::Cuda).unwrap();
                        let declared = crate::declared_local_values(&source.source) * bytes;
                        let counted = source.geometry.local_bytes(&shape, bytes, &variant);
                        assert!(
                            declared > 0 && declared <= counted,
                            "{variant} N={order}: declares {declared} bytes, rules count {counted}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 300, "{} mirror, ahead and staged variants checked", checked);
    }
}

/// The tensor-core kernels (`mma`, `mma16`, `mma16r`, `mmamirror`, `mmamirrorb<G>`) run on CUDA only, so CI's OpenCL
/// device never launches them: the rules' count of their local memory is checked here against what each program
/// declares, for laws of 3 and 9 variables, orders 1, 2, 4, 6, 8, both precisions and forms. A count below the
/// declaration would let through a kernel that the device refuses at launch (mhd2d's tf32 mirror kernel in groups of
/// 32 declares 55,296 bytes: over a CUDA device's 48 KiB of static local memory, the rules reject it).
#[test]
fn the_rules_count_at_least_the_local_memory_a_tensor_core_kernel_declares() {
    let cuda = dg_codegen::DeviceLimits {
        local_memory: usize::MAX,
        max_work_group: 1024,
        tensor_cores: true,
        f64_mma_m16: true,
        blas: true,
        async_copies: true,
    };
    let mut checked = std::collections::BTreeMap::<&str, usize>::new();
    for law in [law_ir(&dg_laws::MaxwellTm::default()).unwrap(), law_ir(&dg_laws::mhd2d::Law::default()).unwrap()] {
        let shape = LawShape::of(&law);
        let params: Vec<f64> = law.params.iter().map(|(_, value)| *value).collect();
        let input = dg_codegen::LawInput { ir: &law, params: &params, numerical_flux: "numerical_flux" };
        for order in [1, 2, 4, 6, 8] {
            let element = dg_core::triangle::ReferenceTriangle::new(order).unwrap();
            for partition in ["mma", "mma16", "mma16r", "mmamirror", "mmamirrorb9"] {
                for group in [8, 16, 32] {
                    for storage in ["field-local", "matrix-local"] {
                        for layout in ["node-major", "tiled"] {
                            for (precision, bytes) in [("f32", 4), ("f64", 8)] {
                                for form in ["", "/mixed"] {
                                    let spec = format!(
                                        "{partition}/wg{group}/seq1/{storage}/merged/{layout}/{precision}{form}"
                                    );
                                    let variant: Variant = spec.parse().unwrap();
                                    if variant.check(order, &shape, &cuda).is_err() {
                                        continue;
                                    }
                                    let source = dg_nodal_tri::render::render_nodal_tri(
                                        &input,
                                        &element,
                                        &variant,
                                        Target::Cuda,
                                    )
                                    .unwrap();
                                    let declared = crate::declared_local_values(&source.source) * bytes;
                                    let counted = source.geometry.local_bytes(&shape, bytes, &variant);
                                    assert!(
                                        declared <= counted,
                                        "{spec} N={order} ({}): declares {declared} bytes, rules count {counted}",
                                        law.name
                                    );
                                    *checked.entry(partition).or_default() += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    // every partition met, each in many variants (its rules let through at least this many)
    for partition in ["mma", "mma16", "mma16r", "mmamirror", "mmamirrorb9"] {
        assert!(checked.get(partition).copied().unwrap_or(0) >= 20, "{partition}: {checked:?}");
    }
    // the case that a device refused: over 48 KiB, the rules say so before anything is compiled
    let mhd = law_ir(&dg_laws::mhd2d::Law::default()).unwrap();
    let gpu = dg_codegen::DeviceLimits { local_memory: 48 * 1024, ..cuda };
    let wide: Variant = "mmamirror/wg32/seq1/field-local/merged/tiled/f32".parse().unwrap();
    let why = wide.check(1, &LawShape::of(&mhd), &gpu).unwrap_err().to_string();
    assert!(why.contains("55296 bytes of local memory exceed the device limit 49152"), "{why}");
    let narrow: Variant = "mmamirror/wg16/seq1/field-local/merged/tiled/f32".parse().unwrap();
    assert!(narrow.check(1, &LawShape::of(&mhd), &gpu).is_ok());
}

/// Maxwell TM at N = 7 on 1000 elements: the mixed tile multiplies Dr and Ds (two products: Ez's flux and ∇Ez) and
/// LIFT; the mirror tile multiplies one folded matrix per product and the folded lift. By hand: np = 36, 20
/// representatives (16 pairs, 4 on r = s), 3·8 = 24 face nodes in 12 face pairs (no face node is its own mirror at
/// odd N): the volume saves 2·2·np² flops per element (4 per entry of Dr and Ds against 2 per folded entry), the lift
/// 3 variables × 2 flops × (np·24 − (20·12 + 16·12)) and spends 2·12 adds per variable on the jumps' sums and
/// differences.
/// Runs `run` (verifications on the device), requires its `expected` results to pass within f32's or f64's
/// tolerance, then requires every result to fail with each planted bug (the last group skipped, the last element
/// unwritten).
fn passes_and_fails_with_planted_bugs(
    device: &mut dyn Device,
    expected: usize,
    run: impl Fn(&mut dyn Device) -> Vec<(String, bool, f64)>,
) {
    let results = run(device);
    assert_eq!(results.len(), expected);
    for (variant, passed, error) in &results {
        let tolerance = if variant.contains("f32") { 1e-6 } else { 1e-12 };
        assert!(*passed && error.is_finite() && *error < tolerance, "{variant}: error {error:e}");
    }
    for bug in [PlantedBug::SkipLastGroup, PlantedBug::LastElementUnwritten] {
        let mut planted = PlantedDevice::new(device, bug.clone());
        for (variant, passed, error) in run(&mut planted) {
            assert!(!passed, "{variant} passed with {bug:?} planted (error {error:e})");
        }
    }
}

#[test]
fn a_mirror_tile_counts_half_the_tiles_products() {
    let ir = law_ir(&dg_laws::MaxwellTm::default()).unwrap();
    let cost = |spec: &str| rhs_cost(&ir, "numerical_flux", 7, 1000, &spec.parse::<Variant>().unwrap());
    let tile = cost("tile4/wg32/seq1/matrix-local/merged/tiled/f32/mixed");
    let mirror = cost("mirror4/wg32/seq1/matrix-local/merged/tiled/f32/mixed");
    let np = 36.0;
    let volume = 2.0 * 2.0 * np * np;
    let lift = 3.0 * (2.0 * (np * 24.0 - (20.0 * 12.0 + 16.0 * 12.0)) - 2.0 * 12.0);
    assert_eq!(tile.flops - mirror.flops, 1000.0 * (volume + lift));
    assert_eq!(tile.bytes, mirror.bytes, "the same minimum bytes");
}

/// Verifies `specs` for `law` at `order` in `T` on `device`; (variant, passed, relative error).
fn check<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    specs: &[&str],
) -> Vec<(String, bool, f64)> {
    let variants: Vec<Variant> = specs.iter().map(|s| s.parse().unwrap()).collect();
    let outcomes = verify_at_order::<L, T>(device, Target::OpenCl, law, order, &variants).expect("verification runs");
    assert_eq!(outcomes.len(), specs.len());
    outcomes.into_iter().map(|o| (o.variant, o.passed, o.relative_error)).collect()
}

#[test]
fn flux_first_mirror_tiles_of_nonlinear_laws_match_the_cpu_on_opencl_and_a_planted_bug_fails_them() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let euler = dg_laws::euler2d::Law::default();
    let mhd = dg_laws::mhd2d::Law::default();
    let euler_specs =
        ["mirror4/wg32/seq1/matrix-local/merged/tiled/f64", "mirror3/wg32/seq1/field-local/merged/node-major/f64"];
    let mhd_specs = ["mirror3/wg32/seq1/matrix-local/merged/tiled/f64"];
    let mut results = check::<_, f64>(device.as_mut(), &euler, 5, &euler_specs);
    // mhd2d's GLM source term is added in the mirror tile's store, at both nodes of each pair
    results.extend(check::<_, f64>(device.as_mut(), &mhd, 3, &mhd_specs));
    for (variant, passed, error) in &results {
        assert!(*passed && error.is_finite() && *error < 1e-12, "{variant}: error {error:e}");
    }
    // a variant listed twice is verified twice, each outcome in its own place
    let twice = check::<_, f64>(device.as_mut(), &mhd, 3, &[mhd_specs[0], mhd_specs[0]]);
    assert!(twice.iter().all(|(_, passed, error)| *passed && *error < 1e-12), "{twice:?}");
    let mut planted = PlantedDevice::new(device.as_mut(), PlantedBug::LastElementUnwritten);
    for (variant, passed, error) in check::<_, f64>(&mut planted, &euler, 5, &euler_specs) {
        assert!(!passed, "{variant} passed with a planted bug (error {error:e})");
    }
}

/// The staged mirror tiles on the verification mesh (874 elements: the last group of 8, 16 or 32 partial), which
/// also runs them split in two launches and as a folded stage: Maxwell TM mixed in f32 at N = 3 (one chunk of
/// representatives), 6 (two) and 8 (two, five to seven work items), every group size and two groups in sequence;
/// Euler flux-first in f64 at N = 5 (boundary states from the staged face data) and mhd2d in f64 at N = 3 (the
/// neighbours' materials staged, the GLM source in the store). Planted bugs (the last group skipped, the last
/// element unwritten) must fail them.
#[test]
fn staged_mirror_tiles_match_the_cpu_on_opencl_and_planted_bugs_fail_them() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let maxwell = dg_laws::MaxwellTm::default();
    let euler = dg_laws::euler2d::Law::default();
    let mhd = dg_laws::mhd2d::Law::default();
    let at3 = ["staged3/wg8/seq1/matrix-local/merged/tiled/f32/mixed"];
    let at6 = [
        "staged4/wg16/seq2/matrix-local/merged/tiled/f32/mixed",
        "staged3/wg32/seq1/field-local/merged/tiled/f32/mixed",
    ];
    let at8 = [
        "staged5/wg32/seq1/matrix-local/merged/tiled/f32/mixed",
        "staged7/wg8/seq1/matrix-local/merged/tiled/f32/mixed",
    ];
    let euler_specs = ["staged4/wg16/seq1/matrix-local/merged/tiled/f64"];
    let mhd_specs = ["staged3/wg8/seq2/matrix-local/merged/tiled/f64"];
    let run = |device: &mut dyn Device| {
        let mut results = check::<_, f32>(device, &maxwell, 3, &at3);
        results.extend(check::<_, f32>(device, &maxwell, 6, &at6));
        results.extend(check::<_, f32>(device, &maxwell, 8, &at8));
        results.extend(check::<_, f64>(device, &euler, 5, &euler_specs));
        results.extend(check::<_, f64>(device, &mhd, 3, &mhd_specs));
        results
    };
    passes_and_fails_with_planted_bugs(device.as_mut(), 7, run);
}

/// The mirror tiles with their face indices read ahead (`ahead<t>`) on the verification mesh (874 elements: the last
/// group partial, also split in two launches and as a folded stage): Maxwell TM mixed in f32 at N = 4 (one chunk
/// written out, the order whose first build broke PoCL's barrier regions), 7 (two chunks; all five work items' face
/// nodes in one batch) and 8 (seven work items, two groups in sequence; four work items with the column loops
/// unrolled, `unrolled<t>`), and in f64 at N = 7 (two batches of face nodes); Euler flux-first in f64 at N = 5
/// (boundary states from the face data in local memory; also three groups in sequence) and mhd2d in f64 at N = 3 (the
/// neighbours' materials, the GLM source in the store). With groups in sequence a later pass's first chunk, indices,
/// face data and geometry are read during the lift of the pass before. The whole element in one chunk with the faces'
/// links (`whole<t>`): Maxwell f32 at N = 6 and 8 (in groups of 16, two in sequence) and f64 at N = 7, Euler at N = 5
/// (boundary conditions from the links), mhd2d at N = 3 (the neighbours' materials at the links' elements). Its rows
/// shared out evenly (`balanced<t>`): Maxwell f32 at N = 7 (four work items of four pairs and a fixed node), N = 8
/// (five; three in groups of 16, two in sequence), f64 at N = 7 (field-local), Euler at N = 5 and mhd2d at N = 3 (the
/// source in the fixed nodes' store too); the pairs' and the fixed nodes' rows on separate work items
/// (`segregated<t>`, two classes of work items in branches): Maxwell f32 at N = 7, Euler at N = 5 (two in sequence),
/// mhd2d at N = 3. Planted bugs (the last group skipped, the last element unwritten) must fail them.
#[test]
fn mirror_tiles_with_faces_ahead_match_the_cpu_on_opencl_and_planted_bugs_fail_them() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let maxwell = dg_laws::MaxwellTm::default();
    let euler = dg_laws::euler2d::Law::default();
    let mhd = dg_laws::mhd2d::Law::default();
    let at4 = ["ahead3/wg32/seq1/matrix-local/merged/tiled/f32/mixed"];
    let at6 = ["whole4/wg32/seq1/matrix-local/merged/tiled/f32/mixed"];
    let at7 = [
        "ahead5/wg16/seq1/matrix-local/merged/tiled/f32/mixed",
        "balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed",
        "segregated5/wg32/seq1/matrix-local/merged/tiled/f32/mixed",
    ];
    let at8 = [
        "ahead7/wg32/seq2/matrix-local/merged/tiled/f32/mixed",
        "unrolled4/wg32/seq1/matrix-local/merged/tiled/f32/mixed",
        "whole7/wg16/seq2/matrix-local/merged/tiled/f32/mixed",
        "balanced5/wg32/seq1/matrix-local/merged/tiled/f32/mixed",
        "balanced3/wg16/seq2/matrix-local/merged/tiled/f32/mixed",
    ];
    let at7_f64 = [
        "ahead4/wg32/seq1/field-local/merged/tiled/f64/mixed",
        "whole4/wg16/seq1/matrix-local/merged/tiled/f64/mixed",
        "balanced3/wg16/seq1/field-local/merged/tiled/f64/mixed",
    ];
    let euler_specs = [
        "ahead4/wg32/seq1/matrix-local/merged/tiled/f64",
        "ahead4/wg16/seq3/matrix-local/merged/tiled/f64",
        "whole4/wg16/seq2/matrix-local/merged/tiled/f64",
        "balanced2/wg16/seq1/matrix-local/merged/tiled/f64",
        "segregated4/wg16/seq2/matrix-local/merged/tiled/f64",
    ];
    let mhd_specs = [
        "ahead3/wg8/seq2/matrix-local/merged/tiled/f64",
        "whole3/wg8/seq1/matrix-local/merged/tiled/f64",
        "balanced2/wg8/seq2/matrix-local/merged/tiled/f64",
        "segregated3/wg8/seq1/matrix-local/merged/tiled/f64",
    ];
    let run = |device: &mut dyn Device| {
        let mut results = check::<_, f32>(device, &maxwell, 4, &at4);
        results.extend(check::<_, f32>(device, &maxwell, 6, &at6));
        results.extend(check::<_, f32>(device, &maxwell, 7, &at7));
        results.extend(check::<_, f32>(device, &maxwell, 8, &at8));
        results.extend(check::<_, f64>(device, &maxwell, 7, &at7_f64));
        results.extend(check::<_, f64>(device, &euler, 5, &euler_specs));
        results.extend(check::<_, f64>(device, &mhd, 3, &mhd_specs));
        results
    };
    passes_and_fails_with_planted_bugs(device.as_mut(), 22, run);
}

/// `whole<t>b<G>` writes CUDA's launch bounds for G groups of the group's work items on its kernel, and nothing else
/// differs from `whole<t>`; OpenCL has no such hint, so its program is `whole<t>`'s.
#[test]
fn bounded_whole_element_tiles_carry_the_launch_bounds_in_cuda_only() {
    let source = |spec: &str, target: Target| crate::maxwell_program(7, &spec.parse().unwrap(), target);
    let bounded = "whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed";
    let plain = "whole5/wg32/seq1/matrix-local/merged/tiled/f32/mixed";
    let cuda = source(bounded, Target::Cuda);
    assert!(cuda.contains("KERNEL void __launch_bounds__(160, 5) mirror("), "5 work items × 32 elements, 5 groups");
    assert_eq!(cuda.replace("__launch_bounds__(160, 5) ", ""), source(plain, Target::Cuda));
    assert!(!source(plain, Target::Cuda).contains("__launch_bounds__"));
    assert_eq!(source(bounded, Target::OpenCl), source(plain, Target::OpenCl));
}
