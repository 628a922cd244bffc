//! The modal DG right-hand side on a compute device: the CPU operator's mesh data in the kernels' layout, edges
//! sorted boundary-first (seed 001), the generated kernels of one modal variant, and state conversion.

use crate::backend::{as_bytes, as_bytes_mut, Arg, BackendError, BufferId, Device, Launch, ProgramId};
use crate::cpu::ModalOperator2d;
use crate::device_operator::DeviceOperatorError;
use dg_codegen::modal::{render_modal, ModalKernelSource, ModalLayout, ModalVariant};
use dg_codegen::render::LawInput;
use dg_codegen::variant::{Precision, VariantError};
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_ir::LawIr;

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
}

/// The modal right-hand side of a 2D law on a device, for one variant, in precision `T`.
pub struct ModalDeviceOperator<T: Real> {
    source: ModalKernelSource,
    program: ProgramId,
    buffers: Buffers,
    k: usize,
    edges: usize,
    prescribed: bool,
    _t: std::marker::PhantomData<T>,
}

fn upload<V: Copy>(device: &mut dyn Device, values: &[V], pad: V) -> Result<BufferId, BackendError> {
    // a zero-length buffer is not allowed everywhere: keep one value
    let padded;
    let values = if values.is_empty() {
        padded = [pad];
        &padded[..]
    } else {
        values
    };
    let id = device.alloc(std::mem::size_of_val(values))?;
    device.upload(id, as_bytes(values))?;
    Ok(id)
}

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
        let want = if T::NAME == "f32" { Precision::F32 } else { Precision::F64 };
        if variant.precision != want {
            return Err(DeviceOperatorError::Precision(format!("variant {variant} does not compute in {}", T::NAME)));
        }
        if want == Precision::F64 && !device.supports_f64() {
            return Err(DeviceOperatorError::Precision("the device has no double precision".into()));
        }
        let (ir, params, numerical_flux) = law;
        let source = render_modal(&LawInput { ir, params, numerical_flux }, cpu.element(), variant, target)?;
        let roles: Vec<String> = source.rhs_kernels.iter().map(|l| l.role.symbol().to_string()).collect();
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
        Self::upload_mesh(device, source, program, cpu)
    }

    fn upload_mesh<L: ConservationLaw>(
        device: &mut dyn Device,
        source: ModalKernelSource,
        program: ProgramId,
        cpu: &ModalOperator2d<L, T>,
    ) -> Result<Self, DeviceOperatorError> {
        let data = cpu.device_data();
        let k = cpu.num_elements();
        let real = |v: f64| T::from_f64(v);
        // edges: boundary faces first (grouped, as seed 001 sorts them), then each interior edge once
        let mut edge_left: Vec<i32> = data.boundary_faces.iter().map(|&(kf, _)| kf as i32).collect();
        edge_left.extend((0..3 * k).filter(|&kf| data.link[kf] > kf as i32).map(|kf| kf as i32));
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
        let state_bytes = k * nv * nm * std::mem::size_of::<T>();
        let tmp_bytes = (edges * nv * nm).max(1) * std::mem::size_of::<T>();
        let bstate: Vec<T> = cpu.prescribed_states(0.0).into_iter().map(real).collect();
        let buffers = Buffers {
            q: device.alloc(state_bytes)?,
            out: device.alloc(state_bytes)?,
            tmp_l: device.alloc(tmp_bytes)?,
            tmp_r: device.alloc(tmp_bytes)?,
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
        };
        Ok(Self { source, program, buffers, k, edges, prescribed: cpu.has_prescribed(), _t: std::marker::PhantomData })
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

    fn scalar(value: f64) -> Arg {
        if T::NAME == "f32" {
            Arg::F32(value as f32)
        } else {
            Arg::F64(value)
        }
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
        let b = &self.buffers;
        let args: Vec<Arg> = [q, out, b.tmp_l, b.tmp_r, b.metric, b.mat, b.face_geo, b.link, b.edge_left]
            .into_iter()
            .chain([b.elem_edge, b.bcode, b.bxy, b.bnormal, b.bstate, b.tables])
            .map(Arg::Buffer)
            .chain([Self::scalar(t), Arg::I32(self.k as i32), Arg::I32(self.edges as i32)])
            .collect();
        self.source
            .rhs_kernels
            .iter()
            .map(|launch| {
                let items = if launch.role.per_edge() { self.edges } else { self.k };
                Launch {
                    kernel: launch.role.symbol().to_string(),
                    groups: items.div_ceil(launch.local_size).max(1),
                    local: launch.local_size,
                    args: args.clone(),
                }
            })
            .collect()
    }

    /// The launches of one right-hand side of the operator's own state buffer.
    pub fn rhs_launches(&self, t: f64) -> Vec<Launch> {
        self.rhs_launches_between(self.buffers.q, self.buffers.out, t)
    }

    /// Evaluates the right-hand side of the uploaded state; the device time of each of `repeats` evaluations.
    pub fn apply(&self, device: &mut dyn Device, t: f64, repeats: usize) -> Result<Vec<f64>, BackendError> {
        device.run(self.program, &self.rhs_launches(t), repeats)
    }

    fn device_index(&self, k: usize, v: usize, j: usize) -> usize {
        let (nv, nm) = (self.source.nvars, self.source.nmodes);
        match self.source.variant.layout {
            ModalLayout::ModeMajor => (v * nm + j) * self.k + k,
            ModalLayout::ElemMajor => (k * nv + v) * nm + j,
        }
    }

    /// Uploads a state in the CPU layout (`(k·nvars + v)·modes + j`).
    pub fn upload_state(&self, device: &mut dyn Device, q: &[T]) -> Result<(), BackendError> {
        let (nv, nm) = (self.source.nvars, self.source.nmodes);
        let mut dev = vec![T::zero(); q.len()];
        for k in 0..self.k {
            for v in 0..nv {
                for j in 0..nm {
                    dev[self.device_index(k, v, j)] = q[(k * nv + v) * nm + j];
                }
            }
        }
        device.upload(self.buffers.q, as_bytes(&dev))
    }

    /// Fills the output with NaN so that anything left unwritten shows.
    pub fn poison_output(&self, device: &mut dyn Device) -> Result<(), BackendError> {
        let nan = vec![T::nan(); self.k * self.source.nvars * self.source.nmodes];
        device.upload(self.buffers.out, as_bytes(&nan))
    }

    /// Downloads the right-hand side in the CPU layout.
    pub fn download_output(&self, device: &mut dyn Device) -> Result<Vec<T>, BackendError> {
        let (nv, nm) = (self.source.nvars, self.source.nmodes);
        let mut dev = vec![T::zero(); self.k * nv * nm];
        device.download(self.buffers.out, as_bytes_mut(&mut dev))?;
        let mut out = vec![T::zero(); dev.len()];
        for k in 0..self.k {
            for v in 0..nv {
                for j in 0..nm {
                    out[(k * nv + v) * nm + j] = dev[self.device_index(k, v, j)];
                }
            }
        }
        Ok(out)
    }
}
