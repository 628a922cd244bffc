//! The nodal right-hand side on tetrahedra on a compute device (seed 002): the mesh in the kernels' layout, one
//! compiled program with every kernel of every strategy, and the launch sequences of a variant (right-hand
//! side, AB3 step with fused trace extraction where the surface reads traces, GEMMs through the backend's BLAS).

use crate::{gemm_matrices, render_tet, GemmEngine, Strategy, TetGemm, TetLimits, TetProgram, TetRole, TetVariant};
use dg_codegen::LawInput;
use dg_codegen::Target;
use dg_codegen::{Precision, VariantError};
use dg_core::matrix::to_row_major;
use dg_core::mesh::FaceLink;
use dg_core::space3d::DgSpace3d;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{
    as_bytes, as_bytes_mut, upload_values as upload, Arg, BackendError, BufferId, Device, Gemm, GemmOperand, Launch,
    ProgramId, Step,
};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::DeviceOperatorError;
use rayon::prelude::*;

/// Device buffers of one tetrahedral operator.
#[derive(Debug, Clone, Copy)]
pub struct TetBuffers {
    /// State, `(k * NV + v) * LDQ + i`.
    pub q: BufferId,
    /// Traces, `(k * NV + v) * NFACE + j`.
    pub qf: BufferId,
    /// Three right-hand-side levels (AB3 history; `rhs[0]` is the one a right-hand side writes).
    pub rhs: [BufferId; 3],
    /// Face jumps (element-per-thread scratch, GEMM lift operand), `(k * NV + v) * NFACE + j`.
    pub jumps: BufferId,
    /// Reference derivatives of the GEMM strategy, `(k * NV + v) * M3 + j * NP + i`.
    pub dref: BufferId,
    geo: BufferId,
    face_geo: BufferId,
    mapp: BufferId,
    face_bc: BufferId,
    neigh: BufferId,
    face_xyz: BufferId,
    mat: BufferId,
    dr: BufferId,
    ds: BufferId,
    dt: BufferId,
    lift: BufferId,
    stacked: BufferId,
    lift_padded: BufferId,
    side_by_side: BufferId,
    /// Every node's coordinates, `3 (k·Np + i) + d`, where the law has a source term (`None` otherwise).
    node_xyz: Option<BufferId>,
    /// The tensor-core kernels' operators in fragment order (gradient, divergence, lift), each where its kernel
    /// is in the program and may run.
    mma: [Option<BufferId>; 3],
}

/// The tetrahedral operator of one law, order and precision on a device.
pub struct TetDeviceOperator<T: Real> {
    program: TetProgram,
    program_id: ProgramId,
    /// The buffers (public for verification and benchmarks, which fill them with test data).
    pub buffers: TetBuffers,
    k: usize,
    gemm: bool,
    /// Whether the tensor-core kernels may run: the program has (at least) the lift kernel, compiled and kept for a
    /// device that allows it, and their operators were uploaded (a GEMM strategy, or no variant named).
    mma: bool,
    _t: std::marker::PhantomData<T>,
}

impl<T: Real> TetDeviceOperator<T> {
    /// Renders and compiles the program and uploads the mesh of `space` (materials element-major), for every
    /// strategy: the GEMM strategies where the device's BLAS loads (which asks for it: cuBLAS on CUDA).
    pub fn new(
        device: &mut dyn Device,
        target: Target,
        law: (&LawIr, &[f64], &str),
        space: &DgSpace3d,
        binding: &BoundaryBinding,
        materials: &[f64],
    ) -> Result<Self, DeviceOperatorError> {
        Self::for_variant(device, target, law, space, binding, materials, None)
    }

    /// The operator a run of `variant` needs: as [`new`](Self::new) (which is `variant` `None`), but the device's
    /// BLAS is asked for only when `variant` needs it, and the GEMM strategy's buffers made only for a GEMM
    /// strategy — loading cuBLAS costs a run's start-up time.
    pub fn for_variant(
        device: &mut dyn Device,
        target: Target,
        law: (&LawIr, &[f64], &str),
        space: &DgSpace3d,
        binding: &BoundaryBinding,
        materials: &[f64],
        variant: Option<&TetVariant>,
    ) -> Result<Self, DeviceOperatorError> {
        let blas = variant.is_none_or(|v| v.strategy.needs_blas());
        let gemm_buffers = variant.is_none_or(|v| matches!(v.strategy, Strategy::Gemm { .. }));
        let precision = dg_runtime::formulation::precision_of::<T>();
        if precision == Precision::F64 && !device.supports_f64() {
            return Err(DeviceOperatorError::Precision("the device has no double precision".into()));
        }
        let (ir, params, numerical_flux) = law;
        let limits = TetLimits {
            max_work_group: device.max_work_group(),
            local_memory: device.local_memory(),
            tensor_cores: device.supports_tensor_cores(),
        };
        let mut program =
            render_tet(&LawInput { ir, params, numerical_flux }, &space.element, precision, target, limits)?;
        let names: Vec<String> = program.kernels.iter().map(|k| k.name.clone()).collect();
        let program_id = device.compile(&program.source, &names)?;
        // registers can allow fewer work items per group than the kernel asks: such kernels are refused too
        let mut kept = Vec::with_capacity(program.kernels.len());
        for kernel in std::mem::take(&mut program.kernels) {
            match device.kernel_max_work_group(program_id, &kernel.name) {
                Some(max) if max < kernel.local_size => program.rejected.push((
                    kernel.name.clone(),
                    format!("registers allow {max} work items per group, the kernel needs {}", kernel.local_size),
                )),
                _ => kept.push(kernel),
            }
        }
        program.kernels = kept;
        let gemm = blas && device.supports_gemm();
        let mma = gemm_buffers && program.has_mma_lift();
        let buffers = Self::upload_mesh(device, &program, space, binding, materials, (gemm || mma, mma))?;
        Ok(Self { program, program_id, buffers, k: space.num_elements(), gemm, mma, _t: std::marker::PhantomData })
    }

    fn upload_mesh(
        device: &mut dyn Device,
        p: &TetProgram,
        space: &DgSpace3d,
        binding: &BoundaryBinding,
        materials: &[f64],
        (gemm, mma): (bool, bool),
    ) -> Result<TetBuffers, DeviceOperatorError> {
        let el = &space.element;
        let (np, nfp, nface, nv, ldq, m3) = (p.np, el.nfp, p.nface, p.nvars, p.ldq, p.m3);
        let k_count = space.num_elements();
        let real = |v: f64| T::from_f64(v);
        // every element's tables are independent: written in place, in parallel
        let mut geo: Vec<T> = vec![T::zero(); k_count * 9];
        geo.par_chunks_mut(9).zip(space.geometry.par_iter()).for_each(|(out, g)| {
            for (o, &v) in out.iter_mut().zip(g.metric.iter().flatten()) {
                *o = real(v);
            }
        });
        let mut face_geo: Vec<T> = vec![T::zero(); space.faces.len() * 4];
        face_geo.par_chunks_mut(4).zip(space.faces.par_iter()).for_each(|(out, f)| {
            out.copy_from_slice(&[f.n[0], f.n[1], f.n[2], f.fscale].map(real));
        });
        let mut mapp = vec![0i32; k_count * nface];
        let mut face_bc = vec![0i32; 4 * k_count];
        let mut neigh = vec![0i32; 4 * k_count];
        mapp.par_chunks_mut(nface)
            .zip(face_bc.par_chunks_mut(4))
            .zip(neigh.par_chunks_mut(4))
            .enumerate()
            .try_for_each(|(k, ((mapp, face_bc), neigh))| {
                for f in 0..4 {
                    let mapp = &mut mapp[f * nfp..(f + 1) * nfp];
                    match space.connectivity.links[k][f] {
                        FaceLink::Interior { element: k2, face: f2 } => {
                            (face_bc[f], neigh[f]) = (-1, k2 as i32);
                            for (a, slot) in mapp.iter_mut().enumerate() {
                                let i2 = space.vmap_p[(4 * k + f) * nfp + a] - k2 * np;
                                let a2 = el.fmask[f2].iter().position(|&i| i == i2).ok_or_else(|| {
                                    DeviceOperatorError::Precision(format!("face node of element {k} has no partner"))
                                })?;
                                *slot = (k2 * nv * nface + f2 * nfp + a2) as i32;
                            }
                        }
                        FaceLink::Boundary { tag } => {
                            (face_bc[f], neigh[f]) = (binding.condition_of_tag[tag] as i32, k as i32);
                            for (a, slot) in mapp.iter_mut().enumerate() {
                                *slot = (k * nv * nface + f * nfp + a) as i32;
                            }
                        }
                    }
                }
                Ok::<(), DeviceOperatorError>(())
            })?;
        dg_runtime::operator_error::check_index_range(&[
            ("the face traces", k_count * nv * nface),
            ("the stacked reference derivatives", k_count * nv * m3),
        ])?;
        let mut face_xyz: Vec<T> = vec![T::zero(); space.vmap_m.len() * 3];
        face_xyz.par_chunks_mut(3).zip(space.vmap_m.par_iter()).for_each(|(out, &g)| {
            out.copy_from_slice(&[0, 1, 2].map(|d| real(space.xyz[d][g])));
        });
        let mat: Vec<T> = materials.iter().map(|&m| real(m)).collect();
        let (stacked, lift_padded, side_by_side) = gemm_matrices(el);
        let zeros = |n: usize| vec![T::zero(); n];
        let state_len = k_count * nv * ldq;
        Ok(TetBuffers {
            q: upload(device, &zeros(state_len), T::zero())?,
            qf: upload(device, &zeros(k_count * nv * nface), T::zero())?,
            rhs: [
                upload(device, &zeros(state_len), T::zero())?,
                upload(device, &zeros(state_len), T::zero())?,
                upload(device, &zeros(state_len), T::zero())?,
            ],
            jumps: upload(device, &zeros(k_count * nv * nface), T::zero())?,
            dref: upload(device, &zeros(if gemm { k_count * nv * m3 } else { 1 }), T::zero())?,
            geo: upload(device, &geo, T::zero())?,
            face_geo: upload(device, &face_geo, T::zero())?,
            mapp: upload(device, &mapp, 0)?,
            face_bc: upload(device, &face_bc, 0)?,
            neigh: upload(device, &neigh, 0)?,
            face_xyz: upload(device, &face_xyz, T::zero())?,
            mat: upload(device, &mat, T::zero())?,
            // transposed (column-major): a block's nodes read one column together
            dr: upload(device, &to_row_major::<T>(&el.dr.transpose()), T::zero())?,
            ds: upload(device, &to_row_major::<T>(&el.ds.transpose()), T::zero())?,
            dt: upload(device, &to_row_major::<T>(&el.dt.transpose()), T::zero())?,
            lift: upload(device, &to_row_major::<T>(&el.lift.transpose()), T::zero())?,
            stacked: upload(device, &stacked.iter().map(|&v| real(v)).collect::<Vec<T>>(), T::zero())?,
            lift_padded: upload(device, &lift_padded.iter().map(|&v| real(v)).collect::<Vec<T>>(), T::zero())?,
            side_by_side: upload(device, &side_by_side.iter().map(|&v| real(v)).collect::<Vec<T>>(), T::zero())?,
            node_xyz: match p.kernel(TetRole::Source) {
                Some(_) => {
                    let xyz: Vec<T> =
                        (0..k_count * np).flat_map(|g| [0, 1, 2].map(|d| real(space.xyz[d][g]))).collect();
                    Some(upload(device, &xyz, T::zero())?)
                }
                None => None,
            },
            mma: match mma {
                true => Self::upload_mma_operators(device, p, el)?,
                false => [None; 3],
            },
        })
    }

    /// The tensor-core kernels' operators [Dr; Ds; Dt], [Dr Ds Dt] and LIFT in fragment order
    /// ([`crate::MmaGemm::fragments`]; f32 values, the only precision these kernels have), each where the program
    /// has its kernel.
    fn upload_mma_operators(
        device: &mut dyn Device,
        p: &TetProgram,
        el: &dg_core::tetrahedron::ReferenceTetrahedron,
    ) -> Result<[Option<BufferId>; 3], DeviceOperatorError> {
        let np = p.np;
        let d = [&el.dr, &el.ds, &el.dt];
        let mut out = [None; 3];
        for (slot, gemm) in out.iter_mut().zip([TetGemm::Gradient, TetGemm::Divergence, TetGemm::Lift]) {
            let Some((m, _)) = p.mma_kernel(gemm) else { continue };
            let values = match gemm {
                TetGemm::Gradient => m.fragments(|row, col| d[row / np][(row % np, col)]),
                TetGemm::Divergence => m.fragments(|row, col| d[col / np][(row, col % np)]),
                TetGemm::Lift | TetGemm::LiftAb3 => m.fragments(|row, col| el.lift[(row, col)]),
            };
            *slot = Some(upload(device, &values, 0.0f32)?);
        }
        Ok(out)
    }

    /// The program (sizes, kernels, rejected kernels).
    pub fn program(&self) -> &TetProgram {
        &self.program
    }

    /// Whether the GEMM strategy is available on this device (its BLAS loaded).
    pub fn has_gemm(&self) -> bool {
        self.gemm
    }

    /// Whether the tensor-core lift kernel may run here (the `mma-lift` engine).
    pub fn has_mma_lift(&self) -> bool {
        self.mma
    }

    /// Whether all three tensor-core GEMM kernels may run here (the `mma` engine).
    pub fn has_mma(&self) -> bool {
        self.mma && self.program.has_mma()
    }

    /// Whether the tensor-core lift with the AB3 update may run here too (the `mma-ab3` engine).
    pub fn has_mma_ab3(&self) -> bool {
        self.mma && self.program.has_mma_ab3()
    }

    /// Elements.
    pub fn num_elements(&self) -> usize {
        self.k
    }

    fn kernel(&self, role: TetRole, spec: &TetVariant) -> Result<Launch, DeviceOperatorError> {
        let kernel = self.program.kernel(role).ok_or_else(|| {
            let reason = self
                .program
                .rejected
                .iter()
                .find(|(name, _)| role_name_matches(name, role))
                .map_or_else(|| format!("no {role:?} kernel"), |(name, why)| format!("{name}: {why}"));
            DeviceOperatorError::Variant(VariantError::Rejected { spec: spec.to_string(), reason })
        })?;
        let p = &self.program;
        Ok(Launch {
            kernel: kernel.name.clone(),
            groups: kernel.groups(self.k, p.np, p.nface, p.ldq, p.nvars),
            local: kernel.local_size,
            args: Vec::new(),
        })
    }

    /// The launches of the volume term of `variant` of the state `q` into `rhs`.
    pub fn volume_steps(
        &self,
        variant: &TetVariant,
        q: BufferId,
        rhs: BufferId,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        let b = &self.buffers;
        let k = Arg::I32(self.k as i32);
        let args = vec![
            Arg::Buffer(q),
            Arg::Buffer(rhs),
            Arg::Buffer(b.geo),
            Arg::Buffer(b.mat),
            Arg::Buffer(b.dr),
            Arg::Buffer(b.ds),
            Arg::Buffer(b.dt),
            k,
        ];
        Ok(match variant.strategy {
            Strategy::Node { volume, .. } => {
                vec![Step::Kernel(Launch { args, ..self.kernel(TetRole::VolumeNode { kb: volume }, variant)? })]
            }
            Strategy::Element { width } => {
                vec![Step::Kernel(Launch { args, ..self.kernel(TetRole::VolumeElement { width }, variant)? })]
            }
            Strategy::Gemm { engine, .. } => {
                self.require_engine(variant)?;
                let local = Launch {
                    args: vec![
                        Arg::Buffer(q),
                        Arg::Buffer(b.dref),
                        Arg::Buffer(rhs),
                        Arg::Buffer(b.geo),
                        Arg::Buffer(b.mat),
                        k,
                    ],
                    ..self.kernel(TetRole::VolumeLocal, variant)?
                };
                let mut steps = self.gradient_gemms(q, engine)?;
                steps.push(Step::Kernel(local));
                steps.extend(self.divergence_gemms(rhs, engine)?);
                steps
            }
        })
    }

    /// The GEMM strategy's gradient GEMMs of `q` into the reference-derivative buffer, seed 002's Table 3 shapes:
    /// m = (3Np)pad, n = K, k = Np per differentiated field.
    fn gradient_gemms(&self, q: BufferId, engine: GemmEngine) -> Result<Vec<Step>, DeviceOperatorError> {
        let (b, p) = (&self.buffers, &self.program);
        let (nv, ldq, m3) = (p.nvars, p.ldq, p.m3);
        if matches!(engine, GemmEngine::Mma | GemmEngine::MmaAb3) {
            return self.mma_steps(TetGemm::Gradient, &p.plan.gradient, |u| (q, u * ldq, b.dref, u * m3));
        }
        let at = |buffer, offset, ld| GemmOperand { buffer, offset, ld };
        let (a, shape) = (at(b.stacked, 0, m3), (m3, p.np, 1.0));
        Ok(self.field_gemms(&p.plan.gradient, shape, a, |u| at(q, u * ldq, nv * ldq), |u| at(b.dref, u * m3, nv * m3)))
    }

    /// The launches of the tensor-core kernel of `gemm`, one per field f of `fields` with (B buffer, B offset,
    /// C buffer, C offset) = `operands(f)`.
    fn mma_steps(
        &self,
        gemm: TetGemm,
        fields: &[usize],
        operands: impl Fn(usize) -> (BufferId, usize, BufferId, usize),
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        let p = &self.program;
        let missing = || {
            DeviceOperatorError::Variant(VariantError::Rejected {
                spec: format!("{gemm:?} on the tensor cores"),
                reason: "the device cannot run this tensor-core GEMM kernel (CUDA, f32, compute capability 8.0 or \
                         later, B's columns 16-byte aligned)"
                    .into(),
            })
        };
        let slot = match gemm {
            TetGemm::Gradient => 0,
            TetGemm::Divergence => 1,
            TetGemm::Lift | TetGemm::LiftAb3 => 2,
        };
        let (Some((m, role)), Some(a)) = (p.mma_kernel(gemm), self.buffers.mma[slot]) else { return Err(missing()) };
        let kernel = p.kernel(role).ok_or_else(missing)?;
        let n = if gemm.lifts() { self.k * p.nvars } else { self.k };
        Ok(fields
            .iter()
            .map(|&f| {
                let (b, b_off, c, c_off) = operands(f);
                Step::Kernel(Launch {
                    kernel: kernel.name.clone(),
                    groups: m.groups(n),
                    local: kernel.local_size,
                    args: vec![
                        Arg::Buffer(a),
                        Arg::Buffer(b),
                        Arg::I32(b_off as i32),
                        Arg::Buffer(c),
                        Arg::I32(c_off as i32),
                        Arg::I32(n as i32),
                    ],
                })
            })
            .collect())
    }

    /// The GEMM strategy's divergence GEMMs, m = (Np)pad, n = K, k = 3Np per output formed from its flux:
    /// rhs_v = −[Dr Ds Dt]·G_v (the node-local kernel leaves those outputs alone, so nothing is read back).
    fn divergence_gemms(&self, rhs: BufferId, engine: GemmEngine) -> Result<Vec<Step>, DeviceOperatorError> {
        let (b, p) = (&self.buffers, &self.program);
        let (nv, ldq, m3) = (p.nvars, p.ldq, p.m3);
        if matches!(engine, GemmEngine::Mma | GemmEngine::MmaAb3) {
            return self.mma_steps(TetGemm::Divergence, &p.plan.divergence, |v| (b.dref, v * m3, rhs, v * ldq));
        }
        let at = |buffer, offset, ld| GemmOperand { buffer, offset, ld };
        let (a, shape) = (at(b.side_by_side, 0, ldq), (ldq, 3 * p.np, -1.0));
        Ok(self.field_gemms(
            &p.plan.divergence,
            shape,
            a,
            |v| at(b.dref, v * m3, nv * m3),
            |v| at(rhs, v * ldq, nv * ldq),
        ))
    }

    /// One GEMM per field f of `fields` over every element: C(f) = α·A·B(f), A m × k (`shape` = (m, k, α)), β = 0.
    fn field_gemms(
        &self,
        fields: &[usize],
        (m, k, alpha): (usize, usize, f64),
        a: GemmOperand,
        b: impl Fn(usize) -> GemmOperand,
        c: impl Fn(usize) -> GemmOperand,
    ) -> Vec<Step> {
        let double = T::NAME == "f64";
        fields
            .iter()
            .map(|&f| Step::Gemm(Gemm { double, m, n: self.k, k, alpha, a, b: b(f), beta: 0.0, c: c(f) }))
            .collect()
    }

    /// The GEMM strategy's lift, rhs += LIFT · jumps over every element and variable.
    fn lift_gemm(&self, rhs: BufferId, engine: GemmEngine) -> Result<Step, DeviceOperatorError> {
        let (b, p) = (&self.buffers, &self.program);
        if engine != GemmEngine::Blas {
            let mut steps = self.mma_steps(TetGemm::Lift, &[0], |_| (b.jumps, 0, rhs, 0))?;
            return steps.pop().ok_or_else(|| DeviceOperatorError::Precision("no lift launch".into()));
        }
        Ok(Step::Gemm(Gemm {
            double: T::NAME == "f64",
            m: p.ldq,
            n: self.k * p.nvars,
            k: p.nface,
            alpha: 1.0,
            a: GemmOperand { buffer: b.lift_padded, offset: 0, ld: p.ldq },
            b: GemmOperand { buffer: b.jumps, offset: 0, ld: p.nface },
            beta: 1.0,
            c: GemmOperand { buffer: rhs, offset: 0, ld: p.ldq },
        }))
    }

    /// The merged GEMM strategy's right-hand side of `q` into `rhs`: the gradient GEMMs, the node-local part and
    /// the face jumps in one pass (`tet_local_flux`, each element's state read once), the divergence GEMMs, the
    /// lift GEMM — the kernels of [`Self::volume_steps`] and [`Self::surface_steps`] with the node-local and face
    /// kernels merged.
    pub fn gemm_rhs_steps(
        &self,
        variant: &TetVariant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        self.require_engine(variant)?;
        let Strategy::Gemm { engine, .. } = variant.strategy else {
            return Err(DeviceOperatorError::Variant(VariantError::Rejected {
                spec: variant.to_string(),
                reason: "not a GEMM strategy".into(),
            }));
        };
        let b = &self.buffers;
        let role = self
            .program
            .kernels
            .iter()
            .map(|k| k.role)
            .find(|r| matches!(r, TetRole::LocalFlux { .. }))
            .unwrap_or(TetRole::LocalFlux { elements: 0 });
        let args = [q, b.dref, rhs, b.geo, b.mat, b.jumps, b.face_geo, b.mapp, b.face_bc, b.neigh, b.face_xyz]
            .into_iter()
            .map(Arg::Buffer)
            .chain([Arg::real::<T>(t), Arg::I32(self.k as i32)])
            .collect();
        let mut steps = self.gradient_gemms(q, engine)?;
        steps.push(Step::Kernel(Launch { args, ..self.kernel(role, variant)? }));
        steps.extend(self.divergence_gemms(rhs, engine)?);
        steps.push(self.lift_gemm(rhs, engine)?);
        Ok(steps)
    }

    /// The launches of the surface term of `variant` of the state `q`, added to `rhs`. The node and element
    /// strategies read the traces of `q` (which a trace extraction or the previous fused update wrote), the GEMM
    /// strategy reads `q` itself.
    pub fn surface_steps(
        &self,
        variant: &TetVariant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        let b = &self.buffers;
        let k = Arg::I32(self.k as i32);
        let face_args = [
            Arg::Buffer(b.face_geo),
            Arg::Buffer(b.mapp),
            Arg::Buffer(b.face_bc),
            Arg::Buffer(b.neigh),
            Arg::Buffer(b.face_xyz),
            Arg::Buffer(b.mat),
        ];
        let with =
            |head: Vec<Arg>, tail: Vec<Arg>| -> Vec<Arg> { head.into_iter().chain(face_args).chain(tail).collect() };
        Ok(match variant.strategy {
            Strategy::Node { surface, .. } => {
                let args =
                    with(vec![Arg::Buffer(b.qf), Arg::Buffer(rhs)], vec![Arg::Buffer(b.lift), Arg::real::<T>(t), k]);
                vec![Step::Kernel(Launch { args, ..self.kernel(TetRole::SurfaceNode { kb: surface }, variant)? })]
            }
            Strategy::Element { width } => {
                let args = with(
                    vec![Arg::Buffer(b.qf), Arg::Buffer(rhs)],
                    vec![Arg::Buffer(b.lift), Arg::Buffer(b.jumps), Arg::real::<T>(t), k],
                );
                vec![Step::Kernel(Launch { args, ..self.kernel(TetRole::SurfaceElement { width }, variant)? })]
            }
            Strategy::Gemm { engine, .. } => {
                self.require_engine(variant)?;
                let args = with(vec![Arg::Buffer(q), Arg::Buffer(b.jumps)], vec![Arg::real::<T>(t), k]);
                let flux = Launch { args, ..self.kernel(TetRole::Flux, variant)? };
                vec![Step::Kernel(flux), self.lift_gemm(rhs, engine)?]
            }
        })
    }

    /// The trace extraction from the state `q` (before a right-hand side outside the AB3 loop).
    pub fn trace_step(&self, q: BufferId) -> Result<Step, DeviceOperatorError> {
        let any = TetVariant { strategy: Strategy::blas_gemm(false), update: 1, precision: Precision::F32 };
        Ok(Step::Kernel(Launch {
            args: vec![Arg::Buffer(q), Arg::Buffer(self.buffers.qf), Arg::I32(self.k as i32)],
            ..self.kernel(TetRole::Trace, &any)?
        }))
    }

    /// The trace extraction from `q` if `variant`'s surface reads traces ([`Strategy::reads_traces`]), else
    /// nothing.
    pub fn trace_steps_for(&self, variant: &TetVariant, q: BufferId) -> Result<Vec<Step>, DeviceOperatorError> {
        Ok(if variant.strategy.reads_traces() { vec![self.trace_step(q)?] } else { Vec::new() })
    }

    /// The AB3 update q += dt(23/12 r0 − 16/12 r1 + 5/12 r2), with the trace extraction fused in when `variant`'s
    /// surface reads traces.
    pub fn update_step(&self, variant: &TetVariant, r: [BufferId; 3], dt: f64) -> Result<Step, DeviceOperatorError> {
        let traces = variant.strategy.reads_traces();
        self.update_step_of(variant, TetRole::UpdateAb3 { ku: variant.update, traces }, r, dt)
    }

    /// The AB3 update kernel `role` (a [`TetRole::UpdateAb3`]) on the operator's state.
    pub fn update_step_of(
        &self,
        variant: &TetVariant,
        role: TetRole,
        r: [BufferId; 3],
        dt: f64,
    ) -> Result<Step, DeviceOperatorError> {
        let b = &self.buffers;
        Ok(Step::Kernel(Launch {
            args: vec![
                Arg::Buffer(b.q),
                Arg::Buffer(b.qf),
                Arg::Buffer(r[0]),
                Arg::Buffer(r[1]),
                Arg::Buffer(r[2]),
                Arg::real::<T>(dt),
                Arg::I32(self.k as i32),
            ],
            ..self.kernel(role, variant)?
        }))
    }

    /// The launch adding the law's source S(q, x, t) to `rhs` at every node, after the other kernels of a
    /// right-hand side; none for a law without a source.
    pub fn source_steps(&self, q: BufferId, rhs: BufferId, t: f64) -> Vec<Step> {
        let (Some(kernel), Some(xyz)) = (self.program.kernel(TetRole::Source), self.buffers.node_xyz) else {
            return Vec::new();
        };
        let p = &self.program;
        let b = &self.buffers;
        vec![Step::Kernel(Launch {
            kernel: kernel.name.clone(),
            groups: kernel.groups(self.k, p.np, p.nface, p.ldq, p.nvars),
            local: kernel.local_size,
            args: vec![
                Arg::Buffer(q),
                Arg::Buffer(rhs),
                Arg::Buffer(b.mat),
                Arg::Buffer(xyz),
                Arg::real::<T>(t),
                Arg::I32(self.k as i32),
            ],
        })]
    }

    /// One AB3 step as seed 002 runs it: volume and surface into `r[0]` (from the traces the previous update
    /// wrote, or from the state for the GEMM strategy), then the fused update. The caller rotates the three levels
    /// between steps.
    pub fn ab3_steps(
        &self,
        variant: &TetVariant,
        r: [BufferId; 3],
        t: f64,
        dt: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        let q = self.buffers.q;
        let mut steps = if variant.strategy.is_merged_gemm() {
            self.gemm_rhs_steps(variant, q, r[0], t)?
        } else {
            let mut steps = self.volume_steps(variant, q, r[0])?;
            steps.extend(self.surface_steps(variant, q, r[0], t)?);
            steps
        };
        if variant.strategy.updates_in_lift() {
            // the right-hand side's last launch is the lift: the lift that updates the state replaces it (the
            // program has that kernel only for a law without a source term)
            steps.pop();
            steps.push(self.lift_ab3_step(variant, r, dt)?);
            return Ok(steps);
        }
        steps.extend(self.source_steps(q, r[0], t));
        steps.push(self.update_step(variant, r, dt)?);
        Ok(steps)
    }

    /// The tensor-core lift into `r[0]` that also makes the AB3 update of the state from `r` (`tet_mma_lift_ab3`).
    fn lift_ab3_step(&self, variant: &TetVariant, r: [BufferId; 3], dt: f64) -> Result<Step, DeviceOperatorError> {
        if !self.has_mma_ab3() {
            return Err(DeviceOperatorError::Variant(VariantError::Rejected {
                spec: variant.to_string(),
                reason: "the program has no tensor-core lift with the AB3 update here (CUDA, f32, a law without a \
                         source term)"
                    .into(),
            }));
        }
        let b = &self.buffers;
        let mut steps = self.mma_steps(TetGemm::LiftAb3, &[0], |_| (b.jumps, 0, r[0], 0))?;
        let mut step = steps.pop().ok_or_else(|| DeviceOperatorError::Precision("no lift launch".into()))?;
        if let Step::Kernel(launch) = &mut step {
            launch.args.extend([Arg::Buffer(b.q), Arg::Buffer(r[1]), Arg::Buffer(r[2]), Arg::real::<T>(dt)]);
        }
        Ok(step)
    }

    /// Refuses a GEMM variant whose BLAS did not load or whose tensor-core kernels may not run here.
    fn require_engine(&self, variant: &TetVariant) -> Result<(), DeviceOperatorError> {
        let refuse = |reason: &str| {
            Err(DeviceOperatorError::Variant(VariantError::Rejected {
                spec: variant.to_string(),
                reason: reason.into(),
            }))
        };
        if variant.strategy.needs_blas() && !self.gemm {
            return refuse(dg_codegen::DeviceLimits::NO_BLAS);
        }
        let engine_kernels = match variant.strategy {
            Strategy::Gemm { engine: GemmEngine::Mma, .. } => self.has_mma(),
            Strategy::Gemm { engine: GemmEngine::MmaAb3, .. } => self.has_mma_ab3(),
            _ => self.mma,
        };
        if variant.strategy.needs_tensor_cores() && !engine_kernels {
            return refuse(
                "the tensor-core GEMM kernels need CUDA on compute capability 8.0 or later and f32 (three tf32 \
                 products of split operands)",
            );
        }
        Ok(())
    }

    /// Runs `steps` `repeats` times; device seconds per repetition.
    pub fn run(&self, device: &mut dyn Device, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        device.run_steps(self.program_id, steps, repeats)
    }

    /// Writes a host state (layout `(k * nvars + v) * np + i`) into buffer `to` (device layout, pads zero).
    pub fn write_state(&self, device: &mut dyn Device, to: BufferId, state: &[T]) -> Result<(), BackendError> {
        let (np, ldq) = (self.program.np, self.program.ldq);
        use rayon::prelude::*;
        let mut padded = vec![T::zero(); self.k * self.program.nvars * ldq];
        padded.par_chunks_mut(ldq).zip(state.par_chunks(np)).for_each(|(col, chunk)| col[..np].copy_from_slice(chunk));
        device.upload(to, as_bytes(&padded))
    }

    /// Fills buffer `to` (a state-sized buffer) with one value everywhere, pads included (poison before a
    /// launch).
    pub fn fill_state(&self, device: &mut dyn Device, to: BufferId, value: T) -> Result<(), BackendError> {
        device.upload(to, as_bytes(&vec![value; self.k * self.program.nvars * self.program.ldq]))
    }

    /// Reads a state-sized buffer into the host layout.
    pub fn read_state(&self, device: &mut dyn Device, from: BufferId) -> Result<Vec<T>, BackendError> {
        let (np, ldq) = (self.program.np, self.program.ldq);
        let mut padded = vec![T::zero(); self.k * self.program.nvars * ldq];
        device.download(from, as_bytes_mut(&mut padded))?;
        use rayon::prelude::*;
        let mut out = vec![T::zero(); self.k * self.program.nvars * np];
        out.par_chunks_mut(np).zip(padded.par_chunks(ldq)).for_each(|(to, col)| to.copy_from_slice(&col[..np]));
        Ok(out)
    }

    /// Reads the traces, `(k * NV + v) * NFACE + j`.
    pub fn read_traces(&self, device: &mut dyn Device) -> Result<Vec<T>, BackendError> {
        let mut out = vec![T::zero(); self.k * self.program.nvars * self.program.nface];
        device.download(self.buffers.qf, as_bytes_mut(&mut out))?;
        Ok(out)
    }
}

fn role_name_matches(name: &str, role: TetRole) -> bool {
    let expected = match role {
        TetRole::VolumeNode { kb } => format!("tet_volume_node_kb{kb}"),
        TetRole::SurfaceNode { kb } => format!("tet_surface_node_kb{kb}"),
        TetRole::VolumeElement { width } => format!("tet_volume_elem_w{width}"),
        TetRole::SurfaceElement { width } => format!("tet_surface_elem_w{width}"),
        TetRole::UpdateAb3 { ku, traces } => crate::render::update_kernel_name(ku, traces),
        // the fixed kernels (the device's registers can still refuse them)
        TetRole::VolumeLocal => "tet_volume_local".into(),
        TetRole::Flux => "tet_flux".into(),
        TetRole::LocalFlux { .. } => "tet_local_flux".into(),
        TetRole::Mma { gemm, .. } => match gemm {
            TetGemm::Gradient => "tet_mma_gradient".into(),
            TetGemm::Divergence => "tet_mma_divergence".into(),
            TetGemm::Lift => "tet_mma_lift".into(),
            TetGemm::LiftAb3 => "tet_mma_lift_ab3".into(),
        },
        TetRole::Trace | TetRole::Lincomb | TetRole::Source => return false,
    };
    name == expected
}

impl<T: Real> dg_runtime::step_system::StepOperator for TetDeviceOperator<T> {
    type Variant = TetVariant;

    /// Traces (if the strategy reads them), volume, surface, and the law's source where it has one.
    fn rhs_steps(
        &self,
        variant: &TetVariant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        let mut steps = if variant.strategy.is_merged_gemm() {
            self.gemm_rhs_steps(variant, q, rhs, t)?
        } else {
            let mut steps = self.trace_steps_for(variant, q)?;
            steps.extend(self.volume_steps(variant, q, rhs)?);
            steps.extend(self.surface_steps(variant, q, rhs, t)?);
            steps
        };
        steps.extend(self.source_steps(q, rhs, t));
        Ok(steps)
    }

    fn lincomb_step(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Step, DeviceOperatorError> {
        let any = TetVariant { strategy: Strategy::blas_gemm(false), update: 1, precision: Precision::F32 };
        let args = Arg::lincomb::<T>(y, a, terms, self.k * self.program.nvars * self.program.ldq);
        Ok(Step::Kernel(Launch { args, ..self.kernel(TetRole::Lincomb, &any)? }))
    }

    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        let n = self.k * self.program.nvars * self.program.ldq;
        device.alloc_zeroed(n.max(1) * std::mem::size_of::<T>())
    }

    fn submit(&self, device: &mut dyn Device, steps: &[Step]) -> Result<f64, BackendError> {
        device.submit(self.program_id, steps)
    }
}

/// Time integration of the tetrahedral operator with the generic integrators (state buffers, the lincomb kernel;
/// [`dg_runtime::step_system`]).
pub type TetDeviceSystem<'a, T> = dg_runtime::step_system::StepSystem<'a, TetDeviceOperator<T>>;
