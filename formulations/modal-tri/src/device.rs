//! The modal DG right-hand side on a compute device: the CPU operator's mesh data in the kernels' layout, edges
//! sorted boundary-first (seed 001), the generated kernels of one modal variant, and state conversion.

use crate::cpu::ModalOperator2d;
use crate::{render_modal, ModalKernelSource, ModalLayout, ModalRole, ModalVariant, TILE_ELEMENTS};
use dg_codegen::LawInput;
use dg_codegen::Target;
use dg_codegen::{Precision, VariantError};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{
    as_bytes, as_bytes_mut, kernels, upload_values as upload, Arg, BackendError, BufferId, Device, Launch, ProgramId,
    Step,
};
use dg_runtime::DeviceOperatorError;
use rayon::prelude::*;

/// Device buffers of one modal operator, in the kernels' argument order after `q` and `out`.
#[derive(Clone, Copy)]
struct Buffers {
    q: BufferId,
    out: BufferId,
    tmp_l: BufferId,
    tmp_r: BufferId,
    metric: BufferId,
    mat: BufferId,
    face_geo: BufferId,
    link: BufferId,
    edge_left: BufferId,
    elem_edge: BufferId,
    bcode: BufferId,
    bxy: BufferId,
    bnormal: BufferId,
    bstate: BufferId,
    tables: BufferId,
    means: BufferId,
    partial: BufferId,
    /// Where the law has a source term (`None` otherwise): every element's cubature points, `2 (k·NQ + q) + d`
    /// (the volume kernels' last argument, or the source kernel's).
    source_xy: Option<BufferId>,
    /// w_q·φ_j(x_q) at the volume points (row per point), where a source kernel runs (the mma surface).
    source_wphi: Option<BufferId>,
}

/// The modal right-hand side of a 2D law on a device, for one variant, in precision `T`.
pub struct ModalDeviceOperator<T: Real> {
    source: ModalKernelSource,
    program: ProgramId,
    buffers: Buffers,
    k: usize,
    edges: usize,
    /// Values in the left and right temporaries (1 where a variant does not use one).
    temporaries: (usize, usize),
    prescribed: bool,
    /// φ₀, the constant mode's value (the mean of an element is φ₀ c₀).
    phi0: f64,
    /// Degree p.
    order: usize,
    /// Smallest inscribed-circle diameter (the CFL length).
    min_inscribed_diameter: f64,
    _t: std::marker::PhantomData<T>,
}

/// How the edges of the edge-wise kernels are numbered and oriented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeOrder {
    /// Boundary edges first (seed 001), then interior edges by their lower element face, which is their left.
    BoundaryFirst,
    /// A random order, and each interior edge's left and right swapped at random.
    Shuffled {
        /// Random seed.
        seed: u64,
    },
}

/// A Runge–Kutta update folded into a right-hand side: y ← a·y + c·L + Σ cᵢxᵢ (at most three terms).
#[derive(Debug, Clone, PartialEq)]
pub struct FusedUpdate {
    /// The state updated; neither the right-hand side's input nor its output.
    pub y: BufferId,
    /// Coefficient of y.
    pub a: f64,
    /// Coefficient of the right-hand side L.
    pub c: f64,
    /// The other terms (coefficient, state); at most three.
    pub terms: Vec<(f64, BufferId)>,
    /// Whether L itself is stored in the output buffer too.
    pub keep: bool,
}

/// Work items per group of the time-stepping kernels (the wave-speed reduction assumes it).
const STEP_GROUP: usize = 256;

impl<T: Real> ModalDeviceOperator<T> {
    /// Renders, compiles and uploads everything for `variant` on the mesh of `cpu` (the CPU operator of the same
    /// law, degree and boundary rules).
    pub fn new<L: ConservationLaw>(
        device: &mut dyn Device,
        target: Target,
        law: (&LawIr, &[f64], &str),
        cpu: &ModalOperator2d<L, T>,
        variant: &ModalVariant,
    ) -> Result<Self, DeviceOperatorError> {
        Self::with_edge_order(device, target, law, cpu, variant, EdgeOrder::BoundaryFirst)
    }

    /// Like [`Self::new`], with the edges in a given order and orientation (consistency checks: the result must
    /// not depend on either).
    pub fn with_edge_order<L: ConservationLaw>(
        device: &mut dyn Device,
        target: Target,
        law: (&LawIr, &[f64], &str),
        cpu: &ModalOperator2d<L, T>,
        variant: &ModalVariant,
        order: EdgeOrder,
    ) -> Result<Self, DeviceOperatorError> {
        let want = dg_runtime::formulation::precision_of::<T>();
        if variant.precision != want {
            return Err(DeviceOperatorError::Precision(format!("variant {variant} does not compute in {}", T::NAME)));
        }
        if want == Precision::F64 && !device.supports_f64() {
            return Err(DeviceOperatorError::Precision("the device has no double precision".into()));
        }
        let (ir, params, numerical_flux) = law;
        crate::render::check_modal(
            variant,
            cpu.element(),
            &crate::render::ModalLawShape::of(ir, numerical_flux),
            &dg_runtime::backend::limits_of(device),
        )?;
        let source = render_modal(&LawInput { ir, params, numerical_flux }, cpu.element(), variant, target)?;
        let mut roles: Vec<String> = source.rhs_kernels.iter().map(|l| l.role.symbol().to_string()).collect();
        roles.extend(["modal_wave_speed", "lincomb"].map(String::from));
        if cpu.element().order == 1 {
            roles.extend(["modal_means", "modal_limit"].map(String::from));
        }
        if source.mean_check {
            roles.push("modal_mean_check".into());
        }
        let program = device.compile(&source.source, &roles)?;
        for launch in &source.rhs_kernels {
            if let Some(max) = device.kernel_max_work_group(program, launch.role.symbol()) {
                if launch.local_size > max {
                    return Err(DeviceOperatorError::Variant(VariantError::Rejected {
                        spec: variant.to_string(),
                        reason: format!(
                            "kernel `{}` allows {max} work items per group (registers), the variant asks {}",
                            launch.role.symbol(),
                            launch.local_size
                        ),
                    }));
                }
            }
        }
        Self::upload_mesh(device, source, program, cpu, order)
    }

    fn upload_mesh<L: ConservationLaw>(
        device: &mut dyn Device,
        source: ModalKernelSource,
        program: ProgramId,
        cpu: &ModalOperator2d<L, T>,
        order: EdgeOrder,
    ) -> Result<Self, DeviceOperatorError> {
        let data = cpu.device_data();
        let k = cpu.num_elements();
        let real = |v: f64| T::from_f64(v);
        // edges: boundary faces first (grouped, as seed 001 sorts them), then each interior edge once, its left
        // side the element face with the smaller index
        let mut edge_left: Vec<i32> = data.boundary_faces.iter().map(|&(kf, _)| kf as i32).collect();
        edge_left.extend((0..3 * k).filter(|&kf| data.link[kf] > kf as i32).map(|kf| kf as i32));
        if let EdgeOrder::Shuffled { seed } = order {
            use rand::seq::SliceRandom;
            use rand::{Rng, SeedableRng};
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            edge_left.shuffle(&mut rng);
            for kf in edge_left.iter_mut() {
                let other = data.link[*kf as usize];
                if other >= 0 && rng.random_bool(0.5) {
                    *kf = other;
                }
            }
        }
        let mut elem_edge = vec![0i32; 3 * k];
        for (e, &kf) in edge_left.iter().enumerate() {
            elem_edge[kf as usize] = 2 * e as i32;
            let other = data.link[kf as usize];
            if other >= 0 {
                elem_edge[other as usize] = 2 * e as i32 + 1;
            }
        }
        let edges = edge_left.len();
        let metric: Vec<T> = (0..4).flat_map(|c| data.metric.iter().map(move |m| real(m[c]))).collect();
        let face_geo: Vec<T> = (0..3).flat_map(|c| data.face.iter().map(move |f| real(f[c]))).collect();
        let nv = source.nvars;
        let nm = source.nmodes;
        let source_kernel = source.rhs_kernels.iter().any(|l| l.role == ModalRole::Source);
        let state_values = state_values_of(&source, k);
        dg_runtime::operator_error::check_index_range(&[
            ("the state", state_values),
            ("the edge traces", edges * nv * nm.max(source.edge_points)),
            // per element and per element face: more than the state's values for a scalar law at p = 1
            ("the element metric", metric.len()),
            ("the face geometry", face_geo.len()),
        ])?;
        let state_bytes = state_values * std::mem::size_of::<T>();
        // (the tiled layout's padding is never written by a kernel: zero from the start, it stays zero through every
        // linear combination and the per-step check, which scans whole buffers)
        let tiled = source.variant.layout == ModalLayout::Tiled;
        let mut state_buffer = || if tiled { device.alloc_zeroed(state_bytes) } else { device.alloc(state_bytes) };
        // the edge-wise surface writes the left/right temporaries (one projection per side and edge), the edge-flux
        // surface the numerical fluxes at each edge's points into the left one; the other variants get placeholders
        let (left_values, right_values) = match source.variant.surface {
            crate::ModalSurface::Edge => (edges * nv * nm, edges * nv * nm),
            crate::ModalSurface::EdgeFlux | crate::ModalSurface::EdgeFluxPair => (edges * nv * source.edge_points, 1),
            _ => (1, 1),
        };
        let bytes_of = |values: usize| values.max(1) * std::mem::size_of::<T>();
        let bstate: Vec<T> = cpu.prescribed_states(0.0).into_iter().map(real).collect();
        let buffers = Buffers {
            q: state_buffer()?,
            out: state_buffer()?,
            tmp_l: device.alloc(bytes_of(left_values))?,
            tmp_r: device.alloc(bytes_of(right_values))?,
            metric: upload(device, &metric, T::zero())?,
            mat: upload(device, &data.materials.iter().map(|&m| real(m)).collect::<Vec<T>>(), T::zero())?,
            face_geo: upload(device, &face_geo, T::zero())?,
            link: upload(device, &data.link, 0)?,
            edge_left: upload(device, &edge_left, 0)?,
            elem_edge: upload(device, &elem_edge, 0)?,
            bcode: upload(device, &data.boundary_faces.iter().map(|b| b.1).collect::<Vec<i32>>(), 0)?,
            bxy: upload(device, &data.boundary_xy.iter().flatten().map(|&c| real(c)).collect::<Vec<T>>(), T::zero())?,
            bnormal: upload(
                device,
                &data.boundary_normal.iter().flatten().map(|&c| real(c)).collect::<Vec<T>>(),
                T::zero(),
            )?,
            bstate: upload(device, &bstate, T::zero())?,
            tables: upload(device, &source.table.iter().map(|&v| real(v)).collect::<Vec<T>>(), T::zero())?,
            means: device.alloc(k * nv * std::mem::size_of::<T>())?,
            partial: device.alloc(k.div_ceil(STEP_GROUP) * std::mem::size_of::<T>())?,
            source_xy: match source.source_in_volume || source_kernel {
                true => {
                    let xy: Vec<T> = (0..k).flat_map(|e| cpu.cubature_points(e).iter().flatten().copied()).collect();
                    Some(upload(device, &xy, T::zero())?)
                }
                false => None,
            },
            source_wphi: match source_kernel {
                true => {
                    let el = cpu.element();
                    let wphi: Vec<T> = (0..el.volume.w.len())
                        .flat_map(|g| (0..nm).map(move |j| real(el.volume.w[g] * el.phi[(g, j)])))
                        .collect();
                    Some(upload(device, &wphi, T::zero())?)
                }
                false => None,
            },
        };
        Ok(Self {
            source,
            program,
            buffers,
            k,
            edges,
            temporaries: (left_values.max(1), right_values.max(1)),
            prescribed: cpu.has_prescribed(),
            phi0: cpu.element().phi[(0, 0)],
            order: cpu.element().order,
            min_inscribed_diameter: cpu.min_inscribed_diameter(),
            _t: std::marker::PhantomData,
        })
    }

    /// The generated program.
    pub fn source(&self) -> &ModalKernelSource {
        &self.source
    }

    /// The compiled program.
    pub fn program(&self) -> ProgramId {
        self.program
    }

    /// Number of edges (boundary first).
    pub fn edges(&self) -> usize {
        self.edges
    }

    /// Uploads the prescribed boundary states of time `t` (nothing to do when no boundary has one).
    pub fn set_time<L: ConservationLaw>(
        &self,
        device: &mut dyn Device,
        cpu: &ModalOperator2d<L, T>,
        t: f64,
    ) -> Result<(), BackendError> {
        if !self.prescribed {
            return Ok(());
        }
        let values: Vec<T> = cpu.prescribed_states(t).into_iter().map(T::from_f64).collect();
        device.upload(self.buffers.bstate, as_bytes(&values))
    }

    /// The launches of one right-hand side of state buffer `q` into `out` at time `t` (prescribed states must
    /// have been set for `t`).
    pub fn rhs_launches_between(&self, q: BufferId, out: BufferId, t: f64) -> Vec<Launch> {
        self.rhs_step_launches(q, out, t, None)
    }

    /// Whether this variant's right-hand side ends in a kernel that can fold an update into its store
    /// ([`ModalDeviceOperator::rhs_step_launches`]): not the atomic surface, which adds to the result last.
    pub fn fuses_updates(&self) -> bool {
        self.source.rhs_kernels.last().is_some_and(|launch| launch.role.writes_result())
    }

    /// The launches of one right-hand side of `q` at time `t` whose last kernel also performs `update`
    /// (y ← a·y + c·L + Σ cᵢxᵢ, at most three terms; L stored in `out` only when `update.keep` is set); plain
    /// L into `out` without one. A variant that cannot fuse ([`ModalDeviceOperator::fuses_updates`]) gets the
    /// plain launches followed by a linear combination.
    pub fn rhs_step_launches(&self, q: BufferId, out: BufferId, t: f64, update: Option<&FusedUpdate>) -> Vec<Launch> {
        let b = &self.buffers;
        let args: Vec<Arg> = [q, out, b.tmp_l, b.tmp_r, b.metric, b.mat, b.face_geo, b.link, b.edge_left]
            .into_iter()
            .chain([b.elem_edge, b.bcode, b.bxy, b.bnormal, b.bstate, b.tables])
            .map(Arg::Buffer)
            .chain([Arg::real::<T>(t), Arg::I32(self.k as i32), Arg::I32(self.edges as i32)])
            // the cubature points, where the volume integral adds the law's source
            .chain(b.source_xy.filter(|_| self.source.source_in_volume).map(Arg::Buffer))
            .collect();
        let fused = update.filter(|_| self.fuses_updates());
        let step_args: Vec<Arg> = match fused {
            Some(u) => {
                let buffer = |i: usize| Arg::Buffer(u.terms.get(i).map_or(u.y, |t| t.1));
                let coefficient = |i: usize| Arg::real::<T>(u.terms.get(i).map_or(0.0, |t| t.0));
                [Arg::Buffer(u.y), buffer(0), buffer(1), buffer(2), Arg::real::<T>(u.a), Arg::real::<T>(u.c)]
                    .into_iter()
                    .chain([coefficient(0), coefficient(1), coefficient(2)])
                    .chain([Arg::I32(if u.keep { 1 } else { 2 })])
                    .collect()
            }
            // step 0: L stored in out; the update's buffers are not read
            None => [Arg::Buffer(out); 4].into_iter().chain([Arg::real::<T>(0.0); 5]).chain([Arg::I32(0)]).collect(),
        };
        let mut launches: Vec<Launch> = self
            .source
            .rhs_kernels
            .iter()
            .map(|launch| {
                let items = if launch.role.per_edge() { self.edges } else { self.k };
                // (the source's tables exist for every program with a source kernel: `upload_mesh`)
                if let (ModalRole::Source, Some(wphi), Some(xy)) = (launch.role, b.source_wphi, b.source_xy) {
                    let args = [q, out, b.mat, b.tables, wphi, xy].into_iter().map(Arg::Buffer);
                    return Launch {
                        kernel: launch.role.symbol().to_string(),
                        groups: items.div_ceil(launch.items_per_group).max(1),
                        local: launch.local_size,
                        args: args.chain([Arg::real::<T>(t), Arg::I32(self.k as i32)]).collect(),
                    };
                }
                let mut args = args.clone();
                if launch.role.writes_result() {
                    args.extend(step_args.iter().cloned());
                }
                Launch {
                    kernel: launch.role.symbol().to_string(),
                    groups: items.div_ceil(launch.items_per_group).max(1),
                    local: launch.local_size,
                    args,
                }
            })
            .collect();
        if let (Some(u), None) = (update, fused) {
            let mut terms = vec![(u.c, out)];
            terms.extend_from_slice(&u.terms);
            for (a, chunk) in dg_runtime::step_system::lincomb_chunks(u.a, &terms) {
                launches.push(self.lincomb_launch(u.y, a, chunk));
            }
        }
        launches
    }

    /// The launches of one right-hand side of the operator's own state buffer.
    pub fn rhs_launches(&self, t: f64) -> Vec<Launch> {
        self.rhs_launches_between(self.buffers.q, self.buffers.out, t)
    }

    /// Evaluates the right-hand side of the uploaded state; the device time of each of `repeats` evaluations.
    pub fn apply(&self, device: &mut dyn Device, t: f64, repeats: usize) -> Result<Vec<f64>, BackendError> {
        device.run(self.program, &self.rhs_launches(t), repeats)
    }

    /// One Runge–Kutta stage of the uploaded state as a run evaluates it — L written to the output and
    /// `stage` ← stage + c·L folded into the same pass (`rhs_step_launches`) — `repeats` times; the device time of
    /// each. What tuning and `dg bench` time: the layout that wins a bare right-hand side can lose the stage (the
    /// element-major stores of two outputs and the reads of a third were measured at twice the bare kernel's
    /// time on the H100). The update reads a buffer that is not the right-hand side's input, as the stages of a
    /// run do (classical RK4's second to fourth, every low-storage stage): a term equal to the input is found in
    /// cache and hides what a fused update costs.
    pub fn apply_stage(
        &self,
        device: &mut dyn Device,
        stage: BufferId,
        t: f64,
        repeats: usize,
    ) -> Result<Vec<f64>, BackendError> {
        let update = FusedUpdate { y: stage, a: 1.0, c: 1e-3, terms: Vec::new(), keep: true };
        let launches = self.rhs_step_launches(self.buffers.q, self.buffers.out, t, Some(&update));
        device.run(self.program, &launches, repeats)
    }

    /// Values in one state buffer (the tiled layout's padding included).
    pub fn state_values(&self) -> usize {
        state_values_of(&self.source, self.k)
    }

    /// A new zero-filled state buffer.
    pub fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        device.alloc_zeroed(self.state_values() * std::mem::size_of::<T>())
    }

    /// The launch of y = a·y + Σ cᵢxᵢ (at most three terms) on state buffers.
    pub fn lincomb_launch(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Launch {
        let n = self.state_values();
        let args = Arg::lincomb::<T>(y, a, terms, n);
        Launch { kernel: "lincomb".into(), groups: n.div_ceil(STEP_GROUP), local: STEP_GROUP, args }
    }

    /// Seed 001's stable step for state buffer `q`: cfl · d_min / (λ_max (2p + 1)), λ_max reduced on the device
    /// (per group of 256 elements; the host takes the largest of the groups). `None` when a mean state has no
    /// finite wave speed. Returns the step and the device seconds spent.
    pub fn stable_time_step(
        &self,
        device: &mut dyn Device,
        q: BufferId,
        cfl: f64,
    ) -> Result<(Option<f64>, f64), BackendError> {
        let (partial, seconds) = self.reduce_means(device, "modal_wave_speed", q)?;
        let lambda = partial.iter().map(|v| v.as_f64()).fold(0.0, dg_core::max_or_nan);
        let dt = (lambda.is_finite() && lambda > 0.0)
            .then(|| cfl * self.min_inscribed_diameter / (lambda * (2 * self.order + 1) as f64));
        Ok((dt, seconds))
    }

    /// Runs `kernel`, a reduction over the element means of state buffer `q` into one value per group of
    /// [`STEP_GROUP`] elements (arguments q, mat, partial, φ₀, K), and reads the group values back with the device
    /// seconds spent.
    fn reduce_means(&self, device: &mut dyn Device, kernel: &str, q: BufferId) -> Result<(Vec<T>, f64), BackendError> {
        let groups = self.k.div_ceil(STEP_GROUP);
        let b = &self.buffers;
        let args = vec![
            Arg::Buffer(q),
            Arg::Buffer(b.mat),
            Arg::Buffer(b.partial),
            Arg::real::<T>(self.phi0),
            Arg::I32(self.k as i32),
        ];
        let launch = Launch { kernel: kernel.into(), groups, local: STEP_GROUP, args };
        let seconds = device.run(self.program, &[launch], 1)?.iter().sum::<f64>();
        let mut partial = vec![T::zero(); groups];
        device.download(b.partial, as_bytes_mut(&mut partial))?;
        Ok((partial, seconds))
    }

    /// How many element means of state buffer `q` the law's admissibility function rejects (not positive, or
    /// NaN), counted on the device; `None` when the law declares no admissibility. Returns the count and the
    /// device seconds spent.
    pub fn inadmissible_means(
        &self,
        device: &mut dyn Device,
        q: BufferId,
    ) -> Result<(Option<usize>, f64), BackendError> {
        if !self.source.mean_check {
            return Ok((None, 0.0));
        }
        let (partial, seconds) = self.reduce_means(device, "modal_mean_check", q)?;
        // each group's count is exact in f32 (at most 256); a NaN count (it cannot arise) counts as every element
        let bad = partial.iter().map(|v| if v.as_f64().is_finite() { v.as_f64() as usize } else { STEP_GROUP }).sum();
        Ok((Some(bad), seconds))
    }

    /// The launches of the limiter on state buffer `q` (p = 1 only; empty otherwise).
    pub fn limit_launches(&self, q: BufferId) -> Vec<Launch> {
        if self.order != 1 {
            return Vec::new();
        }
        let (b, groups) = (&self.buffers, self.k.div_ceil(STEP_GROUP));
        let k = Arg::I32(self.k as i32);
        vec![
            Launch {
                kernel: "modal_means".into(),
                groups,
                local: STEP_GROUP,
                args: vec![Arg::Buffer(q), Arg::Buffer(b.means), Arg::real::<T>(self.phi0), k],
            },
            Launch {
                kernel: "modal_limit".into(),
                groups,
                local: STEP_GROUP,
                args: [q, b.means, b.mat, b.link, b.tables].map(Arg::Buffer).into_iter().chain([k]).collect(),
            },
        ]
    }

    /// Reads a state buffer into the CPU layout.
    pub fn read_state(&self, device: &mut dyn Device, buffer: BufferId) -> Result<Vec<T>, BackendError> {
        let (nv, nm) = (self.source.nvars, self.source.nmodes);
        let mut dev = vec![T::zero(); self.state_values()];
        device.download(buffer, as_bytes_mut(&mut dev))?;
        if self.source.variant.layout == ModalLayout::ElemMajor {
            return Ok(dev);
        }
        let mut out = vec![T::zero(); self.k * nv * nm];
        out.par_chunks_mut(nv * nm).enumerate().for_each(|(k, element)| {
            for (vj, value) in element.iter_mut().enumerate() {
                *value = dev[self.device_index(k, vj / nm, vj % nm)];
            }
        });
        Ok(out)
    }

    /// Writes a CPU-layout state into a state buffer.
    pub fn write_state(&self, device: &mut dyn Device, buffer: BufferId, q: &[T]) -> Result<(), BackendError> {
        let (nv, nm) = (self.source.nvars, self.source.nmodes);
        match self.source.variant.layout {
            ModalLayout::ElemMajor => device.upload(buffer, as_bytes(q)),
            ModalLayout::ModeMajor => {
                // row (v, j) holds every element's coefficient
                let mut dev = vec![T::zero(); q.len()];
                dev.par_chunks_mut(self.k.max(1)).enumerate().for_each(|(vj, row)| {
                    let (v, j) = (vj / nm, vj % nm);
                    for (k, value) in row.iter_mut().enumerate() {
                        *value = q[(k * nv + v) * nm + j];
                    }
                });
                device.upload(buffer, as_bytes(&dev))
            }
            ModalLayout::Tiled => {
                // a tile: row (v, j) of its 32 elements' coefficients, then the next row; padding zero
                let mut dev = vec![T::zero(); self.state_values()];
                dev.par_chunks_mut(TILE_ELEMENTS).enumerate().for_each(|(row, values)| {
                    let (tile, vj) = (row / (nv * nm), row % (nv * nm));
                    for (e, value) in values.iter_mut().enumerate() {
                        let k = tile * TILE_ELEMENTS + e;
                        if k < self.k {
                            *value = q[k * nv * nm + vj];
                        }
                    }
                });
                device.upload(buffer, as_bytes(&dev))
            }
        }
    }

    fn device_index(&self, k: usize, v: usize, j: usize) -> usize {
        let (nv, nm) = (self.source.nvars, self.source.nmodes);
        match self.source.variant.layout {
            ModalLayout::ModeMajor => (v * nm + j) * self.k + k,
            ModalLayout::ElemMajor => (k * nv + v) * nm + j,
            ModalLayout::Tiled => tiled_offset(k, v * nm + j, nv * nm),
        }
    }

    /// Uploads a state in the CPU layout (`(k·nvars + v)·modes + j`) into the operator's own state buffer.
    pub fn upload_state(&self, device: &mut dyn Device, q: &[T]) -> Result<(), BackendError> {
        self.write_state(device, self.buffers.q, q)
    }

    /// The operator's own state buffer.
    pub fn state_buffer(&self) -> BufferId {
        self.buffers.q
    }

    /// The buffer the right-hand side of [`ModalDeviceOperator::apply`] is written to.
    pub fn output_buffer(&self) -> BufferId {
        self.buffers.out
    }

    /// Fills the output and the kernels' temporaries with NaN so that anything left unwritten, or read before it
    /// is written, shows.
    pub fn poison_output(&self, device: &mut dyn Device) -> Result<(), BackendError> {
        let nan = vec![T::nan(); self.state_values()];
        device.upload(self.buffers.out, as_bytes(&nan))?;
        let (left, right) = self.temporaries;
        device.upload(self.buffers.tmp_l, as_bytes(&vec![T::nan(); left]))?;
        device.upload(self.buffers.tmp_r, as_bytes(&vec![T::nan(); right]))
    }

    /// Downloads the right-hand side in the CPU layout.
    pub fn download_output(&self, device: &mut dyn Device) -> Result<Vec<T>, BackendError> {
        self.read_state(device, self.buffers.out)
    }
}

/// Values in one state buffer of `source`'s layout for `k` elements: the tiled layout pads `k` to whole tiles.
fn state_values_of(source: &ModalKernelSource, k: usize) -> usize {
    let elements = match source.variant.layout {
        ModalLayout::Tiled => k.div_ceil(TILE_ELEMENTS) * TILE_ELEMENTS,
        ModalLayout::ModeMajor | ModalLayout::ElemMajor => k,
    };
    elements * source.nvars * source.nmodes
}

/// Where the tiled layout keeps value `vj` (= v·NM + j, of `per_element` values) of element `k` (`QIDX` in
/// `modal_sizes.tera`).
fn tiled_offset(k: usize, vj: usize, per_element: usize) -> usize {
    (k / TILE_ELEMENTS) * TILE_ELEMENTS * per_element + vj * TILE_ELEMENTS + k % TILE_ELEMENTS
}

/// Time integration of the modal operator on a device: right-hand sides, updates and the limiter as kernels;
/// prescribed boundary states uploaded per stage time.
pub struct ModalDeviceSystem<'a, L: ConservationLaw, T: Real> {
    /// The device.
    pub device: &'a mut dyn Device,
    /// The device operator.
    pub op: &'a ModalDeviceOperator<T>,
    /// The CPU operator of the same problem (prescribed states).
    pub cpu: &'a ModalOperator2d<L, T>,
    /// Whether the limiter runs after every stage.
    pub limiter: bool,
    /// Device seconds spent in kernels so far.
    pub device_seconds: f64,
}

impl<L: ConservationLaw, T: Real> dg_runtime::time::OdeSystem for ModalDeviceSystem<'_, L, T> {
    type State = BufferId;
    type Error = BackendError;

    fn rhs(&mut self, t: f64, q: &BufferId, out: &mut BufferId) -> Result<(), BackendError> {
        self.op.set_time(self.device, self.cpu, t)?;
        let launches = self.op.rhs_launches_between(*q, *out, t);
        self.device_seconds += self.device.submit(self.op.program(), &kernels(launches))?;
        Ok(())
    }

    fn zeros_like(&mut self, _like: &BufferId) -> Result<BufferId, BackendError> {
        self.op.new_state(self.device)
    }

    fn update(&mut self, y: &mut BufferId, a: f64, terms: &[(f64, &BufferId)]) -> Result<(), BackendError> {
        dg_runtime::step_system::update_in_threes(*y, a, terms, |y, a, terms| {
            let launch = self.op.lincomb_launch(y, a, terms);
            self.device_seconds += self.device.submit(self.op.program(), &[Step::Kernel(launch)])?;
            Ok(())
        })
    }

    /// The update is folded into the right-hand side's last kernel (one pass over the state instead of a
    /// store of L and a linear combination reading it back), unless the variant's surface is atomic or the terms
    /// are more than three.
    fn rhs_update(
        &mut self,
        t: f64,
        q: &BufferId,
        k: &mut BufferId,
        keep_k: bool,
        y: &mut BufferId,
        (a, c): (f64, f64),
        terms: &[(f64, &BufferId)],
    ) -> Result<(), BackendError> {
        if terms.len() > 3 || *y == *q || *y == *k {
            return dg_runtime::time::rhs_then_update(self, t, q, k, y, (a, c), terms);
        }
        self.op.set_time(self.device, self.cpu, t)?;
        let terms = terms.iter().map(|(c, b)| (*c, **b)).collect();
        let update = FusedUpdate { y: *y, a, c, terms, keep: keep_k };
        let launches = self.op.rhs_step_launches(*q, *k, t, Some(&update));
        self.device_seconds += self.device.submit(self.op.program(), &kernels(launches))?;
        Ok(())
    }

    fn limit(&mut self, q: &mut BufferId) -> Result<(), BackendError> {
        if self.limiter {
            let launches = self.op.limit_launches(*q);
            self.device_seconds += self.device.submit(self.op.program(), &kernels(launches))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every coefficient of every element has its own place in the tiled layout, inside the padded buffer, and
    /// what no coefficient takes is the last tile's padding: a whole number of rows' tails.
    #[test]
    fn every_coefficient_has_its_own_place_in_the_tiled_layout() {
        for (k, per_element) in [(1usize, 3usize), (31, 4), (32, 60), (874, 40), (1_000, 84)] {
            let padded = k.div_ceil(TILE_ELEMENTS) * TILE_ELEMENTS;
            let mut seen = vec![false; padded * per_element];
            for e in 0..k {
                for vj in 0..per_element {
                    let at = tiled_offset(e, vj, per_element);
                    assert!(at < seen.len() && !seen[at], "k = {k}: element {e} value {vj} at {at}");
                    seen[at] = true;
                }
            }
            let free: Vec<usize> = (0..seen.len()).filter(|&at| !seen[at]).collect();
            assert_eq!(free.len(), (padded - k) * per_element, "k = {k}");
            // the free places are the padding elements' lanes of the last tile
            assert!(free.iter().all(|&at| at >= (padded - TILE_ELEMENTS) * per_element && at % 32 >= k % 32));
        }
    }
}
