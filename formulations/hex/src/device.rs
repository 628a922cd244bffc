//! The hexahedral right-hand side on a compute device: the mesh in the kernels' layout, the cell zones (cells of
//! one geometry class) and interface zones (interior faces, each boundary condition, per geometry class of the
//! face's cell), one compiled program with every kernel, and the launch sequence of a variant.

use crate::render::{render_hex, FaceKind, Geometry, HexLimits, HexProgram, HexRole};
use crate::variant::{HexVariant, Layout, Surface};
use dg_codegen::{LawInput, Precision, Target, VariantError};
use dg_core::hexmesh::GeometryClass;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{
    as_bytes, as_bytes_mut, upload_values as upload, Arg, BackendError, BufferId, Device, Launch, ProgramId, Step,
};
use dg_runtime::cpu::{BoundaryBinding, INTERIOR};
use dg_runtime::DeviceOperatorError;
use rayon::prelude::*;

/// A list of cells (a cell zone) or of cell faces `6k + f` (an interface zone) on the device.
#[derive(Debug, Clone, Copy)]
pub struct Zone {
    /// The geometry its kernel is compiled for.
    pub geometry: Geometry,
    /// For interface zones, the faces.
    pub faces: Option<FaceKind>,
    /// The list.
    pub list: BufferId,
    /// Its length.
    pub len: usize,
}

/// The zones a right-hand side runs over: the cells of a range (by geometry class for specialised variants, all
/// together for generic ones) and their faces (by kind and class, or all together).
#[derive(Debug, Clone)]
pub struct HexZones {
    /// The cells.
    pub cells: std::ops::Range<usize>,
    /// Cell zones of the specialised kernels (one per geometry class present).
    pub cell_zones: Vec<Zone>,
    /// Interface zones of the specialised kernels (interior faces and each boundary condition, per class).
    pub face_zones: Vec<Zone>,
    all_cells: Zone,
    all_faces: Zone,
}

/// Device buffers of one hexahedral operator.
#[derive(Debug, Clone, Copy)]
pub struct HexBuffers {
    /// State, `k * NV * NP + v * NP + i`.
    pub q: BufferId,
    /// A right-hand side.
    pub rhs: BufferId,
    /// Face fluxes of the split surface, `(k * NV + v) * NFACE + j`.
    pub face_flux: BufferId,
    geo: BufferId,
    bx: BufferId,
    mat: BufferId,
    fgeo: BufferId,
    fxyz: BufferId,
    face_bc: BufferId,
    mapp: BufferId,
    prm: BufferId,
    ops: BufferId,
    /// Every node's coordinates, `3 (k·Np + i) + d`, where the law has a source term (`None` otherwise).
    node_xyz: Option<BufferId>,
}

/// The hexahedral operator of one law, order and precision on a device.
pub struct HexDeviceOperator<T: Real> {
    program: HexProgram,
    program_id: ProgramId,
    /// The buffers (public for verification, which fills them with test data).
    pub buffers: HexBuffers,
    /// The zones of every cell.
    pub zones: HexZones,
    /// Geometry of each cell's kernels.
    cell_geometry: Vec<Geometry>,
    /// Kind of each cell face `6k + f`.
    face_kind: Vec<FaceKind>,
    k: usize,
    _t: std::marker::PhantomData<T>,
}

fn geometry_of(class: GeometryClass) -> Geometry {
    match class {
        GeometryClass::Box => Geometry::Box,
        GeometryClass::Trilinear => Geometry::Trilinear,
    }
}

impl<T: Real> HexDeviceOperator<T> {
    /// Renders and compiles the program for states in `layout` and uploads the mesh of `space` (materials
    /// cell-major).
    pub fn new(
        device: &mut dyn Device,
        target: Target,
        law: (&LawIr, &[f64], &str),
        (space, binding): (&HexSpace, &BoundaryBinding),
        materials: &[f64],
        layout: Layout,
    ) -> Result<Self, DeviceOperatorError> {
        let precision = dg_runtime::formulation::precision_of::<T>();
        if precision == Precision::F64 && !device.supports_f64() {
            return Err(DeviceOperatorError::Precision("the device has no double precision".into()));
        }
        let (ir, params, numerical_flux) = law;
        let limits = HexLimits { max_work_group: device.max_work_group(), local_memory: device.local_memory() };
        let state = (layout, space.num_elements());
        let mut program =
            render_hex(&LawInput { ir, params, numerical_flux }, &space.element, precision, target, limits, state)?;
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
        let k = space.num_elements();
        crate::index_range::check(k, program.nvars, program.np, program.nface)?;
        if materials.len() != k * program.nmaterials {
            return Err(DeviceOperatorError::Precision(format!(
                "{} material values for {k} cells of {} each",
                materials.len(),
                program.nmaterials
            )));
        }
        let buffers = Self::upload_mesh(device, &program, space, binding, materials, params)?;
        let cell_geometry: Vec<Geometry> = space.class.iter().map(|&c| geometry_of(c)).collect();
        let face_kind: Vec<FaceKind> = space
            .face_tag
            .iter()
            .map(|tag| match tag {
                None => FaceKind::Interior,
                Some(tag) => FaceKind::Boundary(binding.condition_of_tag[*tag]),
            })
            .collect();
        let zones = build_zones(device, (&cell_geometry, &face_kind), 0..k)?;
        Ok(Self { program, program_id, buffers, zones, cell_geometry, face_kind, k, _t: std::marker::PhantomData })
    }

    /// The zones of the cells `cells` (a rank's interior or the cells next to its halo): their lists uploaded.
    pub fn zones_over(&self, device: &mut dyn Device, cells: std::ops::Range<usize>) -> Result<HexZones, BackendError> {
        build_zones(device, (&self.cell_geometry, &self.face_kind), cells)
    }

    fn upload_mesh(
        device: &mut dyn Device,
        p: &HexProgram,
        space: &HexSpace,
        binding: &BoundaryBinding,
        materials: &[f64],
        params: &[f64],
    ) -> Result<HexBuffers, DeviceOperatorError> {
        let el = &space.element;
        let (np, nfp, nface, nv) = (p.np, el.nfp, p.nface, p.nvars);
        let k_count = space.num_elements();
        let real = |v: f64| T::from_f64(v);
        // per node: ω|J|∂x̂_a/∂x_d (9), then 1/(ω|J|)
        // (each loop over cells on every core, a cell writing its own chunk)
        let mut geo = vec![T::zero(); k_count * 10 * np];
        geo.par_chunks_mut(10 * np).enumerate().for_each(|(k, cell)| {
            for i in 0..np {
                let g = k * np + i;
                let w = el.weight(i);
                for a in 0..3 {
                    for d in 0..3 {
                        cell[(3 * a + d) * np + i] = real(w * space.metric[g][a][d]);
                    }
                }
                cell[9 * np + i] = real(1.0 / (w * space.det_j[g]));
            }
        });
        // per cell: lower corner and size (box cells; unused for the others)
        let bx: Vec<T> = (0..k_count)
            .flat_map(|k| {
                let c = space.mesh.corners(k);
                [c[0][0], c[0][1], c[0][2], c[6][0] - c[0][0], c[6][1] - c[0][1], c[6][2] - c[0][2]]
            })
            .map(real)
            .collect();
        let mut fgeo = vec![T::zero(); k_count * 4 * nface];
        let mut fxyz = vec![T::zero(); k_count * 3 * nface];
        let mut mapp = vec![0i32; k_count * nface];
        (fgeo.par_chunks_mut(4 * nface).zip(fxyz.par_chunks_mut(3 * nface)).zip(mapp.par_chunks_mut(nface)))
            .enumerate()
            .for_each(|(k, ((fgeo, fxyz), mapp))| {
                for j in 0..nface {
                    let g = k * nface + j;
                    for d in 0..3 {
                        fgeo[d * nface + j] = real(space.face_normal[g][d]);
                        fxyz[d * nface + j] = real(space.face_xyz[g][d]);
                    }
                    fgeo[3 * nface + j] = real(el.face_weight(j % nfp) * space.face_area[g]);
                    mapp[j] = space.face_partner[g] as i32;
                }
            });
        let face_bc: Vec<i32> = space
            .face_tag
            .iter()
            .map(|t| t.map_or(INTERIOR, |tag| binding.condition_of_tag[tag]))
            .map(|c| if c == INTERIOR { -1 } else { c as i32 })
            .collect();
        let stride = p.nmaterials.max(1);
        let mut mat = vec![T::zero(); k_count * stride];
        for k in 0..k_count {
            for m in 0..p.nmaterials {
                mat[k * stride + m] = real(materials[k * p.nmaterials + m]);
            }
        }
        let prm: Vec<T> = params.iter().map(|&v| real(v)).collect();
        let ops: Vec<T> =
            [el.d1.clone(), el.ends[0].clone(), el.ends[1].clone(), el.weights.clone(), el.points.clone()]
                .concat()
                .into_iter()
                .map(real)
                .collect();
        let state_len = k_count * nv * np;
        Ok(HexBuffers {
            q: device.alloc_zeroed(state_len.max(1) * std::mem::size_of::<T>())?,
            rhs: device.alloc_zeroed(state_len.max(1) * std::mem::size_of::<T>())?,
            face_flux: device.alloc_zeroed((k_count * nv * nface).max(1) * std::mem::size_of::<T>())?,
            geo: upload(device, &geo, T::zero())?,
            bx: upload(device, &bx, T::zero())?,
            mat: upload(device, &mat, T::zero())?,
            fgeo: upload(device, &fgeo, T::zero())?,
            fxyz: upload(device, &fxyz, T::zero())?,
            face_bc: upload(device, &face_bc, 0)?,
            mapp: upload(device, &mapp, 0)?,
            prm: upload(device, &prm, T::zero())?,
            ops: upload(device, &ops, T::zero())?,
            node_xyz: match p.kernel(HexRole::Source) {
                Some(_) => {
                    let xyz: Vec<T> =
                        (0..k_count * np).flat_map(|g| [0, 1, 2].map(|d| real(space.xyz[d][g]))).collect();
                    Some(upload(device, &xyz, T::zero())?)
                }
                None => None,
            },
        })
    }

    /// The program (sizes, kernels, rejected kernels).
    pub fn program(&self) -> &HexProgram {
        &self.program
    }

    /// Cells.
    pub fn num_elements(&self) -> usize {
        self.k
    }

    /// The layout of the states the kernels read and write.
    pub fn layout(&self) -> Layout {
        self.program.state.0
    }

    /// The host position (layout kvi) of the value at device position `d` (layout vki: variable, cell, node).
    fn host_index(&self, d: usize) -> usize {
        let (nv, np) = (self.program.nvars, self.program.np);
        let (v, k, i) = (d / (self.k * np), (d / np) % self.k, d % np);
        debug_assert_eq!(self.layout(), Layout::Vki);
        (k * nv + v) * np + i
    }

    /// The device position of host value `h` (host layout kvi).
    fn device_index(&self, h: usize) -> usize {
        let (nv, np) = (self.program.nvars, self.program.np);
        self.layout().index((self.k, nv, np), h / (nv * np), (h / np) % nv, h % np)
    }

    fn launch(
        &self,
        role: HexRole,
        spec: &HexVariant,
        (a, b): (BufferId, BufferId),
        zone: &Zone,
        t: f64,
    ) -> Result<Step, DeviceOperatorError> {
        let kernel = self.program.kernel(role).ok_or_else(|| {
            let name = crate::render::kernel_name(role);
            let reason = self
                .program
                .rejected
                .iter()
                .find(|(n, _)| *n == name)
                .map_or_else(|| format!("no kernel {name}"), |(n, why)| format!("{n}: {why}"));
            DeviceOperatorError::Variant(VariantError::Rejected { spec: spec.to_string(), reason })
        })?;
        let items = match role {
            HexRole::Cell { cells, .. } => zone.len.div_ceil(cells) * kernel.local_size,
            HexRole::Flux { .. } => zone.len * self.program.nface / 6,
            _ => zone.len * self.program.np,
        };
        let groups = match role {
            HexRole::Cell { .. } => items / kernel.local_size,
            _ => items.div_ceil(kernel.local_size),
        };
        let bf = &self.buffers;
        Ok(Step::Kernel(Launch {
            kernel: kernel.name.clone(),
            groups: groups.max(1),
            local: kernel.local_size,
            args: vec![
                Arg::Buffer(a),
                Arg::Buffer(b),
                Arg::Buffer(zone.list),
                Arg::Buffer(bf.geo),
                Arg::Buffer(bf.bx),
                Arg::Buffer(bf.mat),
                Arg::Buffer(bf.fgeo),
                Arg::Buffer(bf.fxyz),
                Arg::Buffer(bf.face_bc),
                Arg::Buffer(bf.mapp),
                Arg::Buffer(bf.prm),
                Arg::Buffer(bf.ops),
                Arg::real::<T>(t),
                Arg::I32(self.program.n1 as i32),
                Arg::I32(zone.len as i32),
            ],
        }))
    }

    /// [`StepOperator::rhs_steps`](dg_runtime::step_system::StepOperator::rhs_steps) for the cells of `zones` only
    /// ([`Self::zones_over`]): their right-hand side, from their own values and those of the cells across their faces;
    /// nothing else of `rhs` is written.
    pub fn rhs_steps_over(
        &self,
        variant: &HexVariant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
        zones: &HexZones,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        if variant.layout != self.layout() {
            return Err(DeviceOperatorError::Variant(VariantError::Rejected {
                spec: variant.to_string(),
                reason: format!("the operator's states are in layout {}", self.layout().name()),
            }));
        }
        let cells = variant.cells;
        if zones.cells.is_empty() {
            return Ok(Vec::new());
        }
        let cell_zones: Vec<&Zone> =
            if variant.specialised { zones.cell_zones.iter().collect() } else { vec![&zones.all_cells] };
        let face_zones: Vec<&Zone> =
            if variant.specialised { zones.face_zones.iter().collect() } else { vec![&zones.all_faces] };
        let ff = self.buffers.face_flux;
        let mut steps = Vec::new();
        match variant.surface {
            Surface::Fused => {
                for z in &cell_zones {
                    let role = HexRole::Cell { fused: true, geometry: z.geometry, cells };
                    steps.push(self.launch(role, variant, (q, rhs), z, t)?);
                }
            }
            Surface::Split => {
                for z in &cell_zones {
                    let role = HexRole::Cell { fused: false, geometry: z.geometry, cells };
                    steps.push(self.launch(role, variant, (q, rhs), z, t)?);
                }
                for z in &face_zones {
                    let faces = z.faces.unwrap_or(FaceKind::Any);
                    steps.push(self.launch(HexRole::Flux { faces, geometry: z.geometry }, variant, (q, ff), z, t)?);
                }
                for z in &cell_zones {
                    steps.push(self.launch(HexRole::Collect { geometry: z.geometry }, variant, (ff, rhs), z, t)?);
                }
            }
        }
        steps.extend(self.source_steps(q, rhs, t, &zones.all_cells));
        Ok(steps)
    }

    /// The launch adding the law's source S(q, x, t) to `rhs` at every node of the cells of `zone`, after the
    /// other kernels of a right-hand side; none for a law without a source.
    fn source_steps(&self, q: BufferId, rhs: BufferId, t: f64, zone: &Zone) -> Vec<Step> {
        let (Some(kernel), Some(xyz)) = (self.program.kernel(HexRole::Source), self.buffers.node_xyz) else {
            return Vec::new();
        };
        vec![Step::Kernel(Launch {
            kernel: kernel.name.clone(),
            groups: (zone.len * self.program.np).div_ceil(kernel.local_size).max(1),
            local: kernel.local_size,
            args: vec![
                Arg::Buffer(q),
                Arg::Buffer(rhs),
                Arg::Buffer(zone.list),
                Arg::Buffer(self.buffers.mat),
                Arg::Buffer(xyz),
                Arg::real::<T>(t),
                Arg::I32(zone.len as i32),
            ],
        })]
    }

    /// Offset of variable `v` at node `i` of cell `k` in a state buffer (the kernels' layout).
    pub fn state_offset(&self, k: usize, v: usize, i: usize) -> usize {
        self.layout().index((self.k, self.program.nvars, self.program.np), k, v, i)
    }

    /// The compiled program.
    pub fn program_id(&self) -> ProgramId {
        self.program_id
    }

    /// Values in a state: K · NV · NP.
    pub fn state_len(&self) -> usize {
        self.k * self.program.nvars * self.program.np
    }

    /// Runs `steps` `repeats` times; device seconds per repetition.
    pub fn run(&self, device: &mut dyn Device, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        device.run_steps(self.program_id, steps, repeats)
    }

    /// Writes a host state (layout kvi, `(k * nvars + v) * np + i`, the CPU operator's) into buffer `to`, in the
    /// kernels' layout.
    pub fn write_state(&self, device: &mut dyn Device, to: BufferId, state: &[T]) -> Result<(), BackendError> {
        if self.layout() == Layout::Kvi {
            return device.upload(to, as_bytes(state));
        }
        // the device layout is a permutation of the host's: gathered in parallel, without an index table
        let placed: Vec<T> = (0..state.len()).into_par_iter().map(|d| state[self.host_index(d)]).collect();
        device.upload(to, as_bytes(&placed))
    }

    /// Fills a state-sized buffer with one value (poison before a launch).
    pub fn fill_state(&self, device: &mut dyn Device, to: BufferId, value: T) -> Result<(), BackendError> {
        device.upload(to, as_bytes(&vec![value; self.state_len()]))
    }

    /// Fills the face-flux buffer with one value (poison before a launch).
    pub fn fill_face_flux(&self, device: &mut dyn Device, value: T) -> Result<(), BackendError> {
        let n = self.k * self.program.nvars * self.program.nface;
        device.upload(self.buffers.face_flux, as_bytes(&vec![value; n.max(1)]))
    }

    /// Reads a state-sized buffer, into the host layout kvi.
    pub fn read_state(&self, device: &mut dyn Device, from: BufferId) -> Result<Vec<T>, BackendError> {
        let mut out = vec![T::zero(); self.state_len()];
        device.download(from, as_bytes_mut(&mut out))?;
        if self.layout() == Layout::Kvi {
            return Ok(out);
        }
        Ok((0..out.len()).into_par_iter().map(|h| out[self.device_index(h)]).collect())
    }
}

/// The zones of `cells` given each cell's geometry and each cell face's kind: cells by geometry class, cell faces
/// by kind and the class of their cell, and both all together (generic variants).
fn build_zones(
    device: &mut dyn Device,
    (cell_geometry, face_kind): (&[Geometry], &[FaceKind]),
    cells: std::ops::Range<usize>,
) -> Result<HexZones, BackendError> {
    let cells = cells.start.min(cell_geometry.len())..cells.end.min(cell_geometry.len());
    let mut cell_lists: Vec<(Geometry, Vec<i32>)> = Vec::new();
    let mut face_lists: Vec<((FaceKind, Geometry), Vec<i32>)> = Vec::new();
    for cell in cells.clone() {
        let geometry = cell_geometry[cell];
        match cell_lists.iter_mut().find(|(g, _)| *g == geometry) {
            Some((_, list)) => list.push(cell as i32),
            None => cell_lists.push((geometry, vec![cell as i32])),
        }
        for f in 0..6 {
            let kind = face_kind[6 * cell + f];
            match face_lists.iter_mut().find(|(key, _)| *key == (kind, geometry)) {
                Some((_, list)) => list.push((6 * cell + f) as i32),
                None => face_lists.push(((kind, geometry), vec![(6 * cell + f) as i32])),
            }
        }
    }
    cell_lists.sort_by_key(|(g, _)| *g as u8);
    let mut zone = |geometry, faces, list: &[i32]| -> Result<Zone, BackendError> {
        Ok(Zone { geometry, faces, list: upload(device, list, 0)?, len: list.len() })
    };
    let cell_zones =
        cell_lists.iter().map(|(g, list)| zone(*g, None, list)).collect::<Result<Vec<_>, BackendError>>()?;
    let face_zones = face_lists
        .iter()
        .map(|((kind, g), list)| zone(*g, Some(*kind), list))
        .collect::<Result<Vec<_>, BackendError>>()?;
    let all: Vec<i32> = (cells.start as i32..cells.end as i32).collect();
    let all_cells = zone(Geometry::Generic, None, &all)?;
    let every_face: Vec<i32> = (6 * cells.start as i32..6 * cells.end as i32).collect();
    let all_faces = zone(Geometry::Generic, Some(FaceKind::Any), &every_face)?;
    Ok(HexZones { cells, cell_zones, face_zones, all_cells, all_faces })
}

/// Time integration of the hexahedral operator with the generic integrators (state buffers, the lincomb kernel).
pub type HexDeviceSystem<'a, T> = dg_runtime::step_system::StepSystem<'a, HexDeviceOperator<T>>;

impl<T: Real> dg_runtime::step_system::StepOperator for HexDeviceOperator<T> {
    type Variant = HexVariant;

    /// Specialised variants run one kernel per zone, generic ones one kernel over every cell (and every face).
    fn rhs_steps(
        &self,
        variant: &HexVariant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        self.rhs_steps_over(variant, q, rhs, t, &self.zones)
    }

    fn lincomb_step(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Step, DeviceOperatorError> {
        let n = self.state_len();
        let args = Arg::lincomb::<T>(y, a, terms, n);
        Ok(Step::Kernel(Launch { kernel: "lincomb".into(), groups: n.div_ceil(256).max(1), local: 256, args }))
    }

    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        device.alloc_zeroed(self.state_len().max(1) * std::mem::size_of::<T>())
    }

    fn submit(&self, device: &mut dyn Device, steps: &[Step]) -> Result<f64, BackendError> {
        device.submit(self.program_id, steps)
    }
}
