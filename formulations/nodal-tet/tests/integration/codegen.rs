//! The tetrahedral kernels' variant space and shapes against seed 002's tables: Np and 3·Np padding (Table 4),
//! GEMM operand layouts, SPEC strings, and which kernels a 48 KB shared-memory device refuses.

use dg_codegen::Precision;
use dg_codegen::{LawInput, Target};
use dg_core::tetrahedron::{num_nodes, ReferenceTetrahedron};
use dg_nodal_tet::{
    gemm_matrices, pad_np, pad_three_np, render_tet, GemmEngine, Strategy, TetGemm, TetLimits, TetRole, TetVariant,
};

#[test]
fn padding_is_seed_002_table_4() {
    let np: Vec<usize> = (1..=8).map(num_nodes).collect();
    assert_eq!(np, [4, 10, 20, 35, 56, 84, 120, 165]);
    assert_eq!(np.iter().map(|&n| pad_np(n)).collect::<Vec<_>>(), [4, 10, 20, 35, 56, 128, 128, 256]);
    assert_eq!(np.iter().map(|&n| pad_three_np(3 * n)).collect::<Vec<_>>(), [16, 32, 64, 128, 256, 256, 384, 512]);
}

#[test]
fn gemm_operands_are_column_major_with_zero_padding() {
    let el = ReferenceTetrahedron::new(6).unwrap();
    let (stacked, lift, side_by_side) = gemm_matrices(&el);
    let (np, m3, ldq, nface) = (84, 256, 128, 4 * 28);
    assert_eq!(stacked.len(), m3 * np);
    assert_eq!(lift.len(), ldq * nface);
    for col in 0..np {
        for row in 0..np {
            assert_eq!(stacked[col * m3 + row], el.dr[(row, col)]);
            assert_eq!(stacked[col * m3 + np + row], el.ds[(row, col)]);
            assert_eq!(stacked[col * m3 + 2 * np + row], el.dt[(row, col)]);
        }
        assert!(stacked[col * m3 + 3 * np..(col + 1) * m3].iter().all(|&v| v == 0.0));
    }
    assert_eq!(side_by_side.len(), ldq * 3 * np);
    assert_eq!(side_by_side[(2 * np + 7) * ldq + 3], el.dt[(3, 7)]);
    assert!(side_by_side[(np + 7) * ldq + np..(np + 8) * ldq].iter().all(|&v| v == 0.0));
    for col in 0..nface {
        assert!(lift[col * ldq + np..(col + 1) * ldq].iter().all(|&v| v == 0.0));
        assert_eq!(lift[col * ldq + 5], el.lift[(5, col)]);
    }
}

#[test]
fn specs_round_trip_and_bad_ones_are_explained() {
    for spec in [
        "tet/node/v4/s2/u8/f32",
        "tet/elem/w128/u1/f64",
        "tet/gemm/u16/f32",
        "tet/gemm-merged/mma-lift/u2/f32",
        "tet/gemm/mma/u1/f32",
        "tet/gemm-merged/mma-ab3/u1/f32",
    ] {
        let v: TetVariant = spec.parse().unwrap();
        assert_eq!(v.to_string(), spec);
    }
    let v: TetVariant = "tet/node/v16/s1/u2/f64".parse().unwrap();
    assert_eq!(v.strategy, Strategy::Node { volume: 16, surface: 1 });
    assert_eq!(v.precision, Precision::F64);
    let v: TetVariant = "tet/gemm-merged/mma/u4/f32".parse().unwrap();
    assert_eq!(v.strategy, Strategy::Gemm { merged: true, engine: GemmEngine::Mma });
    assert!(!v.strategy.needs_blas() && v.strategy.needs_tensor_cores());
    let v: TetVariant = "tet/gemm/mma-lift/u4/f32".parse().unwrap();
    assert!(v.strategy.needs_blas() && v.strategy.needs_tensor_cores());
    for bad in [
        "tet/node/v3/s2/u8/f32",
        "tet/elem/w100/u1/f32",
        "tet/gemm/f32",
        "node/mb1",
        "tet/gemm/u2/f16",
        "tet/gemm/wmma/u2/f32",
        "tet/node/mma/v1/s1/u1/f32",
    ] {
        let err = bad.parse::<TetVariant>().unwrap_err().to_string();
        assert!(err.contains("tet/node/v<K>"), "{bad}: {err}");
    }
    // the tensor-core kernels have no f64 form
    let v: TetVariant = "tet/gemm/mma-ab3/u1/f32".parse().unwrap();
    assert!(v.strategy.updates_in_lift() && !v.strategy.needs_blas());
    for bad in ["tet/gemm/mma/u1/f64", "tet/gemm-merged/mma-lift/u2/f64", "tet/gemm/mma-ab3/u1/f64"] {
        let err = bad.parse::<TetVariant>().unwrap_err().to_string();
        assert!(err.contains("f32 only"), "{bad}: {err}");
    }
}

/// The tensor-core GEMM kernels are in a program for CUDA in f32 on a device that allows them, and nowhere else;
/// each is launched with the block its `__launch_bounds__` names, and writes no padding row.
#[test]
fn the_tensor_core_gemm_kernels_are_rendered_for_cuda_f32_only() {
    let ir = dg_laws::elastic3d::ir();
    let law = LawInput { ir: &ir, params: &[], numerical_flux: "numerical_flux" };
    let with = TetLimits { max_work_group: 1024, local_memory: 48 * 1024, tensor_cores: true };
    for order in [1, 4, 7, 8] {
        let el = ReferenceTetrahedron::new(order).unwrap();
        let p = render_tet(&law, &el, Precision::F32, Target::Cuda, with).unwrap();
        assert!(p.has_mma_lift(), "N = {order}");
        // elasticity's gradient reads the state's columns of Np values: 16-byte aligned where Np is padded
        // (N = 7, 8) or a multiple of 4 (N = 1), not at N = 4 (35)
        assert_eq!(p.has_mma(), order != 4, "N = {order}");
        if order == 4 {
            let why = p.rejected.iter().find(|(name, _)| name == "tet_mma_gradient").map(|(_, why)| why.as_str());
            assert!(why.is_some_and(|w| w.contains("16-byte aligned")), "{why:?}");
        }
        for gemm in [TetGemm::Gradient, TetGemm::Divergence, TetGemm::Lift] {
            let Some((m, role)) = p.mma_kernel(gemm) else { continue };
            let kernel = p.kernel(role).unwrap();
            let bounds = format!("__launch_bounds__({}, {}) {}(", kernel.local_size, m.min_groups(), kernel.name);
            assert!(p.source.contains(&bounds), "{bounds}");
            // at most 48 KiB of static shared memory, so four groups fit an H100's or H200's 228 KiB
            assert!(m.shared_bytes() <= 48 * 1024 && m.min_groups() == 4, "{gemm:?}");
            assert!(p.source.contains(&format!("if (row < {} && col < n)", m.rows_used)), "{gemm:?}");
        }
        let without = [
            render_tet(&law, &el, Precision::F64, Target::Cuda, with).unwrap(),
            render_tet(&law, &el, Precision::F32, Target::OpenCl, with).unwrap(),
            render_tet(&law, &el, Precision::F32, Target::Cuda, TetLimits { tensor_cores: false, ..with }).unwrap(),
        ];
        for p in without {
            assert!(
                !p.has_mma_lift() && !p.source.contains("mma.sync"),
                "N = {order} {:?} {:?}",
                p.precision,
                p.target
            );
        }
    }
}

/// Seed 002: element per thread "fails for N ≥ 6 (volume kernel needs > 48 KB shared memory)" in single
/// precision; the node-per-thread kernels fit at every order with one element per block.
#[test]
fn a_48_kb_device_refuses_the_element_kernels_from_order_6() {
    let ir = dg_laws::acoustics3d::ir();
    let law = LawInput { ir: &ir, params: &[], numerical_flux: "numerical_flux" };
    let limits = TetLimits { max_work_group: 1024, local_memory: 48 * 1024, tensor_cores: false };
    for order in 1..=8 {
        let el = ReferenceTetrahedron::new(order).unwrap();
        let p = render_tet(&law, &el, Precision::F32, Target::Cuda, limits).unwrap();
        let has_elem_volume = p.kernel(TetRole::VolumeElement { width: 128 }).is_some();
        assert_eq!(has_elem_volume, order <= 5, "N = {order}");
        assert!(
            p.kernel(TetRole::VolumeNode { kb: 1 }).is_some() && p.kernel(TetRole::SurfaceNode { kb: 1 }).is_some()
        );
        for (name, why) in &p.rejected {
            assert!(why.contains("shared memory") || why.contains("work items"), "{name}: {why}");
        }
        assert!(p.source.contains(&format!("#define LDQ {}", pad_np(el.np))));
    }
}

#[test]
fn nonlinear_and_two_dimensional_laws_are_refused() {
    let el = ReferenceTetrahedron::new(2).unwrap();
    let limits = TetLimits { max_work_group: 1024, local_memory: 1 << 20, tensor_cores: false };
    for ir in [dg_laws::euler3d::ir(), dg_laws::acoustics2d::ir()] {
        let law = LawInput { ir: &ir, params: &[], numerical_flux: "numerical_flux" };
        assert!(render_tet(&law, &el, Precision::F64, Target::OpenCl, limits).is_err(), "{}", ir.name);
    }
}

#[test]
fn volume_plans_need_seed_002s_mat_vec_counts() {
    use dg_nodal_tet::VolumePlan;
    let acoustic = VolumePlan::of(&dg_laws::acoustics3d::ir());
    assert_eq!(acoustic.gradient, [0], "∇p");
    assert_eq!(acoustic.divergence, [0], "∇·v feeds p");
    assert_eq!(acoustic.from_derivatives, [1, 2, 3]);
    assert_eq!(acoustic.matvecs(), 6);
    let elastic = VolumePlan::of(&dg_laws::elastic3d::ir());
    assert_eq!(elastic.gradient, [0, 1, 2], "∇v");
    assert_eq!(elastic.divergence, [0, 1, 2], "∇·σ feeds v");
    assert_eq!(elastic.matvecs(), 18);
    // a scalar law: differentiating the field or the flux costs the same three
    assert_eq!(VolumePlan::of(&dg_laws::advection3d::ir()).matvecs(), 3);
}

/// The shared memory a kernel declares must be what the refusal rule counted: render with a limit just at each
/// node-volume kernel's declared arrays and check that it is kept, and just below and check that it is refused.
#[test]
fn shared_memory_rule_matches_the_declared_arrays() {
    let ir = dg_laws::elastic3d::ir();
    let law = LawInput { ir: &ir, params: &[], numerical_flux: "numerical_flux" };
    let el = ReferenceTetrahedron::new(4).unwrap();
    let plan = dg_nodal_tet::VolumePlan::of(&ir);
    // s_q[KB][NGRAD + 1][NP] and s_g[KB][3 NDIV + 1][NP] in doubles
    let declared = |kb: usize| kb * ((plan.gradient.len() + 1) + (3 * plan.divergence.len() + 1)) * el.np * 8;
    for kb in [1, 4, 16] {
        let at = TetLimits { max_work_group: 1 << 20, local_memory: declared(kb), tensor_cores: false };
        let p = render_tet(&law, &el, Precision::F64, Target::Cuda, at).unwrap();
        assert!(p.kernel(TetRole::VolumeNode { kb }).is_some(), "kb{kb} fits exactly");
        let below = TetLimits { local_memory: declared(kb) - 1, ..at };
        let p = render_tet(&law, &el, Precision::F64, Target::Cuda, below).unwrap();
        assert!(p.kernel(TetRole::VolumeNode { kb }).is_none(), "kb{kb} one byte short");
        let text = &p.source;
        assert!(text.contains("#define NGRAD 3") && text.contains("#define NDIV 3"));
    }
}
