//! The nodal DG right-hand side on a compute device: the space's data in the variant's layout, the generated
//! kernels, and conversion between the CPU state layout and the device's.

use crate::render::{render_nodal_tri, KernelSource};
use crate::variant::{LawShape, Layout, Partition, Precision, Variant, VariantError, TILE_ELEMENTS};
use dg_codegen::tensor_cores::tf32_round;
use dg_codegen::LawInput;
use dg_codegen::Target;
use dg_core::mesh::FaceLink;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{
    as_bytes, as_bytes_mut, Arg, BackendError, BufferId, Device, Gemm, GemmOperand, Launch, ProgramId, Step,
};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::DeviceOperatorError;

/// Device buffers of one operator.
#[derive(Clone, Copy)]
struct Buffers {
    q: BufferId,
    rhs: BufferId,
    jumps: BufferId,
    geo: BufferId,
    mat: BufferId,
    dr: BufferId,
    ds: BufferId,
    lift: BufferId,
    /// Dr and Ds transposed and interleaved two rows at a time, then LIFT transposed, each column padded with zero
    /// rows to [`Geometry::tile_stride`] (the tile kernels; [`tile_matrices`]).
    tiled: BufferId,
    /// The mirror tiles' folded volume operator and lift, each column's rows in the kernels' order (consecutive or
    /// shared out) and padded with zero rows to [`Geometry::tile_stride`] ([`crate::mirror::mirror_matrices`]).
    folded: BufferId,
    /// [−Dr −Ds LIFT] in tensor-core fragment order (the mma kernels).
    mma_a: BufferId,
    /// The folded operators in the tensor cores' fragments, in the products' precision: f64 for the f64 shape, the
    /// tf32 shape's values as f32, split by the kernel (the `mmamirror` kernels;
    /// [`crate::mirror_mma::mirror_mma_fragments`]).
    mirror_mma: BufferId,
    /// The GEMM partition's operator [−Dr −Ds LIFT], row-major (its transpose column-major) and its operand B
    /// (contravariant fluxes and face jumps of every element); `None` for the other partitions.
    gemm: Option<GemmBuffers>,
    face_geo: BufferId,
    vmap_m: BufferId,
    vmap_p: BufferId,
    face_bc: BufferId,
    neigh: BufferId,
    /// Each face's link, its neighbour packed as `8·element + 2·face + reversed` or its boundary condition
    /// ([`neighbour_links`]; the kernels of [`crate::render::uses_links`] read it), `None` where the mesh's faces do
    /// not meet node for node.
    links: Option<BufferId>,
    face_xy: BufferId,
    /// Every node's coordinates in the state's layout (x as variable 0, y as 1) where the law has a source term
    /// (the `source` kernel reads them), `None` otherwise.
    node_xy: Option<BufferId>,
    /// The reference mass matrix, row-major, and each element's Jacobian (the energy kernel).
    mass: BufferId,
    jac: BufferId,
    /// The energy kernel's output, one term per element.
    energy_terms: BufferId,
}

/// The GEMM partition's buffers.
#[derive(Clone, Copy)]
struct GemmBuffers {
    /// [−Dr −Ds LIFT] row-major: the products' right operand, Aᵀ column-major (leading dimension 2·np + 3·nfp).
    operator: BufferId,
    /// Per variable, a column-major matrix of one row per element (leading dimension `fs / np`) and 2·np + 3·nfp
    /// columns: what the flux kernel writes and the products read.
    b: BufferId,
}

/// One stage of a two-register low-storage Runge–Kutta scheme folded into the store of the merged
/// right-hand-side kernels: r ← a·r + c·L(q), then z ← q + b·r (z is neither q nor r); L itself is not stored.
#[derive(Debug, Clone, Copy)]
pub struct FoldedStage {
    /// The scheme's register, updated in place.
    pub r: BufferId,
    /// Where the new state goes.
    pub z: BufferId,
    /// Coefficient of r.
    pub a: f64,
    /// Coefficient of L.
    pub c: f64,
    /// Coefficient of the new r in the new state.
    pub b: f64,
}

/// The right-hand side of a 2D law on a device, for one variant, in precision `T`.
pub struct DeviceOperator<T: Real> {
    source: KernelSource,
    program: ProgramId,
    buffers: Buffers,
    np: usize,
    nv: usize,
    k: usize,
    fs: usize,
    _t: std::marker::PhantomData<T>,
}

/// Each face's link: an interior face's neighbour packed as `8·element + 2·face + reversed` (decoded by `LINK_NODE`
/// in `face_jump.tera`), so that the kernels find the neighbour's node of face node `i` as node
/// `FACE_NODE(face, reversed ? NFP − 1 − i : i)` of that element without a load of `vmap_p`; a boundary face's
/// condition `c` (its entry of `face_codes`, the kernels' `face_bc`) as `−(c + 1)`, so that one int tells the kernels
/// both. Every interior face node is checked against the space's `vmap_p`, so that a mesh whose faces do not meet
/// that way is refused, not computed wrong; so is a boundary face without a condition.
fn neighbour_links(space: &DgSpace2d, face_codes: &[i32]) -> Result<Vec<i32>, DeviceOperatorError> {
    use rayon::prelude::*;
    let el = &space.element;
    let (np, nfp, k) = (el.np, el.nfp, space.num_elements());
    let mut out = vec![0i32; 3 * k];
    // (every element's three links are independent: formed in parallel; where several faces are refused, one of
    // them is named)
    out.par_chunks_mut(3).zip(space.connectivity.links.par_iter()).enumerate().try_for_each(|(e, (out, links))| {
        for (f, link) in links.iter().enumerate() {
            out[f] = match *link {
                FaceLink::Boundary { .. } => match face_codes.get(3 * e + f) {
                    Some(&c) if c >= 0 => -(c + 1),
                    _ => {
                        return Err(DeviceOperatorError::Connectivity(format!(
                            "boundary face {f} of element {e} has no boundary condition"
                        )))
                    }
                },
                FaceLink::Interior { element: e2, face: f2 } => {
                    let vp = &space.vmap_p[e * 3 * nfp + f * nfp..e * 3 * nfp + (f + 1) * nfp];
                    let meets = |rev: bool| {
                        (0..nfp).all(|i| vp[i] == e2 * np + el.fmask[f2][if rev { nfp - 1 - i } else { i }])
                    };
                    let rev = if meets(true) {
                        1
                    } else if meets(false) {
                        0
                    } else {
                        return Err(DeviceOperatorError::Connectivity(format!(
                            "face {f} of element {e} does not meet face {f2} of element {e2} node for node"
                        )));
                    };
                    (8 * e2 + 2 * f2 + rev) as i32
                }
            };
        }
        Ok(())
    })?;
    Ok(out)
}

/// Offset of variable `v` at node `i` of element `k` in a device state buffer of `fs` values per variable.
fn value_offset(source: &KernelSource, v: usize, k: usize, i: usize, fs: usize) -> usize {
    let g = &source.geometry;
    match source.variant.layout {
        Layout::ElementMajor => {
            v * fs + (k / g.microblock.elements) * g.microblock.floats + (k % g.microblock.elements) * g.np + i
        }
        Layout::NodeMajor => v * fs + i * (fs / g.np) + k,
        Layout::Tiled => {
            let t = TILE_ELEMENTS;
            (k / t) * (t * g.np * source.nvars) + (v * g.np + i) * t + k % t
        }
    }
}

/// The offset a kernel adds to `v · fs` (its variable stride, [`kernel_variable_stride`]) to reach node `i` of
/// element `k`: `NODE_OFF(k, i, fs)` in `sizes.tera`, what `vmap_m`, `vmap_p` and the source's coordinates hold.
fn node_offset(source: &KernelSource, k: usize, i: usize, fs: usize) -> usize {
    value_offset(source, 0, k, i, fs)
}

/// The variable, element and node stored at offset `o` of a device state buffer of `k` elements, `None` for
/// padding (the inverse of [`value_offset`]).
fn value_at(source: &KernelSource, o: usize, k: usize, fs: usize) -> Option<(usize, usize, usize)> {
    let g = &source.geometry;
    let (variable, element, node) = match source.variant.layout {
        Layout::ElementMajor => {
            let (v, within_field) = (o / fs, o % fs);
            let (block, within) = (within_field / g.microblock.floats, within_field % g.microblock.floats);
            let e = within / g.np;
            if e >= g.microblock.elements {
                return None;
            }
            (v, block * g.microblock.elements + e, within % g.np)
        }
        Layout::NodeMajor => {
            let (v, within_field) = (o / fs, o % fs);
            (v, within_field % (fs / g.np), within_field / (fs / g.np))
        }
        Layout::Tiled => {
            let (t, tile_values) = (TILE_ELEMENTS, TILE_ELEMENTS * g.np * source.nvars);
            let (tile, within) = (o / tile_values, o % tile_values);
            let (row, lane) = (within / t, within % t);
            (row / g.np, tile * t + lane, row % g.np)
        }
    };
    (element < k && variable < source.nvars).then_some((variable, element, node))
}

/// Values per field for `k` elements (the buffer holds `nvars` times as many).
fn field_stride(source: &KernelSource, k: usize) -> usize {
    let g = &source.geometry;
    match source.variant.layout {
        Layout::ElementMajor => k.div_ceil(g.microblock.elements) * g.microblock.floats,
        Layout::NodeMajor | Layout::Tiled => g.np * k.div_ceil(32) * 32,
    }
}

/// The kernels' `fs` argument, the distance from one variable's value of a node to the next variable's: the field
/// stride, or within a tile of the tiled layout, 32·NP.
fn kernel_variable_stride(source: &KernelSource, fs: usize) -> usize {
    match source.variant.layout {
        Layout::ElementMajor | Layout::NodeMajor => fs,
        Layout::Tiled => TILE_ELEMENTS * source.geometry.np,
    }
}

/// The tile kernels' operator: first, for each column j of Dr and Ds, their transposed rows interleaved two at a time
/// — Dr(2p, j), Dr(2p + 1, j), Ds(2p, j), Ds(2p + 1, j) for p < `stride` / 2, zero past the last node — so that one
/// 4-vector holds both matrices' entries of a pair of output rows; then LIFT transposed, column j a row of `stride`
/// values. The tile kernels read a block of consecutive output rows as vectors.
pub(crate) fn tile_matrices<T: Real>(el: &dg_core::triangle::ReferenceTriangle, stride: usize) -> Vec<T> {
    let padded =
        |m: &dg_core::matrix::Matrix, i: usize, j: usize| T::from_f64(if i < m.nrows() { m[(i, j)] } else { 0.0 });
    let mut out = Vec::with_capacity((2 * el.dr.ncols() + el.lift.ncols()) * stride);
    for j in 0..el.dr.ncols() {
        for pair in 0..stride / 2 {
            for m in [&el.dr, &el.ds] {
                out.extend([padded(m, 2 * pair, j), padded(m, 2 * pair + 1, j)]);
            }
        }
    }
    for j in 0..el.lift.ncols() {
        out.extend((0..stride).map(|i| padded(&el.lift, i, j)));
    }
    out
}

/// The mma kernels' operator A = [−Dr −Ds LIFT] (`np` rows, `2·np + 3·nfp` columns, zero-padded to whole row
/// tiles and column steps of `shape`, the instruction's [`crate::render::Geometry::mma_shape`]; with `sections`
/// ([`crate::render::Geometry::mma_sections`]) each of the three blocks of columns padded to whole steps on its own)
/// in the order the tensor cores' A fragments are loaded.
/// f64 (`m8n8k4`, shape 8 × 4): fragment (tile, step) is 32 consecutive values, lane l's value A(8·tile + l / 4,
/// 4·step + l % 4).
/// f64 (`m16n8k4`, shape 16 × 4): fragment (tile, step) is 32 consecutive pairs, lane l's pair A(16·tile + l / 4 + 8·j,
/// 4·step + l % 4) for j = 0, 1.
/// f32 (`m16n8k8.tf32`, split): fragment (tile, step) is 32 consecutive groups of 8 values, lane l's
/// a_j = A(16·tile + l / 4 + 8·(j % 2), 8·step + l % 4 + 4·(j / 2)) for j = 0..3, first their high parts
/// (rounded to tf32), then their low parts (the rest, rounded to tf32).
pub(crate) fn mma_fragments<T: Real>(
    el: &dg_core::triangle::ReferenceTriangle,
    shape: (usize, usize),
    sections: bool,
) -> Vec<T> {
    let (np, nf) = (el.np, el.lift.ncols());
    let single = T::NAME == "f32";
    let (rows, depth) = shape;
    // the columns of each block: packed, or each block padded to whole steps
    let (node_columns, face_columns) =
        if sections { (np.next_multiple_of(depth), nf.next_multiple_of(depth)) } else { (np, nf) };
    let (mtiles, ksteps) = (np.div_ceil(rows), (2 * node_columns + face_columns).div_ceil(depth));
    // column c of the padded operator as a column of the packed one (past every block where it is padding)
    let packed = |c: usize| -> usize {
        let (block, within) = match c {
            c if c < node_columns => (0, c),
            c if c < 2 * node_columns => (1, c - node_columns),
            c => (2, c - 2 * node_columns),
        };
        let width = if block == 2 { nf } else { np };
        if within < width {
            block * np + within
        } else {
            2 * np + nf
        }
    };
    let entry = |i: usize, c: usize| -> f64 {
        let c = packed(c);
        match (i < np, c) {
            (false, _) => 0.0,
            (true, c) if c < np => -el.dr[(i, c)],
            (true, c) if c < 2 * np => -el.ds[(i, c - np)],
            (true, c) if c < 2 * np + nf => el.lift[(i, c - 2 * np)],
            _ => 0.0,
        }
    };
    let mut out = Vec::with_capacity(mtiles * ksteps * 32 * if single { 8 } else { rows / 8 });
    for tile in 0..mtiles {
        for step in 0..ksteps {
            for l in 0..32 {
                if !single {
                    for j in 0..rows / 8 {
                        out.push(T::from_f64(entry(rows * tile + l / 4 + 8 * j, depth * step + l % 4)));
                    }
                    continue;
                }
                let a: [f64; 4] =
                    std::array::from_fn(|j| entry(16 * tile + l / 4 + 8 * (j % 2), 8 * step + l % 4 + 4 * (j / 2)));
                let high = a.map(|x| tf32_round(x as f32));
                out.extend(high.iter().map(|&h| T::from_f64(h as f64)));
                out.extend(a.iter().zip(high).map(|(&x, h)| T::from_f64(tf32_round((x - h as f64) as f32) as f64)));
            }
        }
    }
    out
}

/// Columns of the GEMM partition's operand per variable: the r- and s-fluxes at every node, the jumps at every
/// face node.
pub(crate) fn gemm_columns(np: usize, nfp: usize) -> usize {
    2 * np + 3 * nfp
}

/// The GEMM partition's operator [−Dr −Ds LIFT] (`np` rows, [`gemm_columns`] columns), row-major: read by the
/// library as its transpose, column-major, the right operand of B_v · [−Dr −Ds LIFT]ᵀ.
pub(crate) fn gemm_operator<T: Real>(el: &dg_core::triangle::ReferenceTriangle) -> Vec<T> {
    let np = el.np;
    (0..np)
        .flat_map(|i| {
            let dr = (0..np).map(move |j| -el.dr[(i, j)]);
            let ds = (0..np).map(move |j| -el.ds[(i, j)]);
            let lift = (0..el.lift.ncols()).map(move |m| el.lift[(i, m)]);
            dr.chain(ds).chain(lift).map(T::from_f64)
        })
        .collect()
}

fn to_real<T: Real>(values: impl IntoIterator<Item = f64>) -> Vec<T> {
    values.into_iter().map(T::from_f64).collect()
}

/// `per(index, item)` for every item, flattened, in parallel, each item's values written in place (the face tables
/// reach tens of millions of values; `zero` fills the vector first).
fn flat_par<I: Sync, V: Copy + Send + Sync, const N: usize>(
    items: &[I],
    zero: V,
    per: impl Fn(usize, &I) -> [V; N] + Sync + Send,
) -> Vec<V> {
    use rayon::prelude::*;
    let mut out = vec![zero; items.len() * N];
    out.par_chunks_mut(N.max(1))
        .zip(items.par_iter())
        .enumerate()
        .for_each(|(i, (values, item))| values.copy_from_slice(&per(i, item)));
    out
}

/// The coordinates of every face node (x, y) the kernels read, in a device buffer: those of boundary faces, where a
/// boundary state may depend on the position (`face_jump.tera` reads them nowhere else); zero on every other face.
/// The buffer is cleared on the device and only the boundary faces' values travel, in runs of nearby faces (a
/// run's interior faces carry zeros): a large mesh's few boundary faces cost kilobytes, not the hundreds of
/// megabytes of every face's coordinates.
fn upload_boundary_face_xy<T: Real>(device: &mut dyn Device, space: &DgSpace2d) -> Result<BufferId, BackendError> {
    /// Faces between two boundary faces that one upload still spans (their zeros cost less than another upload).
    const GAP: usize = 512;
    let nfp = space.element.nfp;
    let real = std::mem::size_of::<T>();
    let buffer = device.alloc_zeroed((2 * space.vmap_m.len()).max(1) * real)?;
    let boundary: Vec<usize> = (0..space.face_tag.len()).filter(|&face| space.face_tag[face].is_some()).collect();
    let mut rest = boundary.as_slice();
    while let Some(&first) = rest.first() {
        // the run: boundary faces each at most GAP faces after the one before
        let len = 1 + rest.windows(2).take_while(|w| w[1] - w[0] <= GAP).count();
        let (run, after) = rest.split_at(len);
        let last = run[len - 1];
        let mut xy = vec![T::zero(); (last + 1 - first) * 2 * nfp];
        for &face in run {
            let nodes = &space.vmap_m[face * nfp..(face + 1) * nfp];
            let values = &mut xy[(face - first) * 2 * nfp..(face + 1 - first) * 2 * nfp];
            for (pair, &g) in values.chunks_mut(2).zip(nodes) {
                pair.copy_from_slice(&[T::from_f64(space.x[g]), T::from_f64(space.y[g])]);
            }
        }
        device.upload_range(buffer, first * 2 * nfp * real, as_bytes(&xy))?;
        rest = after;
    }
    Ok(buffer)
}

/// Every node's coordinates as the `source` kernel reads them: x and y as the two variables of a state in the
/// program's layout (padding zero).
fn node_coordinates<T: Real>(source: &KernelSource, space: &DgSpace2d, fs: usize) -> Vec<T> {
    let np = space.element.np;
    // (the tiled layout's tiles hold every variable: the coordinates take the rows of the first two, which the
    // variant's rules make exist, in a buffer of the state's size)
    let fields = if source.variant.layout == Layout::Tiled { source.nvars } else { 2 };
    let mut xy = vec![T::zero(); fields * fs];
    for g in 0..space.x.len() {
        xy[value_offset(source, 0, g / np, g % np, fs)] = T::from_f64(space.x[g]);
        xy[value_offset(source, 1, g / np, g % np, fs)] = T::from_f64(space.y[g]);
    }
    xy
}

impl<T: Real> DeviceOperator<T> {
    /// Renders, compiles and uploads everything for `variant`. The law enters through its IR, parameter
    /// values and numerical flux name.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        device: &mut dyn Device,
        target: Target,
        ir: &LawIr,
        params: &[f64],
        numerical_flux: &str,
        space: &DgSpace2d,
        binding: &BoundaryBinding,
        materials: &[f64],
        variant: &Variant,
    ) -> Result<Self, DeviceOperatorError> {
        let source =
            Self::kernel_source(device, target, &LawInput { ir, params, numerical_flux }, &space.element, variant)?;
        let program = Self::compile(device, &source)?;
        Self::with_program(device, source, program, space, binding, materials)
    }

    /// The kernels of `variant` for `law` on `element`, once the device is known to run them (precision, the
    /// variant's rules against the device's limits): the first of [`new`](Self::new)'s three parts, which a run
    /// times apart (this, [`compile`](Self::compile), [`with_program`](Self::with_program)).
    pub fn kernel_source(
        device: &mut dyn Device,
        target: Target,
        law: &LawInput<'_>,
        element: &dg_core::triangle::ReferenceTriangle,
        variant: &Variant,
    ) -> Result<KernelSource, DeviceOperatorError> {
        Self::check_precision(device, variant)?;
        // (the BLAS is probed only for a variant that needs it: loading cuBLAS costs a run's start-up time)
        let limits = match variant.partition {
            Partition::Gemm => dg_runtime::backend::limits_with_blas(device),
            _ => dg_runtime::backend::limits_of(device),
        };
        variant.check(element.order, &LawShape::of(law.ir), &limits)?;
        Ok(render_nodal_tri(law, element, variant, target)?)
    }

    /// The program of `source`'s kernels on `device` (from the kernel cache where it holds them).
    pub fn compile(device: &mut dyn Device, source: &KernelSource) -> Result<ProgramId, DeviceOperatorError> {
        let names: Vec<String> = source.symbols.iter().map(|(_, symbol)| symbol.clone()).collect();
        Ok(device.compile(&source.source, &names)?)
    }

    fn check_precision(device: &dyn Device, variant: &Variant) -> Result<(), DeviceOperatorError> {
        let want = dg_runtime::formulation::precision_of::<T>();
        if variant.precision != want {
            return Err(DeviceOperatorError::Precision(format!("variant {variant} does not compute in {}", T::NAME)));
        }
        if want == Precision::F64 && !device.supports_f64() {
            return Err(DeviceOperatorError::Precision("the device has no double precision".into()));
        }
        Ok(())
    }

    /// Uploads everything for a variant whose kernels are already compiled in `program` (alone or in a batch
    /// of variants; `source.symbols` name them there).
    pub fn with_program(
        device: &mut dyn Device,
        source: KernelSource,
        program: ProgramId,
        space: &DgSpace2d,
        binding: &BoundaryBinding,
        materials: &[f64],
    ) -> Result<Self, DeviceOperatorError> {
        Self::check_kernels(device, &source, program)?;
        let el = &space.element;
        let (np, nfp, nv, k) = (el.np, el.nfp, source.nvars, space.num_elements());
        let nmat = source.nmaterials;
        let fs = field_stride(&source, k);
        dg_runtime::operator_error::check_index_range(&[
            ("the state", nv * fs),
            ("the face jumps", nv * k * 3 * nfp),
            ("the packed neighbour links (8 per element)", 8 * k),
            ("the boundary faces' coordinates", 2 * k * 3 * nfp),
            ("the materials", k * nmat),
        ])?;
        let offset_of = |g: usize| node_offset(&source, g / np, g % np, fs) as i32;
        let upload_real = |device: &mut dyn Device, values: Vec<T>| -> Result<BufferId, BackendError> {
            let id = device.alloc(std::mem::size_of_val(values.as_slice()))?;
            device.upload(id, as_bytes(&values))?;
            Ok(id)
        };
        let geo = upload_real(
            device,
            flat_par(&space.geometry, T::zero(), |_, g| [g.rx, g.sx, g.ry, g.sy].map(T::from_f64)),
        )?;
        let mat = upload_real(device, if nmat == 0 { vec![T::zero()] } else { to_real(materials.iter().copied()) })?;
        let dr = upload_real(device, dg_core::matrix::to_row_major(&el.dr))?;
        let ds = upload_real(device, dg_core::matrix::to_row_major(&el.ds))?;
        let lift = upload_real(device, dg_core::matrix::to_row_major(&el.lift))?;
        let tiled = upload_real(device, tile_matrices(el, source.geometry.tile_stride))?;
        // (the mirror tiles' folded operator; an element without the mirror symmetry, which dg never builds, keeps
        // one value, and its mirror variants are refused when they render)
        let folded = upload_real(
            device,
            crate::mirror::mirror_matrices(el, source.geometry.mirror_share, source.geometry.tile_stride)
                .unwrap_or_else(|_| vec![T::zero()]),
        )?;
        let mma_a = upload_real(device, mma_fragments(el, source.geometry.mma_shape, source.geometry.mma_sections))?;
        // (the `mmamirror` kernels' fragments in their products' precision: f64 for the f64 shape, the tf32 shape's
        // values as f32; one value without the symmetry)
        let mirror_mma = {
            let shape = crate::mirror_mma::MirrorMmaShape::of(dg_runtime::formulation::precision_of::<T>());
            let values = crate::mirror_mma::mirror_mma_fragments(el, shape).unwrap_or_else(|_| vec![0.0]);
            match shape {
                crate::mirror_mma::MirrorMmaShape::F64 => {
                    let id = device.alloc(std::mem::size_of_val(values.as_slice()))?;
                    device.upload(id, as_bytes(&values))?;
                    id
                }
                crate::mirror_mma::MirrorMmaShape::Tf32 => {
                    upload_real(device, values.into_iter().map(T::from_f64).collect())?
                }
            }
        };
        let face_geo =
            upload_real(device, flat_par(&space.faces, T::zero(), |_, f| [f.nx, f.ny, f.fscale].map(T::from_f64)))?;
        let face_xy = upload_boundary_face_xy::<T>(device, space)?;
        let node_xy = match source.has_source() {
            true => Some(upload_real(device, node_coordinates(&source, space, fs))?),
            false => None,
        };
        let upload_int = |device: &mut dyn Device, values: Vec<i32>| -> Result<BufferId, BackendError> {
            let id = device.alloc(std::mem::size_of_val(values.as_slice()))?;
            device.upload(id, as_bytes(&values))?;
            Ok(id)
        };
        let vmap_m = upload_int(device, flat_par(&space.vmap_m, 0, |_, &g| [offset_of(g)]))?;
        let vmap_p = upload_int(device, flat_par(&space.vmap_p, 0, |_, &g| [offset_of(g)]))?;
        let face_codes =
            flat_par(&space.face_tag, 0, |_, t| [t.map_or(-1, |tag| binding.condition_of_tag[tag] as i32)]);
        let links = neighbour_links(space, &face_codes);
        let face_bc = upload_int(device, face_codes)?;
        let neigh = upload_int(
            device,
            flat_par(&space.connectivity.links, 0, |k, links| {
                links.map(|l| match l {
                    FaceLink::Interior { element, .. } => element as i32,
                    FaceLink::Boundary { .. } => k as i32,
                })
            }),
        )?;
        // (always uploaded: the variants that share this operator's data may read them; a mesh whose faces do not
        // meet node for node, which no mesh dg builds has, is refused only by a variant that reads them)
        let links = match links {
            Ok(links) => Some(upload_int(device, links)?),
            Err(err) if crate::render::uses_links(&source.variant) => return Err(err),
            Err(_) => None,
        };
        let real = std::mem::size_of::<T>();
        let gemm = match source.variant.partition {
            Partition::Gemm => Some(Self::gemm_buffers(device, &source, el, fs)?),
            _ => None,
        };
        let q = device.alloc(nv * fs * real)?;
        let rhs = device.alloc(nv * fs * real)?;
        let jumps = device.alloc(nv * k * 3 * nfp * real)?;
        let mass = upload_real(device, dg_core::matrix::to_row_major(&el.mass))?;
        let jac = upload_real(device, space.geometry.iter().map(|g| T::from_f64(g.j)).collect())?;
        let energy_terms = device.alloc(k * real)?;
        let buffers = Buffers {
            q,
            rhs,
            jumps,
            geo,
            mat,
            dr,
            ds,
            lift,
            tiled,
            folded,
            mma_a,
            mirror_mma,
            gemm,
            face_geo,
            vmap_m,
            vmap_p,
            face_bc,
            neigh,
            links,
            face_xy,
            node_xy,
            mass,
            jac,
            energy_terms,
        };
        Ok(Self { source, program, buffers, np, nv, k, fs, _t: std::marker::PhantomData })
    }

    /// The GEMM partition's operator and operand buffers; refused without a BLAS or past 32-bit indices.
    fn gemm_buffers(
        device: &mut dyn Device,
        source: &KernelSource,
        el: &dg_core::triangle::ReferenceTriangle,
        fs: usize,
    ) -> Result<GemmBuffers, DeviceOperatorError> {
        let reject = |reason: String| {
            DeviceOperatorError::Variant(VariantError::Rejected { spec: source.variant.to_string(), reason })
        };
        if !device.supports_gemm() {
            return Err(reject(dg_codegen::DeviceLimits::NO_BLAS.into()));
        }
        let cols = gemm_columns(el.np, el.nfp);
        let values = source.nvars * cols * (fs / el.np);
        if values > i32::MAX as usize {
            return Err(reject(format!("its operand's {values} values exceed 32-bit indices")));
        }
        let operator: Vec<T> = gemm_operator(el);
        let id = device.alloc(std::mem::size_of_val(operator.as_slice()))?;
        device.upload(id, as_bytes(&operator))?;
        Ok(GemmBuffers { operator: id, b: device.alloc(values * std::mem::size_of::<T>())? })
    }

    /// Refuses a variant of another precision, or whose compiled kernels allow fewer work items per group than
    /// it launches (registers).
    fn check_kernels(
        device: &dyn Device,
        source: &KernelSource,
        program: ProgramId,
    ) -> Result<(), DeviceOperatorError> {
        Self::check_precision(device, &source.variant)?;
        for kernel in &source.rhs_kernels {
            if let Some(max) = device.kernel_max_work_group(program, source.symbol(kernel.name)) {
                if kernel.local_size > max {
                    return Err(VariantError::Rejected {
                        spec: source.variant.to_string(),
                        reason: format!(
                            "kernel `{}` needs {} work items per group, the compiled kernel allows {max} (registers)",
                            kernel.name, kernel.local_size
                        ),
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// Whether the kernels of `source` read and write the data exactly as this operator stores it (same layout
    /// and microblocks, same law sizes), so that [`DeviceOperator::with_kernels`] can run them on it.
    pub fn shares_data(&self, source: &KernelSource) -> bool {
        let (a, b) = (&self.source, source);
        a.variant.layout == b.variant.layout
            && a.geometry.np == b.geometry.np
            && a.geometry.nfp == b.geometry.nfp
            && a.geometry.microblock == b.geometry.microblock
            && (a.nvars, a.nmaterials) == (b.nvars, b.nmaterials)
            && (a.variant.partition == Partition::Gemm) == (b.variant.partition == Partition::Gemm)
            && a.geometry.mma_shape == b.geometry.mma_shape
            && a.geometry.mma_sections == b.geometry.mma_sections
            && a.geometry.tile_stride == b.geometry.tile_stride
            && a.geometry.mirror_share == b.geometry.mirror_share
            && a.has_source() == b.has_source()
    }

    /// An operator running the kernels of `source` (compiled in `program`) on this operator's buffers, state
    /// included: the tuner times many variants on one upload of its timing problem.
    pub fn with_kernels(
        &self,
        device: &dyn Device,
        source: KernelSource,
        program: ProgramId,
    ) -> Result<Self, DeviceOperatorError> {
        if !self.shares_data(&source) {
            return Err(DeviceOperatorError::Variant(VariantError::Rejected {
                spec: source.variant.to_string(),
                reason: format!("its data layout differs from {}'s", self.source.variant),
            }));
        }
        Self::check_kernels(device, &source, program)?;
        if self.buffers.links.is_none() && crate::render::uses_links(&source.variant) {
            return Err(DeviceOperatorError::Connectivity(format!(
                "{} reads each face's neighbour as a packed link, and this mesh's faces do not meet node for node",
                source.variant
            )));
        }
        Ok(Self { source, program, ..*self })
    }

    /// The generated program.
    pub fn source(&self) -> &KernelSource {
        &self.source
    }

    /// The steps (kernel launches, and the GEMM partition's library products) of one right-hand-side evaluation
    /// at time `t`.
    pub fn rhs_steps(&self, t: f64) -> Vec<Step> {
        self.rhs_steps_between(self.buffers.q, self.buffers.rhs, t)
    }

    /// The steps of one right-hand-side evaluation of state buffer `q` into buffer `out`.
    pub fn rhs_steps_between(&self, q: BufferId, out: BufferId, t: f64) -> Vec<Step> {
        self.rhs_steps_over(q, out, t, 0..self.k)
    }

    /// The elements operators may split their right-hand side at: a range of elements starts at a multiple of
    /// this (every kernel's work groups then begin at its first element).
    pub fn element_quantum(&self) -> usize {
        self.source.element_quantum()
    }

    /// The steps computing the right-hand side of the elements `elements` only (`elements.start` a multiple of
    /// [`DeviceOperator::element_quantum`], `elements.end` at most the operator's element count): a rank computes
    /// its own elements away from the halo while the halo travels, the rest after. Elements past the range
    /// (a rank's halo) are read across faces and never computed.
    pub fn rhs_steps_over(&self, q: BufferId, out: BufferId, t: f64, elements: std::ops::Range<usize>) -> Vec<Step> {
        self.stage_steps_over(q, out, t, elements, None)
    }

    /// Whether the variant's right-hand side is one merged kernel, which can fold a low-storage stage into its
    /// store ([`DeviceOperator::folded_stage_steps`]), and gains from it. Measured on an H200
    /// (docs/performance.md, "The nodal loop"): the fold saves 9–33 % of the kernel time except in the
    /// element-per-work-item kernel in f64 from N = 3 (its per-node loads of the register and the state cost the
    /// f64 kernel more than the two linear combinations they replace: +4 to +11 %), which keeps the unfolded stage.
    pub fn folds_stages(&self) -> bool {
        let merged =
            self.source.rhs_kernels.iter().all(|k| matches!(k.name, "rhs" | "tile" | "mirror" | "mma" | "mmamirror"));
        let variant = &self.source.variant;
        let slower = variant.partition == crate::variant::Partition::Element
            && variant.precision == Precision::F64
            && self.np >= dg_core::triangle::num_nodes(3);
        merged && !slower
    }

    /// The steps of one low-storage stage of state `q` (every element), the update folded into the merged
    /// kernel's store; `None` when the variant's right-hand side is not one merged kernel.
    pub fn folded_stage_steps(&self, q: BufferId, t: f64, stage: &FoldedStage) -> Option<Vec<Step>> {
        self.folded_stage_steps_over(q, t, 0..self.k, stage)
    }

    /// The steps of one low-storage stage of state `q` on the elements `elements` only (as
    /// [`DeviceOperator::rhs_steps_over`]); `None` as for [`DeviceOperator::folded_stage_steps`]. The new
    /// state's values of other elements (a rank's halo) are not written.
    pub fn folded_stage_steps_over(
        &self,
        q: BufferId,
        t: f64,
        elements: std::ops::Range<usize>,
        stage: &FoldedStage,
    ) -> Option<Vec<Step>> {
        let apart = stage.z != q && stage.z != stage.r && stage.r != q;
        (self.folds_stages() && apart).then(|| self.stage_steps_over(q, stage.r, t, elements, Some(stage)))
    }

    /// The GEMM partition's products after its flux kernel: per variable v, rhs_v = B_v · [−Dr −Ds LIFT]ᵀ over the
    /// elements `first..end` (rows of B_v and of the node-major right-hand side, leading dimension `fs / np`).
    fn gemm_steps(&self, gemm: &GemmBuffers, out: BufferId, first: usize, end: usize) -> Vec<Step> {
        let (np, cols, ld) = (self.np, gemm_columns(self.np, self.source.geometry.nfp), self.fs / self.np);
        (0..self.nv)
            .map(|v| {
                Step::Gemm(Gemm {
                    double: T::NAME == "f64",
                    m: end - first,
                    n: np,
                    k: cols,
                    alpha: 1.0,
                    a: GemmOperand { buffer: gemm.b, offset: v * cols * ld + first, ld },
                    b: GemmOperand { buffer: gemm.operator, offset: 0, ld: cols },
                    beta: 0.0,
                    c: GemmOperand { buffer: out, offset: v * self.fs + first, ld },
                })
            })
            .collect()
    }

    fn stage_steps_over(
        &self,
        q: BufferId,
        out: BufferId,
        t: f64,
        elements: std::ops::Range<usize>,
        stage: Option<&FoldedStage>,
    ) -> Vec<Step> {
        // the merged kernels' STEP_ARGS: step 0 stores L in `out` (the other buffers are not touched)
        let step_args: Vec<Arg> = match stage {
            Some(s) => vec![
                Arg::Buffer(s.r),
                Arg::Buffer(s.z),
                Arg::Buffer(q),
                Arg::real::<T>(s.a),
                Arg::real::<T>(s.c),
                Arg::real::<T>(s.b),
                Arg::I32(1),
            ],
            None => [Arg::Buffer(out), Arg::Buffer(out), Arg::Buffer(q)]
                .into_iter()
                .chain([Arg::real::<T>(0.0); 3])
                .chain([Arg::I32(0)])
                .collect(),
        };
        let mut b = Buffers { ..self.buffers };
        b.q = q;
        b.rhs = out;
        let b = &b;
        let end = elements.end.min(self.k);
        let (kk, fs) = (Arg::I32(end as i32), Arg::I32(kernel_variable_stride(&self.source, self.fs) as i32));
        let buf = Arg::Buffer;
        let links = crate::render::uses_links(&self.source.variant);
        // the nodes' coordinates, where the merged kernel's store adds the law's source (before the stage's arguments)
        let stored_source: Vec<Arg> = match (self.source.source_in_store, b.node_xy) {
            (true, Some(xy)) => vec![Arg::Buffer(xy)],
            _ => Vec::new(),
        };
        self.source
            .rhs_kernels
            .iter()
            .filter(|_| elements.start < end)
            .flat_map(|kernel| {
                let per_group = self.source.elements_per_group(kernel);
                let g0 = elements.start / per_group;
                let g0_arg = Arg::I32(g0 as i32);
                // the face data every surface-computing kernel reads, in the templates' argument order
                // (a kernel that reads the faces' packed links takes them where the others take vmap_p)
                let vmap_p = match (links, b.links) {
                    (true, Some(l)) => l,
                    _ => b.vmap_p,
                };
                let faces = [b.face_geo, b.vmap_m, vmap_p, b.face_bc, b.neigh, b.face_xy].map(buf);
                let join = |head: &[Arg], tail: &[Arg]| [head, &faces[..], tail].concat();
                let t = Arg::real::<T>(t);
                let args = match kernel.name {
                    "volume" => {
                        vec![buf(b.q), buf(b.rhs), buf(b.geo), buf(b.mat), buf(b.dr), buf(b.ds), kk, fs, g0_arg]
                    }
                    "rhs" => join(
                        &[buf(b.q), buf(b.rhs), buf(b.geo), buf(b.mat), buf(b.dr), buf(b.ds)],
                        &[&[buf(b.lift), t, kk, fs, g0_arg][..], &stored_source, &step_args].concat(),
                    ),
                    "tile" => join(
                        &[buf(b.q), buf(b.rhs), buf(b.geo), buf(b.mat), buf(b.tiled)],
                        &[&[t, kk, fs, g0_arg][..], &stored_source, &step_args].concat(),
                    ),
                    "mirror" => join(
                        &[buf(b.q), buf(b.rhs), buf(b.geo), buf(b.mat), buf(b.folded)],
                        &[&[t, kk, fs, g0_arg][..], &stored_source, &step_args].concat(),
                    ),
                    "mmamirror" => join(
                        &[buf(b.q), buf(b.rhs), buf(b.geo), buf(b.mat), buf(b.mirror_mma)],
                        &[&[t, kk, fs, g0_arg][..], &stored_source, &step_args].concat(),
                    ),
                    "mma" => join(
                        &[buf(b.q), buf(b.rhs), buf(b.geo), buf(b.mat), buf(b.mma_a)],
                        &[&[t, kk, fs, g0_arg][..], &stored_source, &step_args].concat(),
                    ),
                    "surface" => join(&[buf(b.q), buf(b.rhs)], &[buf(b.mat), buf(b.lift), t, kk, fs, g0_arg]),
                    "gemm_flux" => {
                        // (always `Some` here: `with_program` allocates the operand for every GEMM variant and
                        // `with_kernels` shares buffers only between GEMM variants)
                        let operand = b.gemm.map_or(b.rhs, |g| g.b);
                        join(&[buf(b.q), buf(operand), buf(b.geo), buf(b.mat)], &[t, kk, fs, g0_arg])
                    }
                    "flux" => join(&[buf(b.q), buf(b.jumps)], &[buf(b.mat), t, kk, fs, g0_arg]),
                    // (`node_xy` is uploaded for every program with a source kernel: `with_program`)
                    "source" => {
                        vec![buf(b.q), buf(b.rhs), buf(b.mat), buf(b.node_xy.unwrap_or(b.q)), t, kk, fs, g0_arg]
                    }
                    _ => vec![buf(b.jumps), buf(b.rhs), buf(b.lift), kk, fs, g0_arg],
                };
                let launch = Step::Kernel(Launch {
                    kernel: self.source.symbol(kernel.name).to_string(),
                    groups: self.source.groups(kernel, end) - g0,
                    local: kernel.local_size,
                    args,
                });
                match (kernel.name, &b.gemm) {
                    ("gemm_flux", Some(gemm)) => {
                        [vec![launch], self.gemm_steps(gemm, b.rhs, elements.start, end)].concat()
                    }
                    _ => vec![launch],
                }
            })
            .collect()
    }

    /// Uploads a state given in the CPU layout (`(k·nvars + v)·np + i`) into the operator's own state buffer.
    pub fn upload_state(&self, device: &mut dyn Device, q: &[T]) -> Result<(), BackendError> {
        self.write_state(device, self.buffers.q, q)
    }

    /// Fills the right-hand-side buffer and the kernels' temporaries (the split surface's face jumps, the GEMM
    /// partition's operand) with NaN, so that an output no kernel wrote, or a temporary read before any kernel of
    /// the launch wrote it, shows.
    pub fn poison_rhs(&self, device: &mut dyn Device) -> Result<(), BackendError> {
        let mut poison = |buffer: BufferId| -> Result<(), BackendError> {
            let values = device.buffer_bytes(buffer).unwrap_or(0) / std::mem::size_of::<T>();
            device.upload(buffer, as_bytes(&vec![T::nan(); values]))
        };
        poison(self.buffers.rhs)?;
        poison(self.buffers.jumps)?;
        if let Some(gemm) = self.buffers.gemm {
            poison(gemm.b)?;
        }
        Ok(())
    }

    /// Downloads the right-hand side in the CPU layout.
    pub fn download_rhs(&self, device: &mut dyn Device) -> Result<Vec<T>, BackendError> {
        self.read_state(device, self.buffers.rhs)
    }

    /// Offset of variable `variable` at node `node` of element `element` in a device state buffer.
    pub fn state_offset(&self, element: usize, variable: usize, node: usize) -> usize {
        value_offset(&self.source, variable, element, node, self.fs)
    }

    /// Variables per node.
    pub fn nvars(&self) -> usize {
        self.nv
    }

    /// Values in one device state buffer (all fields, padding included).
    pub fn state_values(&self) -> usize {
        self.nv * self.fs
    }

    /// A new zero-filled device state buffer.
    pub fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        device.alloc_zeroed(self.state_values() * std::mem::size_of::<T>())
    }

    /// Copies a CPU-layout state into a device state buffer.
    pub fn write_state(&self, device: &mut dyn Device, buffer: BufferId, q: &[T]) -> Result<(), BackendError> {
        use rayon::prelude::*;
        let (nv, np, fs) = (self.nv, self.np, self.fs);
        let mut dev = vec![T::zero(); nv * fs];
        dev.par_iter_mut().enumerate().for_each(|(o, value)| {
            if let Some((v, k, i)) = value_at(&self.source, o, self.k, fs) {
                *value = q[(k * nv + v) * np + i];
            }
        });
        device.upload(buffer, as_bytes(&dev))
    }

    /// Reads a device state buffer into the CPU layout.
    pub fn read_state(&self, device: &mut dyn Device, buffer: BufferId) -> Result<Vec<T>, BackendError> {
        let mut dev = vec![T::zero(); self.nv * self.fs];
        device.download(buffer, as_bytes_mut(&mut dev))?;
        use rayon::prelude::*;
        let (nv, np, fs) = (self.nv, self.np, self.fs);
        let mut out = vec![T::zero(); self.k * nv * np];
        out.par_chunks_mut(nv * np).enumerate().for_each(|(k, element)| {
            for (j, value) in element.iter_mut().enumerate() {
                *value = dev[value_offset(&self.source, j / np, k, j % np, fs)];
            }
        });
        Ok(out)
    }

    /// The mass-weighted square norm Σ_e J_e Σ_v q_evᵀ·M·q_ev of state buffer `buffer` (twice the energy of a
    /// linear law's state; [`DgSpace2d::square_norm`] on the host), and the device seconds its kernel took: the
    /// energy kernel writes one term per element, and only those K values come back, summed in f64 in the fixed
    /// order of [`dg_core::space::element_sum`]. The terms are formed in the kernels' precision (in f32 about
    /// 1e-6 relative), so that a growth check of a large run reads K values instead of the whole state; they are
    /// poisoned with NaN before the launch, so that a term the kernel did not write makes the norm NaN.
    pub fn square_norm(&self, device: &mut dyn Device, buffer: BufferId) -> Result<(f64, f64), BackendError> {
        let group = crate::render::ENERGY_GROUP;
        let args = vec![
            Arg::Buffer(buffer),
            Arg::Buffer(self.buffers.mass),
            Arg::Buffer(self.buffers.jac),
            Arg::Buffer(self.buffers.energy_terms),
            Arg::I32(self.k as i32),
            Arg::I32(kernel_variable_stride(&self.source, self.fs) as i32),
        ];
        let launch = Launch {
            kernel: self.source.symbol("energy").to_string(),
            groups: self.k.div_ceil(group),
            local: group,
            args,
        };
        // (the terms poisoned with NaN first: one the kernel did not write shows)
        device.upload(self.buffers.energy_terms, as_bytes(&vec![T::nan(); self.k]))?;
        let seconds = device.submit(self.program, &[Step::Kernel(launch)])?;
        let mut terms = vec![T::zero(); self.k];
        device.download(self.buffers.energy_terms, as_bytes_mut(&mut terms))?;
        Ok((dg_core::space::element_sum(self.k, |e| terms[e].as_f64()), seconds))
    }

    /// The program handle.
    pub fn program(&self) -> ProgramId {
        self.program
    }

    /// The launch of y = a·y + Σ cᵢxᵢ (at most three terms) on device state buffers.
    pub fn lincomb_launch(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Launch {
        let n = self.state_values();
        let args = Arg::lincomb::<T>(y, a, terms, n);
        Launch { kernel: self.source.symbol("lincomb").to_string(), groups: n.div_ceil(256), local: 256, args }
    }

    /// Evaluates the right-hand side of the uploaded state; returns the device time of each of `repeats`
    /// evaluations.
    pub fn apply(&self, device: &mut dyn Device, t: f64, repeats: usize) -> Result<Vec<f64>, BackendError> {
        device.run_steps(self.program, &self.rhs_steps(t), repeats)
    }

    /// One stage of a two-register low-storage Runge–Kutta scheme of the uploaded state q at time `t` as a run
    /// steps it — r ← a·r + c·L(q), z ← q + b·r — `repeats` times; the device time of each. Folded into the
    /// merged kernel's store where the variant folds ([`DeviceOperator::folds_stages`]), else the right-hand side
    /// into the operator's output and two linear combinations (the second writes z where a run updates q in
    /// place: the same traffic, and the uploaded state stays as it was).
    pub fn apply_stage(
        &self,
        device: &mut dyn Device,
        t: f64,
        stage: &FoldedStage,
        repeats: usize,
    ) -> Result<Vec<f64>, BackendError> {
        let q = self.buffers.q;
        let steps = self.folded_stage_steps(q, t, stage).unwrap_or_else(|| {
            let mut steps = self.rhs_steps(t);
            steps.push(Step::Kernel(self.lincomb_launch(stage.r, stage.a, &[(stage.c, self.buffers.rhs)])));
            steps.push(Step::Kernel(self.lincomb_launch(stage.z, 0.0, &[(1.0, q), (stage.b, stage.r)])));
            steps
        });
        device.run_steps(self.program, &steps, repeats)
    }

    /// Evaluates the right-hand side of the uploaded state on the elements `elements` only (see
    /// [`DeviceOperator::rhs_steps_over`]).
    pub fn apply_over(
        &self,
        device: &mut dyn Device,
        t: f64,
        elements: std::ops::Range<usize>,
    ) -> Result<(), BackendError> {
        let steps = self.rhs_steps_over(self.buffers.q, self.buffers.rhs, t, elements);
        device.run_steps(self.program, &steps, 1).map(|_| ())
    }

    /// Elements of the operator.
    pub fn num_elements(&self) -> usize {
        self.k
    }
}

// (the unit tests live in their own file, outside the code fingerprint: editing them moves no tuning entry)
#[cfg(test)]
mod tests;
