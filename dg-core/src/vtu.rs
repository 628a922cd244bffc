//! VTU (VTK XML unstructured grid) output of high-order nodal fields on triangles and tetrahedra.
//!
//! Each element of order N is drawn as N² sub-triangles (N³ sub-tetrahedra) on its equispaced lattice, the field interpolated there,
//! so ParaView shows the polynomial inside each element rather than a linear blur. ASCII encoding; the file is
//! written to a temporary name and renamed, so a reader never sees a half-written file.

use crate::space::DgSpace2d;
use crate::space3d::DgSpace3d;
use crate::tetrahedron::equispaced_nodes_3d;
use crate::triangle::equispaced_nodes;
use crate::CoreError;
use std::fmt::Write as _;
use std::path::Path;

/// VTK cell type of a linear triangle.
const VTK_TRIANGLE: u8 = 5;
/// VTK cell type of a linear tetrahedron.
const VTK_TETRA: u8 = 10;

/// A named nodal field (K·Np values, node-major within each element as in [`DgSpace2d`]).
pub struct Field<'a> {
    /// Name shown in ParaView.
    pub name: &'a str,
    /// Values at the DG nodes.
    pub values: &'a [f64],
}

/// Sub-triangles of the order-n lattice (local point indices), n² of them, counter-clockwise.
pub fn sub_triangles(n: usize) -> Vec<[usize; 3]> {
    let row_start: Vec<usize> = (0..=n)
        .scan(0, |acc, j| {
            let s = *acc;
            *acc += n + 1 - j;
            Some(s)
        })
        .collect();
    let idx = |i: usize, j: usize| row_start[j] + i;
    let mut tris = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..(n - j) {
            tris.push([idx(i, j), idx(i + 1, j), idx(i, j + 1)]);
            if i + 1 < n - j {
                tris.push([idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)]);
            }
        }
    }
    tris
}

/// Writes the fields of `space` to `path` as a VTU file.
pub fn write_vtu(path: &Path, space: &DgSpace2d, fields: &[Field<'_>]) -> Result<(), CoreError> {
    let el = &space.element;
    let (req, seq) = equispaced_nodes(el.order);
    let interp = el.interpolation_matrix(&req, &seq)?;
    let cells = sub_triangles(el.order);
    let zero = vec![0.0; space.x.len()];
    let lattice = Lattice { interp: &interp, np: el.np, elements: space.num_elements() };
    write_lattice_cells(path, &lattice, [&space.x, &space.y, &zero], &cells, VTK_TRIANGLE, fields)
}

/// Sub-tetrahedra of the order-n lattice of [`equispaced_nodes_3d`] (local point indices), n³ of them: per
/// lattice cell an upright tetrahedron, an octahedron in four, and an inverted tetrahedron where they fit.
pub fn sub_tetrahedra(n: usize) -> Vec<[usize; 4]> {
    let mut index = std::collections::HashMap::new();
    let mut next = 0;
    for k in 0..=n {
        for j in 0..=(n - k) {
            for i in 0..=(n - k - j) {
                index.insert((i, j, k), next);
                next += 1;
            }
        }
    }
    let at = |i: usize, j: usize, k: usize| index[&(i, j, k)];
    let mut tets = Vec::with_capacity(n * n * n);
    for k in 0..n {
        for j in 0..(n - k) {
            for i in 0..(n - k - j) {
                tets.push([at(i, j, k), at(i + 1, j, k), at(i, j + 1, k), at(i, j, k + 1)]);
                if i + j + k + 2 <= n {
                    let (a, b) = (at(i + 1, j, k), at(i, j + 1, k + 1));
                    let ring = [at(i, j + 1, k), at(i, j, k + 1), at(i + 1, j, k + 1), at(i + 1, j + 1, k)];
                    tets.extend((0..4).map(|m| [a, b, ring[m], ring[(m + 1) % 4]]));
                }
                if i + j + k + 3 <= n {
                    tets.push([at(i + 1, j + 1, k), at(i + 1, j, k + 1), at(i, j + 1, k + 1), at(i + 1, j + 1, k + 1)]);
                }
            }
        }
    }
    tets
}

/// Writes the fields of a tetrahedral `space` to `path` as a VTU file (each element as N³ sub-tetrahedra).
pub fn write_vtu_tet(path: &Path, space: &DgSpace3d, fields: &[Field<'_>]) -> Result<(), CoreError> {
    let el = &space.element;
    let (r, s, t) = equispaced_nodes_3d(el.order);
    let interp = el.interpolation_matrix(&r, &s, &t)?;
    let cells = sub_tetrahedra(el.order);
    let lattice = Lattice { interp: &interp, np: el.np, elements: space.num_elements() };
    let [x, y, z] = &space.xyz;
    write_lattice_cells(path, &lattice, [x, y, z], &cells, VTK_TETRA, fields)
}

/// Interpolation from each element's nodes to its equispaced lattice.
struct Lattice<'a> {
    interp: &'a crate::matrix::Matrix,
    np: usize,
    elements: usize,
}

impl Lattice<'_> {
    fn value(&self, values: &[f64], k: usize, p: usize) -> f64 {
        (0..self.np).map(|i| self.interp[(p, i)] * values[k * self.np + i]).sum()
    }
}

fn write_lattice_cells<const V: usize>(
    path: &Path,
    lattice: &Lattice<'_>,
    coords: [&[f64]; 3],
    cells: &[[usize; V]],
    vtk_type: u8,
    fields: &[Field<'_>],
) -> Result<(), CoreError> {
    let k_count = lattice.elements;
    let nsub = lattice.interp.nrows();
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(
        w,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    );
    let _ = writeln!(w, "<UnstructuredGrid>");
    let _ = writeln!(w, r#"<Piece NumberOfPoints="{}" NumberOfCells="{}">"#, k_count * nsub, k_count * cells.len());
    let _ = writeln!(w, "<Points>");
    let _ = writeln!(w, r#"<DataArray type="Float64" NumberOfComponents="3" format="ascii">"#);
    for k in 0..k_count {
        for p in 0..nsub {
            let [x, y, z] = coords.map(|c| lattice.value(c, k, p));
            let _ = writeln!(w, "{x:e} {y:e} {z:e}");
        }
    }
    let _ = writeln!(w, "</DataArray>\n</Points>\n<Cells>");
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="connectivity" format="ascii">"#);
    for k in 0..k_count {
        for c in cells {
            let ids: Vec<String> = c.iter().map(|i| (k * nsub + i).to_string()).collect();
            let _ = writeln!(w, "{}", ids.join(" "));
        }
    }
    let _ = writeln!(w, "</DataArray>");
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="offsets" format="ascii">"#);
    for c in 0..k_count * cells.len() {
        let _ = writeln!(w, "{}", V * (c + 1));
    }
    let _ = writeln!(w, "</DataArray>");
    let _ = writeln!(w, r#"<DataArray type="UInt8" Name="types" format="ascii">"#);
    for _ in 0..k_count * cells.len() {
        let _ = writeln!(w, "{vtk_type}");
    }
    let _ = writeln!(w, "</DataArray>\n</Cells>\n<PointData>");
    for field in fields {
        let _ = writeln!(w, r#"<DataArray type="Float64" Name="{}" format="ascii">"#, xml_escape(field.name));
        for k in 0..k_count {
            for p in 0..nsub {
                let _ = writeln!(w, "{:e}", lattice.value(field.values, k, p));
            }
        }
        let _ = writeln!(w, "</DataArray>");
    }
    let _ = writeln!(w, "</PointData>\n<CellData>");
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="element" format="ascii">"#);
    for k in 0..k_count {
        for _ in 0..cells.len() {
            let _ = writeln!(w, "{k}");
        }
    }
    let _ = writeln!(w, "</DataArray>\n</CellData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>");
    write_atomically(path, out.as_bytes())
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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
