//! Reader for Gmsh MSH 4.1 and 2.2 ASCII files: triangle meshes (3-node triangles; 2-node lines carry boundary
//! tags), tetrahedral meshes (4-node tetrahedra; 3-node triangles carry boundary tags) and hexahedral meshes (8-node
//! hexahedra; 4-node quadrangles carry boundary tags).
//!
//! Physical groups of boundary elements become boundary tags named after `$PhysicalNames` (or `physical-<id>`
//! when a group has no name). Points and lower-dimensional elements without a group are ignored; any other
//! element type is an error. Every error names the file and line.

use super::gmsh_sections::{clip, CellKind, NodeTable, Parser, Version};
use super::{sorted_pair, TriMesh};
use crate::mesh3d::TetMesh;
use crate::MeshError;
use std::collections::HashMap;
use std::path::Path;

/// Reads a Gmsh triangle mesh file.
pub fn read_gmsh(path: impl AsRef<Path>) -> Result<TriMesh, MeshError> {
    let path = path.as_ref();
    read_gmsh_str(&read_text(path)?, path)
}

/// Reads a Gmsh tetrahedral mesh file.
pub fn read_gmsh_tet(path: impl AsRef<Path>) -> Result<TetMesh, MeshError> {
    let path = path.as_ref();
    read_gmsh_tet_str(&read_text(path)?, path)
}

fn read_text(path: &Path) -> Result<String, MeshError> {
    let text = std::fs::read(path).map_err(|source| MeshError::Io { path: path.to_path_buf(), source })?;
    String::from_utf8(text).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|&&b| b == b'\n').count();
        MeshError::Parse {
            path: path.to_path_buf(),
            line,
            message: "not a text file (binary MSH files are not supported; save as ASCII)".into(),
        }
    })
}

/// What a file holds before it becomes a mesh: node coordinates, the cells, the tagged boundary facets.
struct RawMesh {
    index: HashMap<i64, usize>,
    nodes: Vec<[f64; 3]>,
    /// Cell node tags and the line each was read from.
    cells: Vec<(Vec<i64>, usize)>,
    /// Boundary facet node tags, physical group, line.
    facets: Vec<(Vec<i64>, i64, usize)>,
    names: HashMap<i64, String>,
    end: usize,
}

impl RawMesh {
    /// The vertex index of node `tag` referred to on `line`.
    fn lookup(&self, tag: i64, line: usize, path: &Path) -> Result<usize, MeshError> {
        self.index.get(&tag).copied().ok_or_else(|| MeshError::Parse {
            path: path.to_path_buf(),
            line,
            message: format!("element refers to node {tag}, which `$Nodes` does not define"),
        })
    }
}

/// Parses Gmsh text holding a tetrahedral mesh; `path` is only used in messages.
pub fn read_gmsh_tet_str(text: &str, path: impl AsRef<Path>) -> Result<TetMesh, MeshError> {
    let path = path.as_ref();
    let raw = parse(text, path, CellKind::Tetrahedron)?;
    let err = |line: usize, message: String| MeshError::Parse { path: path.to_path_buf(), line, message };
    if raw.cells.is_empty() {
        return Err(err(raw.end, "the file holds no 4-node tetrahedra (element type 4)".into()));
    }
    let lookup = |tag: i64, line: usize| raw.lookup(tag, line, path);
    let mut elements = Vec::with_capacity(raw.cells.len());
    for (tags, line) in &raw.cells {
        elements.push([
            lookup(tags[0], *line)?,
            lookup(tags[1], *line)?,
            lookup(tags[2], *line)?,
            lookup(tags[3], *line)?,
        ]);
    }
    let (tag_names, boundary_tags) = boundary_groups(&raw, |tags, line| {
        let mut key = [lookup(tags[0], line)?, lookup(tags[1], line)?, lookup(tags[2], line)?];
        key.sort_unstable();
        Ok(key)
    })?;
    let faces = elements.iter().flat_map(|e| {
        [[e[0], e[1], e[2]], [e[0], e[1], e[3]], [e[0], e[2], e[3]], [e[1], e[2], e[3]]].map(|mut f| {
            f.sort_unstable();
            f
        })
    });
    let at = |f: &[usize; 3]| format!("{:?}", f.map(|v| raw.nodes[v]));
    check_faces(faces, &boundary_tags, path, at)?;
    TetMesh::new(raw.nodes, elements, tag_names, boundary_tags).map_err(|e| match e {
        MeshError::Degenerate { element, area, .. } => MeshError::Degenerate {
            element,
            area,
            origin: format!(" (defined at {}:{})", path.display(), raw.cells[element].1),
        },
        other => other,
    })
}

/// Reads a Gmsh hexahedral mesh file.
pub fn read_gmsh_hex(path: impl AsRef<Path>) -> Result<crate::hexmesh::HexMesh, MeshError> {
    let path = path.as_ref();
    read_gmsh_hex_str(&read_text(path)?, path)
}

/// Parses Gmsh text holding a hexahedral mesh (8-node hexahedra in Gmsh's node order; 4-node quadrangles carry
/// boundary tags); `path` is only used in messages.
pub fn read_gmsh_hex_str(text: &str, path: impl AsRef<Path>) -> Result<crate::hexmesh::HexMesh, MeshError> {
    let path = path.as_ref();
    let raw = parse(text, path, CellKind::Hexahedron)?;
    let err = |line: usize, message: String| MeshError::Parse { path: path.to_path_buf(), line, message };
    if raw.cells.is_empty() {
        return Err(err(raw.end, "the file holds no 8-node hexahedra (element type 5)".into()));
    }
    let lookup = |tag: i64, line: usize| raw.lookup(tag, line, path);
    let mut elements = Vec::with_capacity(raw.cells.len());
    for (tags, line) in &raw.cells {
        let mut cell = [0; 8];
        for (slot, &tag) in cell.iter_mut().zip(tags) {
            *slot = lookup(tag, *line)?;
        }
        elements.push(cell);
    }
    let (tag_names, boundary_tags) = boundary_groups(&raw, |tags, line| {
        let mut key = [lookup(tags[0], line)?, lookup(tags[1], line)?, lookup(tags[2], line)?, lookup(tags[3], line)?];
        key.sort_unstable();
        Ok(key)
    })?;
    let faces = elements.iter().flat_map(|e| {
        crate::hexahedron::HEX_FACE_CORNERS.map(|f| {
            let mut key = f.map(|c| e[c]);
            key.sort_unstable();
            key
        })
    });
    let at = |f: &[usize; 4]| format!("{:?}", f.map(|v| raw.nodes[v]));
    check_faces(faces, &boundary_tags, path, at)?;
    crate::hexmesh::HexMesh::new(raw.nodes, elements, tag_names, boundary_tags).map_err(|e| match e {
        MeshError::Degenerate { element, area, origin } => MeshError::Degenerate {
            element,
            area,
            origin: format!("{origin} (defined at {}:{})", path.display(), raw.cells[element].1),
        },
        other => other,
    })
}

/// Checks how elements meet: a face shared by more than two elements (overlapping elements), or — when the file
/// tags boundary faces with physical groups — a face of one element only that no group tags (a gap, or a tangled
/// or overlapping element whose faces match nothing) is an error naming how many and where the first lies.
fn check_faces<K: std::hash::Hash + Eq + Clone>(
    faces: impl Iterator<Item = K>,
    tagged: &HashMap<K, usize>,
    path: &Path,
    at: impl Fn(&K) -> String,
) -> Result<(), MeshError> {
    let mut count: HashMap<K, u32> = HashMap::new();
    for f in faces {
        *count.entry(f).or_insert(0) += 1;
    }
    if let Some((f, n)) = count.iter().find(|(_, &n)| n > 2) {
        return Err(MeshError::Invalid(format!(
            "{}: the face at {} belongs to {n} elements: elements overlap",
            path.display(),
            at(f)
        )));
    }
    if tagged.is_empty() {
        return Ok(());
    }
    let untagged: Vec<&K> = count.iter().filter(|(f, &n)| n == 1 && !tagged.contains_key(*f)).map(|(f, _)| f).collect();
    if let Some(first) = untagged.first() {
        return Err(MeshError::Invalid(format!(
            "{}: {} boundary faces carry no physical group while {} do: the mesh has a gap, or a tangled or \
             overlapping element whose faces match no neighbour (the first at {}); fix the mesh, or give every \
             boundary a physical group",
            path.display(),
            untagged.len(),
            tagged.len(),
            at(first)
        )));
    }
    Ok(())
}

/// Physical groups of the facets as tag names, and each facet's key → tag.
fn boundary_groups<K: std::hash::Hash + Eq>(
    raw: &RawMesh,
    key: impl Fn(&[i64], usize) -> Result<K, MeshError>,
) -> Result<(Vec<String>, HashMap<K, usize>), MeshError> {
    let mut tag_names: Vec<String> = Vec::new();
    let mut tag_of_group: HashMap<i64, usize> = HashMap::new();
    let mut boundary_tags = HashMap::new();
    for (tags, group, line) in &raw.facets {
        let k = key(tags, *line)?;
        let tag = *tag_of_group.entry(*group).or_insert_with(|| {
            tag_names.push(raw.names.get(group).cloned().unwrap_or_else(|| format!("physical-{group}")));
            tag_names.len() - 1
        });
        boundary_tags.insert(k, tag);
    }
    Ok((tag_names, boundary_tags))
}

/// Parses Gmsh text holding a triangle mesh; `path` is only used in messages.
pub fn read_gmsh_str(text: &str, path: impl AsRef<Path>) -> Result<TriMesh, MeshError> {
    let path = path.as_ref();
    let raw = parse(text, path, CellKind::Triangle)?;
    let err = |line: usize, message: String| MeshError::Parse { path: path.to_path_buf(), line, message };
    if raw.cells.is_empty() {
        return Err(err(raw.end, "the file holds no 3-node triangles (element type 2)".into()));
    }
    let lookup = |tag: i64, line: usize| raw.lookup(tag, line, path);
    let mut elements = Vec::with_capacity(raw.cells.len());
    let mut origins = Vec::with_capacity(raw.cells.len());
    for (tags, line) in &raw.cells {
        elements.push([lookup(tags[0], *line)?, lookup(tags[1], *line)?, lookup(tags[2], *line)?]);
        origins.push(format!("{}:{}", path.display(), line));
    }
    let (tag_names, boundary_tags) =
        boundary_groups(&raw, |tags, line| Ok(sorted_pair(lookup(tags[0], line)?, lookup(tags[1], line)?)))?;
    let edges =
        elements.iter().flat_map(|e| [sorted_pair(e[0], e[1]), sorted_pair(e[1], e[2]), sorted_pair(e[2], e[0])]);
    let at = |e: &[usize; 2]| format!("{:?}", e.map(|v| [raw.nodes[v][0], raw.nodes[v][1]]));
    check_faces(edges, &boundary_tags, path, at)?;
    let vertices = raw.nodes.iter().map(|p| [p[0], p[1]]).collect();
    TriMesh::new(vertices, elements, tag_names, boundary_tags, origins)
}

/// The sections of a file whose cells are of `kind`.
fn parse(text: &str, path: &Path, kind: CellKind) -> Result<RawMesh, MeshError> {
    let mut p = Parser { lines: text.lines().enumerate().peekable(), path: path.to_path_buf(), last: 0, kind };
    let mut version = None;
    let mut names: HashMap<i64, String> = HashMap::new();
    let mut entity_physical: HashMap<(i64, i64), i64> = HashMap::new();
    let mut nodes: Option<NodeTable> = None;
    let mut elements_seen = false;
    let mut cells: Vec<(Vec<i64>, usize)> = Vec::new();
    let mut facets: Vec<(Vec<i64>, i64, usize)> = Vec::new();
    while let Some((line_no, header)) = p.next_nonempty() {
        let header = header.trim();
        match header {
            "$MeshFormat" => version = Some(p.mesh_format()?),
            _ if version.is_none() => {
                return Err(p.err_at(line_no, format!("expected `$MeshFormat` first, found `{}`", clip(header))))
            }
            "$PhysicalNames" => names = p.physical_names()?,
            "$Entities" => entity_physical = p.entities()?,
            "$Nodes" => {
                nodes = Some(if version == Some(Version::V41) { p.nodes_41()? } else { p.nodes_22()? });
            }
            "$Elements" => {
                if version == Some(Version::V41) {
                    p.elements_41(&entity_physical, &mut cells, &mut facets)?
                } else {
                    p.elements_22(&mut cells, &mut facets)?
                }
                elements_seen = true;
            }
            h if h.starts_with("$End") => {
                return Err(p.err_at(line_no, format!("`{h}` without a matching section start")))
            }
            h if h.starts_with('$') => p.skip_section(line_no, &h[1..])?,
            other => {
                return Err(
                    p.err_at(line_no, format!("expected a section header like `$Nodes`, found `{}`", clip(other)))
                )
            }
        }
    }
    let end = p.last + 1;
    let Some((index, nodes)) = nodes else {
        return Err(p.err_at(end, "the file has no `$Nodes` section".into()));
    };
    if !elements_seen {
        return Err(p.err_at(end, "the file has no `$Elements` section".into()));
    }
    Ok(RawMesh { index, nodes, cells, facets, names, end })
}
