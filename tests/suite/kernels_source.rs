//! Generated kernel source: SPEC strings, rejection rules, and snapshots of the emitted text.

use dg::dg_codegen::LawInput;
use dg::dg_codegen::Target;
use dg::dg_core::law::ConservationLaw;
use dg::dg_core::triangle::ReferenceTriangle;
use dg::dg_nodal_tri::mirror_mma::MirrorMmaShape;
use dg::dg_nodal_tri::render::render_nodal_tri as render;
use dg::dg_nodal_tri::variant::{DeviceLimits, LawShape, Layout, Precision, Variant};
use std::process::Command;

#[test]
fn every_variant_spec_round_trips() {
    for p in [Precision::F32, Precision::F64] {
        for v in Variant::all(p) {
            let spec = v.to_string();
            assert_eq!(spec.parse::<Variant>().unwrap(), v, "{spec}");
        }
    }
}

#[test]
fn invalid_specs_are_rejected_with_the_valid_values() {
    for bad in [
        "node/mb1",
        "gpu/mb1/seq1/field-local/fused/elem-major/f32",
        "node/mbx/seq1/field-local/fused/elem-major/f32",
        "node/mb1/seq1/field-local/fused/elem-major/f16",
    ] {
        let err = bad.parse::<Variant>().unwrap_err().to_string();
        assert!(err.contains("field-local, matrix-local, matrix-const") && err.contains("example:"), "{err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_dg"))
        .args(["emit", "maxwell2d", "--order", "2", "--variant", "node/mb1/seq1/shared/fused/elem-major/f32"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown storage `shared`"));
}

#[test]
fn rules_reject_what_does_not_fit_with_a_reason() {
    let small = DeviceLimits {
        local_memory: 8 * 1024,
        max_work_group: 128,
        tensor_cores: false,
        f64_mma_m16: false,
        blas: false,
        async_copies: false,
    };
    let linear = LawShape { nvars: 3, linear_flux: true, divergence_products: 3, shared_gradients: 0, materials: 2 };
    let nonlinear =
        LawShape { nvars: 4, linear_flux: false, divergence_products: 4, shared_gradients: 0, materials: 2 };
    let v: Variant = "node/mb4/seq1/matrix-local/fused/elem-major/f64".parse().unwrap();
    let err = v.check(8, &linear, &small).unwrap_err().to_string();
    assert!(err.contains("exceed the device limit"), "{err}");
    let nm: Variant = "node/mb1/seq1/field-local/fused/node-major/f32".parse().unwrap();
    assert!(nm.check(2, &linear, &DeviceLimits::default()).unwrap_err().to_string().contains("element-major"));
    let seq: Variant = "elem/wg32/seq2/field-local/fused/elem-major/f32".parse().unwrap();
    assert!(seq.check(2, &linear, &DeviceLimits::default()).unwrap_err().to_string().contains("seq > 1"));
    let diff: Variant = "elem/wg32/seq1/matrix-local/fused/node-major/f32/diff-first".parse().unwrap();
    assert!(diff.check(4, &linear, &DeviceLimits::default()).is_ok());
    let err = diff.check(4, &nonlinear, &DeviceLimits::default()).unwrap_err().to_string();
    assert!(err.contains("linear and homogeneous"), "{err}");
}

/// Values of the local array `s_b` an mma kernel declares.
fn declared_local_values(source: &str) -> usize {
    source
        .split("real s_b[")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .and_then(|n| n.parse().ok())
        .expect("the kernel declares s_b")
}

#[test]
fn mma_needs_tensor_cores_cuda_and_room_in_local_memory() {
    let linear = LawShape { nvars: 3, linear_flux: true, divergence_products: 3, shared_gradients: 0, materials: 2 };
    let tensor = hopper();
    let v: Variant = "mma/wg16/seq2/matrix-local/merged/node-major/f64".parse().unwrap();
    assert!(v.check(8, &linear, &tensor).is_ok());
    let no_tensor = DeviceLimits { tensor_cores: false, ..tensor };
    assert!(v.check(8, &linear, &no_tensor).unwrap_err().to_string().contains("tensor cores"));
    let reasons = [
        ("mma/wg16/seq1/matrix-const/merged/node-major/f64", "constant memory"),
        ("mma/wg16/seq1/field-local/fused/node-major/f64", "merged"),
        ("mma/wg64/seq1/field-local/merged/node-major/f64", "8, 16 or 32"),
        // 3 variables × 32 elements × 120 rows of 8 bytes: 90 KiB
        ("mma/wg32/seq1/field-local/merged/node-major/f64", "local memory"),
    ];
    // f32 (tf32 steps of 8 rows): 3 × 32 × 120 × 4 bytes = 45 KiB fits at N = 8
    let f32_wg32: Variant = "mma/wg32/seq1/field-local/merged/node-major/f32".parse().unwrap();
    assert!(f32_wg32.check(8, &linear, &tensor).is_ok(), "{:?}", f32_wg32.check(8, &linear, &tensor));
    assert!(f32_wg32.check(8, &linear, &DeviceLimits { local_memory: 44 * 1024, ..tensor }).is_err());
    for (spec, reason) in reasons {
        let err = spec.parse::<Variant>().unwrap().check(8, &linear, &tensor).unwrap_err().to_string();
        assert!(err.contains(reason), "{spec}: {err}");
    }
    // the tuner meets mma in f64 (both storages, every group and sequence, both layouts); f32 mma is there to be
    // requested
    let all = |p| Variant::all(p).into_iter().filter(|v| v.to_string().starts_with("mma/")).count();
    assert_eq!((all(Precision::F32), all(Precision::F64)), (0, 24));
    // CUDA C only; the emitted kernels issue the f64 mma instruction, and the tf32 one three times per product
    let ir = dg::dg_runtime::formulation::law_ir(&dg::dg_laws::maxwell2d::Law::default()).unwrap();
    let params = dg::dg_laws::maxwell2d::Law::default().param_values();
    let input = LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    let el = ReferenceTriangle::new(3).unwrap();
    let err = render(&input, &el, &v, Target::OpenCl).unwrap_err().to_string();
    assert!(err.contains("CUDA C"), "{err}");
    let cuda = render(&input, &el, &v, Target::Cuda).unwrap().source;
    assert!(cuda.contains("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"));
    // the 8-row f64 kernels that read A through the cache one group at a time read it ahead, into a ring of
    // registers: every step's fragment once (the first ones before the barrier, the others from the step that is
    // that many steps before), and no other form does
    let ahead = dg::dg_nodal_tri::render::MMA_PREFETCH;
    for (spec, ring) in [
        ("mma/wg8/seq1/field-local/merged/node-major/f64", true),
        ("mma/wg32/seq1/field-local/merged/node-major/f64", true),
        ("mma/wg8/seq2/field-local/merged/node-major/f64", false),
        ("mma/wg8/seq1/matrix-local/merged/node-major/f64", false),
        ("mma16/wg8/seq1/field-local/merged/node-major/f64", false),
    ] {
        let source = render(&input, &el, &spec.parse().unwrap(), Target::Cuda).unwrap().source;
        assert_eq!(source.contains(&format!("a_ring[{ahead}]")), ring, "{spec}");
        if ring {
            // (N = 3: 2·10 + 3·4 = 32 columns of A, 8 steps of 4)
            assert!(source.contains(&format!("a_ring[s4 % {ahead}] = __ldg(&mma_a[(warp * 8 + s4 + {ahead}) * 32")));
            assert!(source.contains(&format!("if (s4 + {ahead} < 8)")), "{spec}");
        }
    }
    let f32_cuda = render(&input, &el, &f32_wg32, Target::Cuda).unwrap().source;
    assert_eq!(f32_cuda.matches("DG_MMA_TF32(c[n]").count(), 3);
    assert!(f32_cuda.contains("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
    assert!(render(&input, &el, &f32_wg32, Target::OpenCl).is_err());
    // the local array each kernel declares is the size the rules checked against the device (f64: 8 × 4 steps,
    // f32: 8 × 8), at several orders
    for (spec, bytes) in [(&v, 8), (&f32_wg32, 4)] {
        for order in [1, 4, 8] {
            let el = ReferenceTriangle::new(order).unwrap();
            let source = render(&input, &el, spec, Target::Cuda).unwrap().source;
            let declared = declared_local_values(&source);
            let geometry = dg::dg_nodal_tri::render::Geometry::new(order, spec);
            assert_eq!(declared * bytes, geometry.local_bytes(&linear, bytes, spec), "{spec} N={order}");
        }
    }
}

/// Maxwell TM's shape: three variables, a linear flux, three divergence products.
fn linear_law() -> LawShape {
    LawShape { nvars: 3, linear_flux: true, divergence_products: 3, shared_gradients: 0, materials: 2 }
}

/// A device of compute capability 9.0 without a BLAS: tensor cores and the `m16n8k4.f64` shape.
fn hopper() -> DeviceLimits {
    DeviceLimits {
        local_memory: 48 * 1024,
        max_work_group: 1024,
        tensor_cores: true,
        f64_mma_m16: true,
        blas: false,
        async_copies: true,
    }
}

/// Each spec is rejected at N = 8 with an error that names its reason.
fn assert_rejected_at_n8(reasons: &[(&str, &str)], law: &LawShape, limits: &DeviceLimits) {
    for (spec, reason) in reasons {
        let err = spec.parse::<Variant>().unwrap().check(8, law, limits).unwrap_err().to_string();
        assert!(err.contains(reason), "{spec}: {err}");
    }
}

#[test]
fn mma16_needs_compute_capability_9_runs_f64_and_splits_its_steps() {
    let (linear, hopper) = (linear_law(), hopper());
    let v: Variant = "mma16/wg8/seq1/field-local/merged/node-major/f64".parse().unwrap();
    assert_eq!(v.to_string(), "mma16/wg8/seq1/field-local/merged/node-major/f64");
    assert!(v.check(8, &linear, &hopper).is_ok(), "{:?}", v.check(8, &linear, &hopper));
    let ampere = DeviceLimits { f64_mma_m16: false, ..hopper };
    assert!(v.check(8, &linear, &ampere).unwrap_err().to_string().contains("compute capability 9.0"));
    let none = DeviceLimits { tensor_cores: false, f64_mma_m16: false, ..hopper };
    assert!(v.check(8, &linear, &none).is_err());
    let reasons = [
        ("mma16/wg8/seq1/field-local/merged/node-major/f32", "f64 product"),
        ("mma16/wg8/seq1/matrix-const/merged/node-major/f64", "constant memory"),
        ("mma16/wg8/seq1/field-local/split/node-major/f64", "merged"),
        ("mma16/wg24/seq1/field-local/merged/node-major/f64", "8, 16 or 32"),
        ("mma16/wg32/seq1/field-local/merged/node-major/f64", "local memory"),
    ];
    assert_rejected_at_n8(&reasons, &linear, &hopper);
    // the tuner meets it in f64, field-local, every group and sequence, both layouts
    let listed = |p| Variant::all(p).into_iter().filter(|v| v.to_string().starts_with("mma16/")).count();
    assert_eq!((listed(Precision::F32), listed(Precision::F64)), (0, 12));
    let ir = dg::dg_runtime::formulation::law_ir(&dg::dg_laws::maxwell2d::Law::default()).unwrap();
    let params = dg::dg_laws::maxwell2d::Law::default().param_values();
    let input = LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    for storage in ["field-local", "matrix-local"] {
        let spec: Variant = format!("mma16/wg16/seq2/{storage}/merged/node-major/f64").parse().unwrap();
        for order in [1, 5, 8] {
            let el = ReferenceTriangle::new(order).unwrap();
            let rendered = render(&input, &el, &spec, Target::Cuda).unwrap();
            let source = rendered.source;
            assert!(source.contains("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"), "{spec} N={order}");
            assert!(!source.contains("DG_MMA_F64(c["), "{spec} N={order}: no m8n8k4 product");
            // two warps per 16-row tile (split-K), whose parts meet in the store
            let tiles = el.np.div_ceil(16);
            assert_eq!(rendered.rhs_kernels[0].local_size, 2 * 32 * tiles, "{spec} N={order}");
            assert!(source.contains(&format!("s_b[m] + s_b[m + {}]", 3 * el.np * 16)), "{spec} N={order}");
            // the local array is the size the rules checked
            let declared = declared_local_values(&source);
            let geometry = dg::dg_nodal_tri::render::Geometry::new(order, &spec);
            assert_eq!(declared * 8, geometry.local_bytes(&linear, 8, &spec), "{spec} N={order}");
            assert!(declared >= 2 * 3 * el.np * 16, "{spec} N={order}: room for both parts' outputs");
        }
    }
    assert!(render(&input, &ReferenceTriangle::new(3).unwrap(), &v, Target::OpenCl).is_err());
}

#[test]
fn mma16r_forms_b_in_registers_from_sectioned_operator_columns() {
    let (linear, hopper) = (linear_law(), hopper());
    let v: Variant = "mma16r/wg32/seq1/field-local/merged/node-major/f64".parse().unwrap();
    assert_eq!(v.to_string(), "mma16r/wg32/seq1/field-local/merged/node-major/f64");
    for order in 1..=8 {
        assert!(v.check(order, &linear, &hopper).is_ok(), "N={order}: {:?}", v.check(order, &linear, &hopper));
    }
    let ampere = DeviceLimits { f64_mma_m16: false, ..hopper };
    assert!(v.check(8, &linear, &ampere).unwrap_err().to_string().contains("compute capability 9.0"));
    let reasons = [
        ("mma16r/wg8/seq1/field-local/merged/node-major/f32", "f64 products"),
        ("mma16r/wg8/seq1/matrix-local/merged/node-major/f64", "field-local"),
        ("mma16r/wg8/seq1/matrix-const/merged/node-major/f64", "field-local"),
        ("mma16r/wg8/seq1/field-local/split/node-major/f64", "merged"),
        ("mma16r/wg24/seq1/field-local/merged/node-major/f64", "8, 16 or 32"),
        ("mma16r/wg8/seq1/field-local/merged/node-major/f64/mixed", "mixed"),
    ];
    assert_rejected_at_n8(&reasons, &linear, &hopper);
    // the tuner meets it in f64, field-local, every group and sequence, both layouts
    let listed = |p| Variant::all(p).into_iter().filter(|v| v.to_string().starts_with("mma16r/")).count();
    assert_eq!((listed(Precision::F32), listed(Precision::F64)), (0, 12));
    let ir = dg::dg_runtime::formulation::law_ir(&dg::dg_laws::maxwell2d::Law::default()).unwrap();
    let params = dg::dg_laws::maxwell2d::Law::default().param_values();
    let input = LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    for (group, order) in [(8, 1), (16, 5), (32, 7), (8, 8)] {
        let spec: Variant = format!("mma16r/wg{group}/seq2/field-local/merged/node-major/f64").parse().unwrap();
        let el = ReferenceTriangle::new(order).unwrap();
        let rendered = render(&input, &el, &spec, Target::Cuda).unwrap();
        let source = rendered.source;
        assert!(source.contains("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"), "{spec} N={order}");
        // a warp per 8 elements, every 16-row tile in its registers, nothing in local memory and no barrier
        assert_eq!(rendered.rhs_kernels[0].local_size, 4 * group, "{spec} N={order}");
        let geometry = dg::dg_nodal_tri::render::Geometry::new(order, &spec);
        assert_eq!(geometry.local_bytes(&linear, 8, &spec), 0, "{spec} N={order}");
        let kernel = &source[source.find(") mma(").expect("the mma kernel")..];
        let kernel = &kernel[..kernel.find("\n}\n").expect("the kernel's end")];
        assert!(!kernel.contains("LOCAL_MEM") && !kernel.contains("BARRIER()"), "{spec} N={order}");
        assert!(source.contains(&format!("real c[{}][NV][4];", el.np.div_ceil(16))), "{spec} N={order}");
        // the registers capped at 128 per work item: 65536 / (4·group·128) groups per SM
        let groups = 65536 / (4 * group * 128);
        assert!(source.contains(&format!("__launch_bounds__({}, {groups}) mma(", 4 * group)), "{spec} N={order}");
        // −Dr's and −Ds's columns padded to whole steps each, then LIFT's: the s-part of a node's flux in the step
        // ⌈np / 4⌉ after its r-part, the jumps from step 2·⌈np / 4⌉
        let node_steps = el.np.div_ceil(4);
        assert!(source.contains(&format!("MMA_A(i, {node_steps} + s4)")), "{spec} N={order}");
        assert!(source.contains(&format!("MMA_A(i, {} + s4)", 2 * node_steps)), "{spec} N={order}");
        assert_eq!(geometry.mma_tiles().1, 2 * node_steps + (3 * el.nfp).div_ceil(4), "{spec} N={order}");
    }
    assert!(render(&input, &ReferenceTriangle::new(3).unwrap(), &v, Target::OpenCl).is_err());
}

/// The mirror tiles' products on the tensor cores (`mmamirror`, CUDA-only, so verified on a GPU, not in CI): f64 on
/// `m16n8k4.f64` (compute capability 9.0), f32 as three `m16n8k8.tf32` products (compute capability 8.0), wg16 (f32
/// also wg32, two halves of 16), field-local, merged, tiled, seq1, flux-first or mixed; f64 one warp per tile of 8
/// symmetric folded rows, f32 one per two tiles of one kind; its local array (f64 columns, or f32 in the lanes'
/// fragment order and the results) the size the rules checked; too large for a nine-variable law at N = 8; OpenCL
/// refused; in the tuner's f64 list (flux-first and mixed; f32 on request).
#[test]
fn mmamirror_runs_the_folded_products_on_the_tensor_cores() {
    let (linear, hopper) = (linear_law(), hopper());
    let maxwell = LawShape { nvars: 3, linear_flux: true, divergence_products: 2, shared_gradients: 1, materials: 0 };
    for (p, group) in [("f32", 16), ("f32", 32), ("f64", 16)] {
        // (flux-first keeps four folded inputs per variable: in f64 past 48 KB of local memory from N = 7, in f32 in
        // groups of 32 at N = 8)
        let flux_first_top = match (p, group) {
            ("f64", _) => 6,
            (_, 32) => 7,
            _ => 8,
        };
        for (form, top) in [("", flux_first_top), ("/mixed", 8)] {
            let spec = format!("mmamirror/wg{group}/seq1/field-local/merged/tiled/{p}{form}");
            let v: Variant = spec.parse().unwrap();
            assert_eq!(v.to_string(), spec);
            let err = v.check(top + 1, &maxwell, &hopper).map_or_else(|e| e.to_string(), |_| String::new());
            assert!(top == 8 || err.contains("local memory"), "{spec} N={}: {err}", top + 1);
            for order in 1..=top {
                assert!(
                    v.check(order, &maxwell, &hopper).is_ok(),
                    "{spec} N={order}: {:?}",
                    v.check(order, &maxwell, &hopper)
                );
            }
        }
    }
    let ampere = DeviceLimits { f64_mma_m16: false, ..hopper };
    let v: Variant = "mmamirror/wg16/seq1/field-local/merged/tiled/f64".parse().unwrap();
    assert!(v.check(8, &linear, &ampere).unwrap_err().to_string().contains("compute capability 9.0"));
    let v32: Variant = "mmamirror/wg16/seq1/field-local/merged/tiled/f32/mixed".parse().unwrap();
    assert!(v32.check(8, &maxwell, &ampere).is_ok(), "{:?}", v32.check(8, &maxwell, &ampere));
    let no_tensor_cores = DeviceLimits { tensor_cores: false, ..ampere };
    assert!(v32.check(8, &maxwell, &no_tensor_cores).unwrap_err().to_string().contains("compute capability 8.0"));
    let reasons = [
        ("mmamirror/wg32/seq1/field-local/merged/tiled/f64", "wg16"),
        ("mmamirror/wg8/seq1/field-local/merged/tiled/f32", "wg16"),
        ("mmamirror/wg16/seq1/matrix-local/merged/tiled/f64", "field-local"),
        ("mmamirror/wg16/seq1/field-local/split/tiled/f64", "merged"),
        ("mmamirror/wg16/seq1/field-local/merged/node-major/f64", "tiled"),
        ("mmamirror/wg16/seq1/field-local/merged/tiled/f64/diff-first", "flux-first or mixed"),
    ];
    assert_rejected_at_n8(&reasons, &linear, &hopper);
    // under launch bounds for G groups per multiprocessor (`mmamirrorb<G>`), within the 2,048 work items it holds
    let bounded: Variant = "mmamirrorb3/wg16/seq1/field-local/merged/tiled/f64/mixed".parse().unwrap();
    assert_eq!(bounded.to_string(), "mmamirrorb3/wg16/seq1/field-local/merged/tiled/f64/mixed");
    assert!(bounded.check(8, &maxwell, &hopper).is_ok());
    let err = "mmamirrorb17/wg16/seq1/field-local/merged/tiled/f64/mixed"
        .parse::<Variant>()
        .unwrap()
        .check(8, &maxwell, &hopper)
        .unwrap_err()
        .to_string();
    assert!(err.contains("launch bounds"), "{err}");
    assert!("mmamirrorb0/wg16/seq1/field-local/merged/tiled/f64".parse::<Variant>().is_err());
    let mhd = LawShape { nvars: 9, linear_flux: false, divergence_products: 9, shared_gradients: 0, materials: 0 };
    let err = v.check(8, &mhd, &hopper).unwrap_err().to_string();
    assert!(err.contains("local memory"), "{err}");
    let listed = |p| Variant::all(p).into_iter().filter(|v| v.to_string().starts_with("mmamirror/")).count();
    assert_eq!((listed(Precision::F32), listed(Precision::F64)), (0, 2));
    let ir = dg::dg_runtime::formulation::law_ir(&dg::dg_laws::maxwell2d::Law::default()).unwrap();
    let params = dg::dg_laws::maxwell2d::Law::default().param_values();
    let input = LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    for (p, group) in [("f32", 16), ("f32", 32), ("f64", 16)] {
        let spec: Variant = format!("mmamirror/wg{group}/seq1/field-local/merged/tiled/{p}/mixed").parse().unwrap();
        for order in 1..=8 {
            let el = ReferenceTriangle::new(order).unwrap();
            let rendered = render(&input, &el, &spec, Target::Cuda).unwrap();
            let source = &rendered.source;
            let (instruction, shape) = match p {
                "f64" => ("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", MirrorMmaShape::F64),
                _ => ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", MirrorMmaShape::Tf32),
            };
            assert!(source.contains(instruction), "{spec} N={order}");
            let layout = dg::dg_nodal_tri::mirror_mma::MirrorMmaLayout::at(order, shape);
            assert_eq!(rendered.rhs_kernels[0].local_size, 32 * layout.warps(), "{spec} N={order}");
            assert_eq!(rendered.rhs_kernels[0].name, "mmamirror");
            assert!(
                source.contains(&format!("__launch_bounds__({}) mmamirror(", 32 * layout.warps())),
                "{spec} N={order}"
            );
            let geometry = dg::dg_nodal_tri::render::Geometry::new(order, &spec);
            let checked = geometry.local_bytes(&maxwell, if p == "f32" { 4 } else { 8 }, &spec);
            if p == "f64" {
                // s_x: f64 values, 20 a column (the folded inputs' columns and the jumps'), the bytes the rules
                // checked
                let declared: usize = source
                    .split("double s_x[(")
                    .nth(1)
                    .and_then(|rest| rest.split(" + ").next())
                    .and_then(|n| n.parse().ok())
                    .expect("the kernel declares s_x");
                // (the folded inputs' columns: whole steps of the shape's width)
                assert_eq!(declared % (6 * shape.width()), 0, "{spec} N={order}");
                let values = (declared + 3 * 3 * (order + 1)) * 20;
                let declaration = format!("double s_x[({declared} + NV * NFACE_NODES) * 20];");
                assert!(source.contains(&declaration), "{spec} N={order}");
                assert_eq!(values * 8, checked, "{spec} N={order}");
            } else {
                // s_x: f32 blocks of 128 values per half of 16 elements (maxwell2d mixed: one flux-first variable,
                // one shared field, three variables' folded jumps) and one half's results (three variables' rows of
                // both kinds, whole pairs of tiles, 20 values a row, written over the half's inputs): each half the
                // larger in whole blocks; the bytes the rules checked; the lanes' positions as
                // `mirror_mma::tf32_lane_position` computes them; no cvt (two instructions a split); the instruction
                // written once (in its macro)
                let inputs = layout.tf32_blocks(1, 1, 3).blocks;
                let tiles = |rows: usize| rows.div_ceil(16) * 2;
                let results = (3 * 8 * (tiles(layout.reps) + tiles(layout.pairs)) * 20).div_ceil(128);
                let values = inputs.max(results) * (group / 16) * 128;
                assert!(source.contains(&format!("float s_x[{values}];")), "{spec} N={order}");
                assert_eq!(values * 4, checked, "{spec} N={order}");
                assert_eq!(source.matches("mma.sync.aligned.m16n8k8").count(), 1, "{spec} N={order}");
                assert!(source
                    .contains("#define XPOS(g_, t_) (8 * ((g_) >> 1) + ((4 * ((g_) & 1) + ((g_) >> 1) + (t_)) & 7))"));
                assert!(!source.contains("cvt.rna.tf32.f32 %0"), "{spec} N={order}");
            }
        }
    }
    assert!(render(&input, &ReferenceTriangle::new(3).unwrap(), &v, Target::OpenCl).is_err());
}

#[test]
fn diff_first_applies_to_linear_homogeneous_fluxes_only() {
    for reg in dg::dg_ir::registered_laws() {
        let ir = (reg.ir)();
        let expected =
            ["advection2d", "advection3d", "maxwell2d", "maxwell3d", "acoustics2d", "acoustics3d", "elastic3d"]
                .contains(&ir.name.as_str());
        assert_eq!(ir.flux_is_linear_homogeneous(), expected, "{}", ir.name);
    }
}

/// The tensor-core kernels on the tiled layout (in the f64 list; CUDA-only, so verified on a GPU, not in CI): the
/// rules admit them where they admit the node-major twin and refuse them on the element-major layout; the emitted
/// kernel reads the state through the tile's offsets with its variable stride a constant inside the kernel (undefined
/// after it), and the node-major twin keeps the argument.
#[test]
fn the_tensor_core_kernels_take_the_tiled_layout() {
    let linear = LawShape { nvars: 3, linear_flux: true, divergence_products: 3, shared_gradients: 0, materials: 2 };
    let tensor = DeviceLimits {
        local_memory: 228 * 1024,
        max_work_group: 1024,
        tensor_cores: true,
        f64_mma_m16: true,
        blas: false,
        async_copies: true,
    };
    let one_variable =
        LawShape { nvars: 1, linear_flux: true, divergence_products: 1, shared_gradients: 0, materials: 2 };
    for twin in [
        "mma/wg8/seq1/field-local/merged/node-major/f64",
        "mma/wg16/seq2/matrix-local/merged/node-major/f64",
        "mma16/wg8/seq1/field-local/merged/node-major/f64",
        "mma16r/wg32/seq1/field-local/merged/node-major/f64",
    ] {
        let tiled = twin.replace("/node-major/", "/tiled/");
        let v: Variant = tiled.parse().unwrap();
        assert!(twin.parse::<Variant>().unwrap().check(6, &linear, &tensor).is_ok(), "{twin}");
        assert!(v.check(6, &linear, &tensor).is_ok(), "{tiled}: {:?}", v.check(6, &linear, &tensor));
        let err = v.check(6, &one_variable, &tensor).unwrap_err().to_string();
        assert!(err.contains("first two variables"), "{tiled}: {err}");
        let elem_major = twin.replace("/node-major/", "/elem-major/").parse::<Variant>().unwrap();
        let err = elem_major.check(6, &linear, &tensor).unwrap_err().to_string();
        assert!(err.contains("node-major or tiled layout"), "{twin}: {err}");
        let source = emitted("maxwell2d", 6, &tiled, Target::Cuda);
        assert!(source.contains("#define NODE_OFF(k, i, fs) (((k) >> 5) * MBF + (i) * 32 + ((k) & 31))"), "{tiled}");
        let (before, body) = source.split_once("#define fs (32 * NP)").expect("the constant stride");
        assert!(before.contains("const int fs, const int g0"), "{tiled}: the argument stays in the signature");
        assert!(body.contains("#undef fs"), "{tiled}");
        let node_major = emitted("maxwell2d", 6, twin, Target::Cuda);
        assert!(!node_major.contains("#define fs"), "{twin}");
    }
    // the tuner meets each tensor-core variant of its list on both layouts
    let list = Variant::all(Precision::F64);
    let mma: Vec<&Variant> = list.iter().filter(|v| v.partition.is_mma()).collect();
    let tiled = mma.iter().filter(|v| v.layout == Layout::Tiled).count();
    assert!(tiled > 0 && 2 * tiled == mma.len(), "{tiled} tiled of {} tensor-core variants", mma.len());
    for v in mma.iter().filter(|v| v.layout == Layout::NodeMajor) {
        assert!(list.contains(&Variant { layout: Layout::Tiled, ..**v }), "{v}: no tiled twin");
    }
}

fn emitted(law: &str, order: usize, spec: &str, target: Target) -> String {
    let ir = dg::dg_runtime::formulation::law_ir(&dg::dg_laws::maxwell2d::Law::default()).unwrap();
    assert_eq!(ir.name, law);
    let el = ReferenceTriangle::new(order).unwrap();
    let params = dg::dg_laws::maxwell2d::Law::default().param_values();
    render(
        &LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" },
        &el,
        &spec.parse().unwrap(),
        target,
    )
    .unwrap()
    .source
}

#[test]
fn emitted_source_snapshots() {
    let cases = [
        ("maxwell2d_n1_node_cuda", 1, "node/mb1/seq1/field-local/fused/elem-major/f32", Target::Cuda),
        ("maxwell2d_n1_elem_opencl", 1, "elem/wg32/seq1/matrix-const/split/node-major/f64", Target::OpenCl),
        (
            "maxwell2d_n2_elem_diff_first_cuda",
            2,
            "elem/wg128/seq1/matrix-local/fused/node-major/f32/diff-first",
            Target::Cuda,
        ),
        ("maxwell2d_n2_node_local_opencl", 2, "node/mb4/seq2/matrix-local/split/elem-major/f32", Target::OpenCl),
        ("maxwell2d_n2_mma_cuda", 2, "mma/wg8/seq2/matrix-local/merged/node-major/f64", Target::Cuda),
        ("maxwell2d_n2_mma_tf32_cuda", 2, "mma/wg16/seq1/field-local/merged/node-major/f32", Target::Cuda),
        ("maxwell2d_n5_mma16_cuda", 5, "mma16/wg8/seq2/field-local/merged/node-major/f64", Target::Cuda),
        ("maxwell2d_n5_mma_ring_cuda", 5, "mma/wg8/seq1/field-local/merged/node-major/f64", Target::Cuda),
        ("maxwell2d_n7_mma16r_cuda", 7, "mma16r/wg32/seq1/field-local/merged/node-major/f64", Target::Cuda),
        ("maxwell2d_n2_gemm_opencl", 2, "gemm/wg32/seq1/field-local/merged/node-major/f64", Target::OpenCl),
        ("maxwell2d_n4_tile4_mixed_cuda", 4, "tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed", Target::Cuda),
        (
            "maxwell2d_n2_elem_mixed_opencl",
            2,
            "elem/wg32/seq1/matrix-local/merged/node-major/f32/mixed",
            Target::OpenCl,
        ),
    ];
    for (name, order, spec, target) in cases {
        insta::assert_snapshot!(name, emitted("maxwell2d", order, spec, target));
    }
}

#[test]
fn rendering_is_deterministic() {
    let a = emitted("maxwell2d", 3, "elem/wg128/seq1/matrix-local/fused/node-major/f32", Target::Cuda);
    let b = emitted("maxwell2d", 3, "elem/wg128/seq1/matrix-local/fused/node-major/f32", Target::Cuda);
    assert_eq!(a, b);
}

/// Kernels of `source` (from `KERNEL void` to the closing brace in column 0) in which a `return` comes before a
/// barrier: `BARRIER()` itself or a macro whose definition holds one (`TABLE_SETUP`, `PAIR_SWAP`, …).
fn returns_before_a_barrier(source: &str) -> Vec<String> {
    // block comments out (a comment may say "return"); line comments are cut below
    let mut uncommented = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("/*") {
        uncommented.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    uncommented.push_str(rest);
    // a kernel may follow the previous one's closing brace on the same line
    let source = uncommented.replace("}KERNEL void", "}\nKERNEL void");
    let source = source.as_str();
    let mut barrier_macros = vec!["BARRIER(".to_string()];
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix("#define ") else { continue };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let (mut body, mut continued) = (line.to_string(), line.trim_end().ends_with('\\'));
        while continued {
            let Some(next) = lines.next() else { break };
            body.push_str(next);
            continued = next.trim_end().ends_with('\\');
        }
        if name != "BARRIER" && body.contains("BARRIER(") {
            barrier_macros.push(name);
        }
    }
    let mut offending = Vec::new();
    let mut kernel: Option<(String, bool)> = None;
    for line in source.lines() {
        if line.starts_with("KERNEL void") || line.contains("KERNEL void __launch_bounds__") {
            kernel = Some((line.split('(').next().unwrap_or(line).to_string(), false));
            continue;
        }
        let Some((name, returned)) = kernel.as_mut() else { continue };
        if line == "}" {
            kernel = None;
            continue;
        }
        let code = line.split("//").next().unwrap_or("");
        let words = |w: &str| code.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|t| t == w);
        if *returned && barrier_macros.iter().any(|m| code.contains(m.as_str()) && (m.ends_with('(') || words(m))) {
            offending.push(name.clone());
            kernel = None;
            continue;
        }
        if words("return") {
            *returned = true;
        }
    }
    offending
}

#[test]
fn the_scan_for_a_return_before_a_barrier_finds_one() {
    let body = "#define SETUP LOCAL_MEM real s[4]; \\\n    BARRIER();\nKERNEL void k(int n)\n{\n    if (n < 0) return;\n    SETUP\n}\nKERNEL void fine(int n)\n{\n    BARRIER();\n    if (n < 0) return;\n}\n";
    assert_eq!(returns_before_a_barrier(body), vec!["KERNEL void k".to_string()]);
    assert!(returns_before_a_barrier(&body.replace("    if (n < 0) return;\n    SETUP", "    SETUP")).is_empty());
}

/// No generated kernel returns before a barrier, not even where the whole work group would return: PoCL 3.1's
/// compiler (LLVM 15) turned the finite volumes' strided line sweep with such a return into code that wrote outside
/// its buffers (heap corruption, `dg verify advection2d --formulation fv` aborted) and, unoptimised, into NaN. Every
/// valid variant of every formulation, for a scalar law and a nonlinear system, in both kernel languages.
#[test]
fn no_generated_kernel_returns_before_a_barrier() {
    use dg::dg_runtime::formulation::LawCall;
    use dg::formulations::FormulationId;
    let laws: Vec<dg::dg_ir::LawIr> = ["advection2d", "euler2d", "advection3d", "euler3d"]
        .iter()
        .map(|name| dg::dg_laws::all_ir().into_iter().find(|ir| ir.name == *name).expect("a registered law"))
        .collect();
    let mut checked = 0;
    let mut offending = Vec::new();
    for id in FormulationId::ALL {
        let formulation = id.get();
        for ir in laws.iter().filter(|ir| formulation.supports(ir).is_ok()) {
            let params: Vec<f64> = ir.params.iter().map(|p| p.1).collect();
            let law = LawCall { ir, params: &params, numerical_flux: "numerical_flux" };
            // the kernels' structure does not change with the order past the first: N = 2 (both finite-volume orders)
            let orders = formulation.orders();
            let orders = if orders.clone().count() <= 2 { orders } else { *orders.start() + 1..=*orders.start() + 1 };
            for order in orders {
                for precision in [Precision::F32, Precision::F64] {
                    for (target, limits) in [(Target::OpenCl, DeviceLimits::default()), (Target::Cuda, hopper())] {
                        for (spec, rejected) in formulation.variants(&law, order, precision, &limits) {
                            if rejected.is_some() {
                                continue;
                            }
                            let Ok(source) = formulation.emit(&law, order, &spec, target) else { continue };
                            checked += 1;
                            for kernel in returns_before_a_barrier(&source) {
                                offending.push(format!(
                                    "{} {} N={order} {spec} {target:?}: {kernel}",
                                    id.name(),
                                    ir.name
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} programs rendered");
    assert!(
        offending.is_empty(),
        "{} kernels return before a barrier: {:#?}",
        offending.len(),
        &offending[..offending.len().min(10)]
    );
}
