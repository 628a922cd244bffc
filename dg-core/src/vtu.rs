//! VTU (VTK XML unstructured grid) output of high-order fields as Lagrange cells at the solution's own order:
//! VTK_LAGRANGE_TRIANGLE (69), VTK_LAGRANGE_TETRAHEDRON (71) and VTK_LAGRANGE_HEXAHEDRON (72), so ParaView draws the polynomial inside each
//! element rather than a linear blur.
//!
//! The cells' points follow VTK's Lagrange ordering (vertices, edge points from each edge's first vertex to its
//! second, face points, interior points, recursively; [`lagrange_triangle`], [`lagrange_tetrahedron`]). Points
//! are shared between the elements that meet there (identified by mesh vertices and lattice weights, so shared
//! points are bit-identical); a DG field has one value per element at a shared point, and the point's value is
//! their mean (the interior points of each element keep its own values). Data are binary, appended raw after
//! the XML (little-endian, 64-bit block headers); the file is written to a temporary name and renamed, so a
//! reader never sees a half-written file. [`write_pvd`] writes the `.pvd` collection of a time series.
//! [`write_vtu_grid`] writes cell means of a regular grid (finite volumes) as VTK_QUAD cells with cell data.

use crate::matrix::Matrix;
use crate::space::DgSpace2d;
use crate::space3d::DgSpace3d;
use crate::CoreError;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// VTK cell type of a (bilinear) quadrilateral.
pub const VTK_QUAD: u8 = 9;
/// VTK cell type of a Lagrange triangle.
pub const VTK_LAGRANGE_TRIANGLE: u8 = 69;
/// VTK cell type of a Lagrange tetrahedron.
pub const VTK_LAGRANGE_TETRAHEDRON: u8 = 71;
/// VTK cell type of a Lagrange hexahedron.
pub const VTK_LAGRANGE_HEXAHEDRON: u8 = 72;

/// A named field: per element, `values.len() / elements` coefficients (nodal values at the DG nodes, or modal
/// coefficients), element after element.
pub struct Field<'a> {
    /// Name shown in ParaView.
    pub name: &'a str,
    /// The coefficients.
    pub values: &'a [f64],
}

/// The points of VTK's Lagrange triangle of order `n` in VTK's order, each as its lattice weights on the
/// element's vertices 0, 1, 2 (summing to `n`; the point is Σ wₐ/n · vertexₐ).
pub fn lagrange_triangle(n: usize) -> Vec<[usize; 3]> {
    // VTK's barycentric index b: vertex v has b[v+2] = n; the point is (b0, b1)/n in (ξ, η)
    triangle_barycentric(n).into_iter().map(|b| [b[2], b[0], b[1]]).collect()
}

/// VTK's barycentric indices of the order-`n` Lagrange triangle, in its point order.
fn triangle_barycentric(n: usize) -> Vec<[usize; 3]> {
    if n == 0 {
        return vec![[0, 0, 0]];
    }
    let mut points = Vec::with_capacity((n + 1) * (n + 2) / 2);
    for v in 0..3 {
        let mut b = [0; 3];
        b[(v + 2) % 3] = n;
        points.push(b);
    }
    for dim in 0..3 {
        for offset in 0..n - 1 {
            let mut b = [0; 3];
            b[dim] = 1 + offset;
            b[(dim + 2) % 3] = n - 1 - offset;
            points.push(b);
        }
    }
    if n >= 3 {
        points.extend(triangle_barycentric(n - 3).into_iter().map(|b| b.map(|x| x + 1)));
    }
    points
}

/// The points of VTK's Lagrange tetrahedron of order `n` in VTK's order, each as its lattice weights on the
/// element's vertices 0..3 (summing to `n`).
pub fn lagrange_tetrahedron(n: usize) -> Vec<[usize; 4]> {
    // VTK's barycentric index b: vertex 0 has b3 = n, vertices 1, 2, 3 have b0, b1, b2 = n
    tetrahedron_barycentric(n).into_iter().map(|b| [b[3], b[0], b[1], b[2]]).collect()
}

/// VTK's barycentric indices of the order-`n` Lagrange tetrahedron, in its point order.
fn tetrahedron_barycentric(n: usize) -> Vec<[usize; 4]> {
    const VERTEX_MAX: [usize; 4] = [3, 0, 1, 2];
    const EDGES: [[usize; 2]; 6] = [[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]];
    const FACE_COORDS: [[usize; 3]; 4] = [[0, 2, 3], [2, 0, 1], [2, 1, 3], [1, 0, 3]];
    const FACE_ZERO: [usize; 4] = [1, 3, 0, 2];
    if n == 0 {
        return vec![[0; 4]];
    }
    let vertex = |v: usize| {
        let mut b = [0; 4];
        b[VERTEX_MAX[v]] = 1;
        b
    };
    let mut points = Vec::with_capacity((n + 1) * (n + 2) * (n + 3) / 6);
    points.extend((0..4).map(|v| vertex(v).map(|x| x * n)));
    for [a, b] in EDGES {
        for i in 0..n - 1 {
            let (va, vb) = (vertex(a), vertex(b));
            points.push(std::array::from_fn(|c| va[c] * (n - 1 - i) + vb[c] * (1 + i)));
        }
    }
    if n >= 3 {
        for (coords, zero) in FACE_COORDS.iter().zip(FACE_ZERO) {
            for t in triangle_barycentric(n - 3) {
                let mut b = [0; 4];
                for (i, &c) in coords.iter().enumerate() {
                    b[c] = 1 + t[i];
                }
                b[zero] = 0;
                points.push(b);
            }
        }
    }
    if n >= 4 {
        points.extend(tetrahedron_barycentric(n - 4).into_iter().map(|b| b.map(|x| x + 1)));
    }
    points
}

/// Reference coordinates (r, s[, t] ∈ [−1, 1]) of lattice weights `w` of order `n`: coordinate d is −1 + 2·w[d+1]/n.
fn reference<const V: usize>(weights: &[[usize; V]], n: usize) -> Vec<Vec<f64>> {
    (1..V).map(|d| weights.iter().map(|w| -1.0 + 2.0 * w[d] as f64 / n as f64).collect()).collect()
}

/// Writes the nodal fields of a triangular `space` (values at its DG nodes) as Lagrange triangles.
pub fn write_vtu(path: &Path, space: &DgSpace2d, fields: &[Field<'_>]) -> Result<(), CoreError> {
    let el = &space.element;
    let weights = lagrange_triangle(el.order);
    let rs = reference(&weights, el.order);
    let eval = el.interpolation_matrix(&rs[0], &rs[1])?;
    let vertices: Vec<[f64; 3]> = space.mesh.vertices.iter().map(|v| [v[0], v[1], 0.0]).collect();
    let cells = Cells { vertices: &vertices, elements: &space.mesh.elements, denominator: el.order, weights: &weights };
    write_cells(path, &cells, &eval, VTK_LAGRANGE_TRIANGLE, fields)
}

/// Writes fields given as modal coefficients of the orthonormal triangle basis of degree `order` (the
/// Vandermonde basis of [`crate::triangle::vandermonde`]) on `mesh` as Lagrange triangles.
pub fn write_vtu_modal(
    path: &Path,
    mesh: &crate::mesh::TriMesh,
    order: usize,
    fields: &[Field<'_>],
) -> Result<(), CoreError> {
    let weights = lagrange_triangle(order);
    let rs = reference(&weights, order);
    let eval = crate::triangle::vandermonde(order, &rs[0], &rs[1]);
    let vertices: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| [v[0], v[1], 0.0]).collect();
    let cells = Cells { vertices: &vertices, elements: &mesh.elements, denominator: order, weights: &weights };
    write_cells(path, &cells, &eval, VTK_LAGRANGE_TRIANGLE, fields)
}

/// VTK's Lagrange hexahedron of order `n` (≥ 1): the lattice point (i, j, k) of each VTK point, in VTK's order
/// (corners, edges, faces, interior; `vtkHigherOrderHexahedron::PointIndexFromIJK`).
pub fn lagrange_hexahedron(n: usize) -> Vec<[usize; 3]> {
    let n = n.max(1);
    let index = |i: usize, j: usize, k: usize| -> usize {
        let (ib, jb, kb) = (i == 0 || i == n, j == 0 || j == n, k == 0 || k == n);
        let corner = |i: usize, j: usize| match (i != 0, j != 0) {
            (false, false) => 0,
            (true, false) => 1,
            (true, true) => 2,
            (false, true) => 3,
        };
        let m = n - 1;
        match usize::from(ib) + usize::from(jb) + usize::from(kb) {
            3 => corner(i, j) + if k != 0 { 4 } else { 0 },
            2 if !ib => 8 + (i - 1) + if j != 0 { 2 * m } else { 0 } + if k != 0 { 4 * m } else { 0 },
            2 if !jb => 8 + (j - 1) + if i != 0 { m } else { 3 * m } + if k != 0 { 4 * m } else { 0 },
            2 => 8 + 8 * m + (k - 1) + m * corner(i, j),
            1 => {
                let offset = 8 + 12 * m;
                let face = m * m;
                if ib {
                    offset + (j - 1) + m * (k - 1) + if i != 0 { face } else { 0 }
                } else if jb {
                    offset + 2 * face + (i - 1) + m * (k - 1) + if j != 0 { face } else { 0 }
                } else {
                    offset + 4 * face + (i - 1) + m * (j - 1) + if k != 0 { face } else { 0 }
                }
            }
            _ => 8 + 12 * m + 6 * m * m + (i - 1) + m * ((j - 1) + m * (k - 1)),
        }
    };
    let mut points = vec![[0; 3]; (n + 1) * (n + 1) * (n + 1)];
    for k in 0..=n {
        for j in 0..=n {
            for i in 0..=n {
                points[index(i, j, k)] = [i, j, k];
            }
        }
    }
    points
}

/// Writes the nodal fields of a hexahedral `space` as Lagrange hexahedra of the space's degree (at least 1) whose
/// points are the trilinear images of the equispaced lattice.
pub fn write_vtu_hex(path: &Path, space: &crate::space_hex::HexSpace, fields: &[Field<'_>]) -> Result<(), CoreError> {
    let el = &space.element;
    let n = el.order.max(1);
    let lattice = lagrange_hexahedron(n);
    let weights: Vec<[usize; 8]> = lattice
        .iter()
        .map(|p| {
            crate::hexahedron::HEX_CORNERS.map(|c| (0..3).map(|d| if c[d] == 1.0 { p[d] } else { n - p[d] }).product())
        })
        .collect();
    let mut eval = Matrix::zeros(lattice.len(), el.np);
    for (row, p) in lattice.iter().enumerate() {
        let x = p.map(|i| i as f64 / n as f64);
        for j in 0..el.np {
            eval[(row, j)] = el.basis(j, x);
        }
    }
    let cells = Cells {
        vertices: &space.mesh.vertices,
        elements: &space.mesh.elements,
        denominator: n * n * n,
        weights: &weights,
    };
    write_cells(path, &cells, &eval, VTK_LAGRANGE_HEXAHEDRON, fields)
}

/// Writes the nodal fields of a tetrahedral `space` as Lagrange tetrahedra.
pub fn write_vtu_tet(path: &Path, space: &DgSpace3d, fields: &[Field<'_>]) -> Result<(), CoreError> {
    let el = &space.element;
    let weights = lagrange_tetrahedron(el.order);
    let rst = reference(&weights, el.order);
    let eval = el.interpolation_matrix(&rst[0], &rst[1], &rst[2])?;
    let cells = Cells {
        vertices: &space.mesh.vertices,
        elements: &space.mesh.elements,
        denominator: el.order,
        weights: &weights,
    };
    write_cells(path, &cells, &eval, VTK_LAGRANGE_TETRAHEDRON, fields)
}

/// Cells of one order to write: mesh vertices, element vertex ids, and the cell's lattice weights (a point is
/// Σ wₐ / denominator · vertexₐ: denominator n for simplices, n³ for trilinear hexahedra).
struct Cells<'a, const V: usize> {
    vertices: &'a [[f64; 3]],
    elements: &'a [[usize; V]],
    denominator: usize,
    weights: &'a [[usize; V]],
}

/// A point shared between elements: its mesh vertices (ascending) with their lattice weights, unused slots
/// `(usize::MAX, 0)` (a simplex uses at most four, a hexahedron eight).
type PointKey = [(usize, usize); 8];

impl<const V: usize> Cells<'_, V> {
    fn key(&self, element: &[usize; V], w: &[usize; V]) -> PointKey {
        let mut key = [(usize::MAX, 0); 8];
        for (slot, (&v, &wv)) in key.iter_mut().zip(element.iter().zip(w)) {
            if wv > 0 {
                *slot = (v, wv);
            }
        }
        key.sort_unstable();
        key
    }

    fn position(&self, key: &PointKey) -> [f64; 3] {
        let n = self.denominator as f64;
        let mut x = [0.0; 3];
        for &(v, w) in key.iter().filter(|(v, _)| *v != usize::MAX) {
            for d in 0..3 {
                x[d] += w as f64 / n * self.vertices[v][d];
            }
        }
        x
    }
}

fn write_cells<const V: usize>(
    path: &Path,
    cells: &Cells<'_, V>,
    eval: &Matrix,
    vtk_type: u8,
    fields: &[Field<'_>],
) -> Result<(), CoreError> {
    let k_count = cells.elements.len();
    let npc = cells.weights.len();
    let invalid = |m: String| CoreError::Io { path: path.to_path_buf(), source: std::io::Error::other(m) };
    if k_count == 0 {
        return Err(invalid("no elements to write".into()));
    }
    let ncoef = eval.ncols();
    for f in fields {
        if f.values.len() != k_count * ncoef {
            return Err(invalid(format!(
                "field `{}` has {} values, {k_count} elements × {ncoef} need {}",
                f.name,
                f.values.len(),
                k_count * ncoef
            )));
        }
    }
    let mut index: HashMap<PointKey, usize> = HashMap::new();
    let mut keys = Vec::new();
    let mut connectivity = Vec::with_capacity(k_count * npc);
    for element in cells.elements {
        for w in cells.weights {
            let key = cells.key(element, w);
            let id = *index.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            });
            connectivity.push(id as i64);
        }
    }
    let points: Vec<f64> = keys.iter().flat_map(|k| cells.position(k)).collect();
    let mut count = vec![0u32; keys.len()];
    for &id in &connectivity {
        count[id as usize] += 1;
    }
    let values: Vec<Vec<f64>> = fields
        .iter()
        .map(|f| {
            let mut sum = vec![0.0; keys.len()];
            for (k, ids) in connectivity.chunks(npc).enumerate() {
                let coef = &f.values[k * ncoef..(k + 1) * ncoef];
                for (p, &id) in ids.iter().enumerate() {
                    sum[id as usize] += (0..ncoef).map(|j| eval[(p, j)] * coef[j]).sum::<f64>();
                }
            }
            sum.iter().zip(&count).map(|(s, &c)| s / c as f64).collect()
        })
        .collect();
    let offsets: Vec<i64> = (1..=k_count).map(|c| (c * npc) as i64).collect();
    let types = vec![vtk_type; k_count];
    let point_data: Vec<(&str, &[f64])> = fields.iter().zip(&values).map(|(f, v)| (f.name, v.as_slice())).collect();
    let piece = Piece { points: &points, connectivity: &connectivity, offsets: &offsets, types: &types };
    write_piece(path, &piece, &point_data, &[])
}

/// One unstructured piece: points (x, y, z each), each cell's point ids, the end of each cell's ids, the VTK types.
struct Piece<'a> {
    points: &'a [f64],
    connectivity: &'a [i64],
    offsets: &'a [i64],
    types: &'a [u8],
}

/// Writes `piece` with named point and cell fields (one value per point, per cell), binary data appended raw.
fn write_piece(
    path: &Path,
    piece: &Piece<'_>,
    point_data: &[(&str, &[f64])],
    cell_data: &[(&str, &[f64])],
) -> Result<(), CoreError> {
    let mut appended = Vec::new();
    let mut block = |bytes: Vec<u8>| {
        let offset = appended.len();
        appended.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        appended.extend_from_slice(&bytes);
        offset
    };
    let le_f64 = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let le_i64 = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let at_points = block(le_f64(piece.points));
    let at_connectivity = block(le_i64(piece.connectivity));
    let at_offsets = block(le_i64(piece.offsets));
    let at_types = block(piece.types.to_vec());
    let at_point_data: Vec<usize> = point_data.iter().map(|(_, v)| block(le_f64(v))).collect();
    let at_cell_data: Vec<usize> = cell_data.iter().map(|(_, v)| block(le_f64(v))).collect();

    let mut xml = String::new();
    let w = &mut xml;
    let _ = writeln!(w, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(
        w,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    );
    let _ = writeln!(w, "<UnstructuredGrid>");
    let _ = writeln!(w, r#"<Piece NumberOfPoints="{}" NumberOfCells="{}">"#, piece.points.len() / 3, piece.types.len());
    for (tag, data, at) in [("PointData", point_data, &at_point_data), ("CellData", cell_data, &at_cell_data)] {
        // (no empty CellData: files of point fields only stay as they were)
        if tag == "CellData" && data.is_empty() {
            continue;
        }
        let _ = writeln!(w, "<{tag}>");
        for ((name, _), offset) in data.iter().zip(at) {
            let name = xml_escape(name);
            let _ = writeln!(w, r#"<DataArray type="Float64" Name="{name}" format="appended" offset="{offset}"/>"#);
        }
        let _ = writeln!(w, "</{tag}>");
    }
    let _ = writeln!(w, "<Points>");
    let _ = writeln!(
        w,
        r#"<DataArray type="Float64" Name="Points" NumberOfComponents="3" format="appended" offset="{at_points}"/>"#
    );
    let _ = writeln!(w, "</Points>\n<Cells>");
    let _ =
        writeln!(w, r#"<DataArray type="Int64" Name="connectivity" format="appended" offset="{at_connectivity}"/>"#);
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="offsets" format="appended" offset="{at_offsets}"/>"#);
    let _ = writeln!(w, r#"<DataArray type="UInt8" Name="types" format="appended" offset="{at_types}"/>"#);
    let _ = writeln!(w, "</Cells>\n</Piece>\n</UnstructuredGrid>");
    let _ = write!(w, "<AppendedData encoding=\"raw\">\n_");
    let mut bytes = xml.into_bytes();
    bytes.extend_from_slice(&appended);
    bytes.extend_from_slice(b"\n</AppendedData>\n</VTKFile>\n");
    write_atomically(path, &bytes)
}

/// A regular grid of `nx` × `ny` rectangular cells spanning `lower` to `upper`, cell (i, j) at index j·nx + i.
#[derive(Debug, Clone, Copy)]
pub struct CellGrid {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Lower corner.
    pub lower: [f64; 2],
    /// Upper corner.
    pub upper: [f64; 2],
}

/// Writes fields that hold one value per cell of a regular grid (finite-volume cell means, cell (i, j) at j·nx + i)
/// as VTK_QUAD cells with cell data: ParaView shows each cell's mean as a constant over the cell.
pub fn write_vtu_grid(path: &Path, grid: &CellGrid, fields: &[Field<'_>]) -> Result<(), CoreError> {
    let (nx, ny) = (grid.nx, grid.ny);
    let invalid = |m: String| CoreError::Io { path: path.to_path_buf(), source: std::io::Error::other(m) };
    if nx == 0 || ny == 0 {
        return Err(invalid(format!("a grid of {nx} × {ny} cells has no cell to write")));
    }
    let cells = nx * ny;
    if let Some(f) = fields.iter().find(|f| f.values.len() != cells) {
        return Err(invalid(format!(
            "field `{}` has {} values, {nx} × {ny} cells need {cells}",
            f.name,
            f.values.len()
        )));
    }
    let at = |k: usize, n: usize, d: usize| {
        // the last line at the upper corner itself, not at lower + n·h (which rounding can move past it)
        if k == n {
            grid.upper[d]
        } else {
            grid.lower[d] + (grid.upper[d] - grid.lower[d]) * k as f64 / n as f64
        }
    };
    let points: Vec<f64> =
        (0..=ny).flat_map(|j| (0..=nx).flat_map(move |i| [at(i, nx, 0), at(j, ny, 1), 0.0])).collect();
    let id = |i: usize, j: usize| (j * (nx + 1) + i) as i64;
    let connectivity: Vec<i64> = (0..ny)
        .flat_map(|j| (0..nx).flat_map(move |i| [id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)]))
        .collect();
    let offsets: Vec<i64> = (1..=cells).map(|c| 4 * c as i64).collect();
    let types = vec![VTK_QUAD; cells];
    let cell_data: Vec<(&str, &[f64])> = fields.iter().map(|f| (f.name, f.values)).collect();
    let piece = Piece { points: &points, connectivity: &connectivity, offsets: &offsets, types: &types };
    write_piece(path, &piece, &[], &cell_data)
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Writes the `.pvtu` file of a run split over ranks: the point fields `names` (as [`write_vtu`] writes them) and
/// one piece per rank, `pieces` relative to the `.pvtu`. ParaView opens it as one data set.
pub fn write_pvtu(path: &Path, names: &[&str], pieces: &[String]) -> Result<(), CoreError> {
    let mut out = String::new();
    let _ = writeln!(out, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(
        out,
        r#"<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    );
    let _ = writeln!(out, r#"<PUnstructuredGrid GhostLevel="0">"#);
    let _ = writeln!(out, "<PPointData>");
    for name in names {
        let _ = writeln!(out, r#"<PDataArray type="Float64" Name="{}"/>"#, xml_escape(name));
    }
    let _ = writeln!(out, "</PPointData>");
    let _ = writeln!(out, r#"<PPoints><PDataArray type="Float64" Name="Points" NumberOfComponents="3"/></PPoints>"#);
    for piece in pieces {
        let _ = writeln!(out, r#"<Piece Source="{}"/>"#, xml_escape(piece));
    }
    let _ = writeln!(out, "</PUnstructuredGrid>\n</VTKFile>");
    write_atomically(path, out.as_bytes())
}

/// Writes the `.pvd` collection of a time series: one `(time, file)` per output, `file` relative to the `.pvd`.
pub fn write_pvd(path: &Path, entries: &[(f64, String)]) -> Result<(), CoreError> {
    let mut out = String::new();
    let _ = writeln!(out, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(out, r#"<VTKFile type="Collection" version="1.0" byte_order="LittleEndian">"#);
    let _ = writeln!(out, "<Collection>");
    for (t, file) in entries {
        let _ = writeln!(out, r#"<DataSet timestep="{t:e}" group="" part="0" file="{}"/>"#, xml_escape(file));
    }
    let _ = writeln!(out, "</Collection>\n</VTKFile>");
    write_atomically(path, out.as_bytes())
}

/// The `(time, file)` entries of a `.pvd` collection this module wrote (an unreadable file gives none).
pub fn read_pvd(path: &Path) -> Vec<(f64, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let attribute = |line: &str, name: &str| -> Option<String> {
        let start = line.find(&format!("{name}=\""))? + name.len() + 2;
        let end = start + line[start..].find('"')?;
        Some(line[start..end].replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    };
    text.lines()
        .filter(|l| l.trim_start().starts_with("<DataSet"))
        .filter_map(|l| Some((attribute(l, "timestep")?.parse().ok()?, attribute(l, "file")?)))
        .collect()
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CoreError> {
    let io = |source| CoreError::Io { path: path.to_path_buf(), source };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path.file_name().ok_or_else(|| io(std::io::Error::other("not a file path")))?;
    let tmp = dir.join(format!(".{}.tmp{}", file_name.to_string_lossy(), std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_orders_match_vtks_fixed_cells() {
        // VTK_QUADRATIC_TRIANGLE: vertices, then the midpoints of edges 01, 12, 20
        assert_eq!(lagrange_triangle(2), vec![[2, 0, 0], [0, 2, 0], [0, 0, 2], [1, 1, 0], [0, 1, 1], [1, 0, 1]]);
        // cubic: two points per edge from its first vertex, then the centroid
        assert_eq!(
            lagrange_triangle(3),
            vec![
                [3, 0, 0],
                [0, 3, 0],
                [0, 0, 3],
                [2, 1, 0],
                [1, 2, 0],
                [0, 2, 1],
                [0, 1, 2],
                [1, 0, 2],
                [2, 0, 1],
                [1, 1, 1]
            ]
        );
        // VTK_QUADRATIC_TETRA: vertices, then the midpoints of edges 01, 12, 20, 03, 13, 23
        let mid = |a: usize, b: usize| {
            let mut w = [0; 4];
            w[a] = 1;
            w[b] = 1;
            w
        };
        let mut expected = vec![[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 2]];
        expected.extend([mid(0, 1), mid(1, 2), mid(2, 0), mid(0, 3), mid(1, 3), mid(2, 3)]);
        assert_eq!(lagrange_tetrahedron(2), expected);
        // cubic tetrahedron: the face points of VTK's faces (0,1,3), (1,2,3), (2,0,3), (0,2,1)
        let faces: Vec<[usize; 4]> = lagrange_tetrahedron(3)[16..].to_vec();
        assert_eq!(faces, vec![[1, 1, 0, 1], [0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 0]]);
    }

    #[test]
    fn every_lattice_point_appears_once() {
        for n in 1..=10 {
            let tri = lagrange_triangle(n);
            assert_eq!(tri.len(), (n + 1) * (n + 2) / 2);
            assert!(tri.iter().all(|w| w.iter().sum::<usize>() == n));
            let distinct: std::collections::HashSet<_> = tri.iter().collect();
            assert_eq!(distinct.len(), tri.len(), "triangle {n}");
            let tet = lagrange_tetrahedron(n);
            assert_eq!(tet.len(), (n + 1) * (n + 2) * (n + 3) / 6);
            assert!(tet.iter().all(|w| w.iter().sum::<usize>() == n));
            let distinct: std::collections::HashSet<_> = tet.iter().collect();
            assert_eq!(distinct.len(), tet.len(), "tetrahedron {n}");
        }
    }
}
