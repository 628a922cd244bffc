//! VTU (VTK XML unstructured grid) output of high-order nodal fields on triangles.
//!
//! Each element of order N is drawn as N² sub-triangles on its equispaced lattice, the field interpolated there,
//! so ParaView shows the polynomial inside each element rather than a linear blur. ASCII encoding; the file is
//! written to a temporary name and renamed, so a reader never sees a half-written file.

use crate::space::DgSpace2d;
use crate::triangle::equispaced_nodes;
use crate::CoreError;
use std::fmt::Write as _;
use std::path::Path;

/// VTK cell type of a linear triangle.
const VTK_TRIANGLE: u8 = 5;

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
    let n = el.order;
    let (req, seq) = equispaced_nodes(n);
    let interp = el.interpolation_matrix(&req, &seq)?;
    let nsub = req.len();
    let k_count = space.num_elements();
    let np = el.np;
    let interpolate =
        |values: &[f64], k: usize, p: usize| -> f64 { (0..np).map(|i| interp[(p, i)] * values[k * np + i]).sum() };
    let tris = sub_triangles(n);
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(
        w,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    );
    let _ = writeln!(w, "<UnstructuredGrid>");
    let _ = writeln!(w, r#"<Piece NumberOfPoints="{}" NumberOfCells="{}">"#, k_count * nsub, k_count * tris.len());
    let _ = writeln!(w, "<Points>");
    let _ = writeln!(w, r#"<DataArray type="Float64" NumberOfComponents="3" format="ascii">"#);
    for k in 0..k_count {
        for p in 0..nsub {
            let _ = writeln!(w, "{:e} {:e} 0", interpolate(&space.x, k, p), interpolate(&space.y, k, p));
        }
    }
    let _ = writeln!(w, "</DataArray>\n</Points>\n<Cells>");
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="connectivity" format="ascii">"#);
    for k in 0..k_count {
        for t in &tris {
            let _ = writeln!(w, "{} {} {}", k * nsub + t[0], k * nsub + t[1], k * nsub + t[2]);
        }
    }
    let _ = writeln!(w, "</DataArray>");
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="offsets" format="ascii">"#);
    for c in 0..k_count * tris.len() {
        let _ = writeln!(w, "{}", 3 * (c + 1));
    }
    let _ = writeln!(w, "</DataArray>");
    let _ = writeln!(w, r#"<DataArray type="UInt8" Name="types" format="ascii">"#);
    for _ in 0..k_count * tris.len() {
        let _ = writeln!(w, "{VTK_TRIANGLE}");
    }
    let _ = writeln!(w, "</DataArray>\n</Cells>\n<PointData>");
    for field in fields {
        let _ = writeln!(w, r#"<DataArray type="Float64" Name="{}" format="ascii">"#, xml_escape(field.name));
        for k in 0..k_count {
            for p in 0..nsub {
                let _ = writeln!(w, "{:e}", interpolate(field.values, k, p));
            }
        }
        let _ = writeln!(w, "</DataArray>");
    }
    let _ = writeln!(w, "</PointData>\n<CellData>");
    let _ = writeln!(w, r#"<DataArray type="Int64" Name="element" format="ascii">"#);
    for k in 0..k_count {
        for _ in 0..tris.len() {
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
