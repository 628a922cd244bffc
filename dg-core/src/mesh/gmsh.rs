//! Reader for Gmsh MSH 4.1 and 2.2 ASCII files: triangle meshes (3-node triangles; 2-node lines carry boundary
//! tags) and tetrahedral meshes (4-node tetrahedra; 3-node triangles carry boundary tags).
//!
//! Physical groups of boundary elements become boundary tags named after `$PhysicalNames` (or `physical-<id>`
//! when a group has no name). Points and lower-dimensional elements without a group are ignored; any other
//! element type is an error. Every error names the file and line.

use super::{sorted_pair, TriMesh};
use crate::mesh3d::TetMesh;
use crate::MeshError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
    let raw = parse(text, path, 3)?;
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
    TetMesh::new(raw.nodes, elements, tag_names, boundary_tags).map_err(|e| match e {
        MeshError::Degenerate { element, area, .. } => MeshError::Degenerate {
            element,
            area,
            origin: format!(" (defined at {}:{})", path.display(), raw.cells[element].1),
        },
        other => other,
    })
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
    let raw = parse(text, path, 2)?;
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
    let vertices = raw.nodes.iter().map(|p| [p[0], p[1]]).collect();
    TriMesh::new(vertices, elements, tag_names, boundary_tags, origins)
}

/// The sections of a file whose cells have dimension `dim` (2: triangles, 3: tetrahedra).
fn parse(text: &str, path: &Path, dim: usize) -> Result<RawMesh, MeshError> {
    let mut p = Parser { lines: text.lines().enumerate().peekable(), path: path.to_path_buf(), last: 0, dim };
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

/// Node tags mapped to their index, and the coordinates.
type NodeTable = (HashMap<i64, usize>, Vec<[f64; 3]>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V22,
    V41,
}

fn clip(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

struct Parser<'a> {
    lines: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'a>>>,
    path: PathBuf,
    last: usize,
    /// Dimension of the cells read (2 or 3).
    dim: usize,
}

impl<'a> Parser<'a> {
    fn err_at(&self, line: usize, message: String) -> MeshError {
        MeshError::Parse { path: self.path.clone(), line, message }
    }

    fn next_nonempty(&mut self) -> Option<(usize, &'a str)> {
        for (i, l) in self.lines.by_ref() {
            self.last = i + 1;
            if !l.trim().is_empty() {
                return Some((i + 1, l));
            }
        }
        None
    }

    /// The next line, which must exist; `what` says what was expected.
    fn line(&mut self, what: &str) -> Result<(usize, &'a str), MeshError> {
        match self.next_nonempty() {
            Some(l) => Ok(l),
            None => Err(self.err_at(self.last + 1, format!("unexpected end of file: expected {what}"))),
        }
    }

    /// The next line split into at least `min` whitespace-separated tokens.
    fn tokens(&mut self, what: &str, min: usize) -> Result<(usize, Vec<&'a str>), MeshError> {
        let (n, l) = self.line(what)?;
        let t: Vec<&str> = l.split_whitespace().collect();
        if t.first().is_some_and(|s| s.starts_with('$')) {
            return Err(self.err_at(n, format!("section ends early: expected {what}, found `{}`", clip(l.trim()))));
        }
        if t.len() < min {
            return Err(self.err_at(n, format!("expected {what} ({min} values), found `{}`", clip(l.trim()))));
        }
        Ok((n, t))
    }

    fn int(&self, line: usize, tok: &str, what: &str) -> Result<i64, MeshError> {
        tok.parse().map_err(|_| self.err_at(line, format!("{what}: `{}` is not an integer", clip(tok))))
    }

    fn count(&self, line: usize, tok: &str, what: &str) -> Result<usize, MeshError> {
        tok.parse().map_err(|_| self.err_at(line, format!("{what}: `{}` is not a non-negative integer", clip(tok))))
    }

    fn real(&self, line: usize, tok: &str, what: &str) -> Result<f64, MeshError> {
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.err_at(line, format!("{what}: `{}` is not a finite number", clip(tok)))),
        }
    }

    fn expect_end(&mut self, section: &str) -> Result<(), MeshError> {
        let (n, l) = self.line(&format!("`$End{section}`"))?;
        if l.trim() != format!("$End{section}") {
            return Err(self.err_at(
                n,
                format!(
                    "expected `$End{section}`, found `{}` (more entries than the section's count says?)",
                    clip(l.trim())
                ),
            ));
        }
        Ok(())
    }

    fn skip_section(&mut self, start: usize, name: &str) -> Result<(), MeshError> {
        let end = format!("$End{name}");
        while let Some((_, l)) = self.next_nonempty() {
            if l.trim() == end {
                return Ok(());
            }
        }
        Err(self.err_at(start, format!("section `${name}` is never closed by `{end}`")))
    }

    fn mesh_format(&mut self) -> Result<Version, MeshError> {
        let (n, t) = self.tokens("`version file-type data-size`", 3)?;
        let version = match t[0] {
            "4.1" => Version::V41,
            "2.2" | "2.1" | "2" | "2.0" => Version::V22,
            other => {
                return Err(
                    self.err_at(n, format!("MSH version {other} is not supported (supported: 4.1 and 2.2 ASCII)"))
                )
            }
        };
        if t[1] != "0" {
            return Err(self.err_at(n, "binary MSH files are not supported; save the mesh as ASCII".into()));
        }
        self.expect_end("MeshFormat")?;
        Ok(version)
    }

    fn physical_names(&mut self) -> Result<HashMap<i64, String>, MeshError> {
        let (n, t) = self.tokens("the number of physical names", 1)?;
        let count = self.count(n, t[0], "number of physical names")?;
        let mut names = HashMap::new();
        for _ in 0..count {
            let (n, t) = self.tokens("`dimension tag \"name\"`", 3)?;
            let tag = self.int(n, t[1], "physical tag")?;
            let name = t[2..].join(" ").trim_matches('"').to_string();
            if name.is_empty() {
                return Err(self.err_at(n, "empty physical name".into()));
            }
            names.insert(tag, name);
        }
        self.expect_end("PhysicalNames")?;
        Ok(names)
    }

    /// `$Entities` of MSH 4.1: maps (dimension, entity tag) to its first physical tag.
    fn entities(&mut self) -> Result<HashMap<(i64, i64), i64>, MeshError> {
        let (n, t) = self.tokens("`numPoints numCurves numSurfaces numVolumes`", 4)?;
        let counts = [
            self.count(n, t[0], "number of points")?,
            self.count(n, t[1], "number of curves")?,
            self.count(n, t[2], "number of surfaces")?,
            self.count(n, t[3], "number of volumes")?,
        ];
        let mut map = HashMap::new();
        for (dim, &count) in counts.iter().enumerate() {
            // points: tag x y z nphys tags…; others: tag minx miny minz maxx maxy maxz nphys tags… nbound …
            let phys_at = if dim == 0 { 4 } else { 7 };
            for _ in 0..count {
                let (n, t) = self.tokens("an entity", phys_at + 1)?;
                let tag = self.int(n, t[0], "entity tag")?;
                let nphys = self.count(n, t[phys_at], "number of physical tags")?;
                if t.len() < phys_at + 1 + nphys {
                    return Err(
                        self.err_at(n, format!("entity {tag} lists {nphys} physical tags but the line is shorter"))
                    );
                }
                if nphys > 0 {
                    let phys = self.int(n, t[phys_at + 1], "physical tag")?;
                    map.insert((dim as i64, tag), phys.abs());
                }
            }
        }
        self.expect_end("Entities")?;
        Ok(map)
    }

    fn node_xyz(&self, n: usize, t: &[&str]) -> Result<[f64; 3], MeshError> {
        Ok([
            self.real(n, t[0], "x coordinate")?,
            self.real(n, t[1], "y coordinate")?,
            self.real(n, t[2], "z coordinate")?,
        ])
    }

    fn nodes_22(&mut self) -> Result<NodeTable, MeshError> {
        let (n, t) = self.tokens("the number of nodes", 1)?;
        let count = self.count(n, t[0], "number of nodes")?;
        let mut index = HashMap::with_capacity(count);
        let mut coords = Vec::with_capacity(count);
        for _ in 0..count {
            let (n, t) = self.tokens("`node-number x y z`", 4)?;
            let tag = self.int(n, t[0], "node number")?;
            if index.insert(tag, coords.len()).is_some() {
                return Err(self.err_at(n, format!("node {tag} is defined twice")));
            }
            coords.push(self.node_xyz(n, &t[1..4])?);
        }
        self.expect_end("Nodes")?;
        Ok((index, coords))
    }

    fn nodes_41(&mut self) -> Result<NodeTable, MeshError> {
        let (n, t) = self.tokens("`numEntityBlocks numNodes minNodeTag maxNodeTag`", 4)?;
        let blocks = self.count(n, t[0], "number of entity blocks")?;
        let total = self.count(n, t[1], "number of nodes")?;
        let mut index = HashMap::with_capacity(total);
        let mut coords = Vec::with_capacity(total);
        for _ in 0..blocks {
            let (n, t) = self.tokens("`entityDim entityTag parametric numNodesInBlock`", 4)?;
            let in_block = self.count(n, t[3], "number of nodes in block")?;
            let mut tags = Vec::with_capacity(in_block);
            for _ in 0..in_block {
                let (n, t) = self.tokens("a node tag", 1)?;
                tags.push((n, self.int(n, t[0], "node tag")?));
            }
            for (tag_line, tag) in tags {
                let (n, t) = self.tokens("`x y z`", 3)?;
                if index.insert(tag, coords.len()).is_some() {
                    return Err(self.err_at(tag_line, format!("node {tag} is defined twice")));
                }
                coords.push(self.node_xyz(n, &t[0..3])?);
            }
        }
        if coords.len() != total {
            return Err(self.err_at(n, format!("header announces {total} nodes, the blocks hold {}", coords.len())));
        }
        self.expect_end("Nodes")?;
        Ok((index, coords))
    }

    /// Nodes of a cell (`Ok(Some((count, true)))`) or of a boundary facet (`(count, false)`); `None` for
    /// elements that are skipped (points, and lines in a tetrahedral mesh).
    fn element_kind(&self, n: usize, ty: i64) -> Result<Option<(usize, bool)>, MeshError> {
        let curved = |ty| {
            Err(self.err_at(n, format!("element type {ty} is a curved (high-order) element; only straight elements (type 2 triangles, type 4 tetrahedra) are supported")))
        };
        match (self.dim, ty) {
            (_, 15) => Ok(None),
            (2, 2) => Ok(Some((3, true))),
            (2, 1) => Ok(Some((2, false))),
            (2, 3) => {
                Err(self.err_at(n, "element type 3 (quadrangle) is not supported: dg reads triangle meshes".into()))
            }
            (2, 4..=7 | 11..=14 | 17..=19) => {
                Err(self.err_at(n, format!("element type {ty} is a 3D element; read the file as a tetrahedral mesh")))
            }
            (3, 4) => Ok(Some((4, true))),
            (3, 2) => Ok(Some((3, false))),
            (3, 1) => Ok(None),
            (3, 3) => Err(self.err_at(
                n,
                "element type 3 (quadrangle) is not supported: dg reads tetrahedral meshes with triangle faces".into(),
            )),
            (3, 5..=7) => Err(self.err_at(
                n,
                format!(
                    "element type {ty} (hexahedron, prism or pyramid) is not supported: dg reads tetrahedral meshes"
                ),
            )),
            (_, 8 | 9 | 10 | 11 | 16 | 21 | 29) => curved(ty),
            _ => Err(self.err_at(
                n,
                format!(
                    "element type {ty} is not supported (expected {})",
                    if self.dim == 2 {
                        "2: triangle, 1: line, 15: point"
                    } else {
                        "4: tetrahedron, 2: triangle, 1: line, 15: point"
                    }
                ),
            )),
        }
    }

    fn element_nodes(&self, n: usize, t: &[&str]) -> Result<Vec<i64>, MeshError> {
        t.iter().map(|tok| self.int(n, tok, "node reference")).collect()
    }

    fn elements_22(
        &mut self,
        cells: &mut Vec<(Vec<i64>, usize)>,
        facets: &mut Vec<(Vec<i64>, i64, usize)>,
    ) -> Result<(), MeshError> {
        let (n, t) = self.tokens("the number of elements", 1)?;
        let count = self.count(n, t[0], "number of elements")?;
        for _ in 0..count {
            let (n, t) = self.tokens("`number type ntags tags… nodes…`", 3)?;
            let ty = self.int(n, t[1], "element type")?;
            let ntags = self.count(n, t[2], "number of tags")?;
            let Some((nn, is_cell)) = self.element_kind(n, ty)? else { continue };
            let first = 3 + ntags;
            if t.len() != first + nn {
                return Err(self.err_at(
                    n,
                    format!("element of type {ty} with {ntags} tags needs {} values, found {}", first + nn, t.len()),
                ));
            }
            let phys = if ntags > 0 { self.int(n, t[3], "physical tag")? } else { 0 };
            let nodes = self.element_nodes(n, &t[first..])?;
            if is_cell {
                cells.push((nodes, n));
            } else if phys != 0 {
                facets.push((nodes, phys, n));
            }
        }
        self.expect_end("Elements")
    }

    fn elements_41(
        &mut self,
        entity_physical: &HashMap<(i64, i64), i64>,
        cells: &mut Vec<(Vec<i64>, usize)>,
        facets: &mut Vec<(Vec<i64>, i64, usize)>,
    ) -> Result<(), MeshError> {
        let (n0, t) = self.tokens("`numEntityBlocks numElements minElementTag maxElementTag`", 4)?;
        let blocks = self.count(n0, t[0], "number of entity blocks")?;
        let total = self.count(n0, t[1], "number of elements")?;
        let mut seen = 0;
        for _ in 0..blocks {
            let (n, t) = self.tokens("`entityDim entityTag elementType numElementsInBlock`", 4)?;
            let dim = self.int(n, t[0], "entity dimension")?;
            let entity = self.int(n, t[1], "entity tag")?;
            let ty = self.int(n, t[2], "element type")?;
            let in_block = self.count(n, t[3], "number of elements in block")?;
            let kind = self.element_kind(n, ty)?;
            let phys = entity_physical.get(&(dim, entity)).copied();
            for _ in 0..in_block {
                let need = 1 + kind.map_or(1, |(nn, _)| nn);
                let (n, t) = self.tokens("`elementTag nodeTags…`", need)?;
                if t.len() != need {
                    return Err(self.err_at(n, format!("element of type {ty} needs {need} values, found {}", t.len())));
                }
                self.int(n, t[0], "element tag")?;
                match kind {
                    Some((_, true)) => cells.push((self.element_nodes(n, &t[1..])?, n)),
                    Some((_, false)) => {
                        if let Some(p) = phys {
                            facets.push((self.element_nodes(n, &t[1..])?, p, n));
                        }
                    }
                    None => {}
                }
                seen += 1;
            }
        }
        if seen != total {
            return Err(self.err_at(n0, format!("header announces {total} elements, the blocks hold {seen}")));
        }
        self.expect_end("Elements")
    }
}
