//! The sections of a Gmsh MSH file (`$MeshFormat`, `$PhysicalNames`, `$Entities`, `$Nodes`, `$Elements`), line
//! by line, for [`super::gmsh`].

use crate::MeshError;
use std::collections::HashMap;
use std::path::PathBuf;

/// The most entries a reader reserves from a count in a file before it has seen them (a file cannot make the
/// reader allocate more than its own data needs).
const PREALLOCATE: usize = 4096;

/// Node tags mapped to their index, and the coordinates.
pub(super) type NodeTable = (HashMap<i64, usize>, Vec<[f64; 3]>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Version {
    V22,
    V41,
}

pub(super) fn clip(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

pub(super) struct Parser<'a> {
    pub(super) lines: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'a>>>,
    pub(super) path: PathBuf,
    pub(super) last: usize,
    /// The cells read.
    pub(super) kind: CellKind,
}

/// The cells a mesh file is read for; the other element types are facets that carry boundary tags, skipped, or
/// refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CellKind {
    /// 3-node triangles (type 2), with 2-node lines (type 1) as facets.
    Triangle,
    /// 4-node tetrahedra (type 4), with 3-node triangles (type 2) as facets.
    Tetrahedron,
    /// 8-node hexahedra (type 5), with 4-node quadrangles (type 3) as facets.
    Hexahedron,
}

impl<'a> Parser<'a> {
    pub(super) fn err_at(&self, line: usize, message: String) -> MeshError {
        MeshError::Parse { path: self.path.clone(), line, message }
    }

    pub(super) fn next_nonempty(&mut self) -> Option<(usize, &'a str)> {
        for (i, l) in self.lines.by_ref() {
            self.last = i + 1;
            if !l.trim().is_empty() {
                return Some((i + 1, l));
            }
        }
        None
    }

    /// The next line, which must exist; `what` says what was expected.
    pub(super) fn line(&mut self, what: &str) -> Result<(usize, &'a str), MeshError> {
        match self.next_nonempty() {
            Some(l) => Ok(l),
            None => Err(self.err_at(self.last + 1, format!("unexpected end of file: expected {what}"))),
        }
    }

    /// The next line split into at least `min` whitespace-separated tokens.
    pub(super) fn tokens(&mut self, what: &str, min: usize) -> Result<(usize, Vec<&'a str>), MeshError> {
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

    pub(super) fn int(&self, line: usize, tok: &str, what: &str) -> Result<i64, MeshError> {
        tok.parse().map_err(|_| self.err_at(line, format!("{what}: `{}` is not an integer", clip(tok))))
    }

    pub(super) fn count(&self, line: usize, tok: &str, what: &str) -> Result<usize, MeshError> {
        tok.parse().map_err(|_| self.err_at(line, format!("{what}: `{}` is not a non-negative integer", clip(tok))))
    }

    pub(super) fn real(&self, line: usize, tok: &str, what: &str) -> Result<f64, MeshError> {
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.err_at(line, format!("{what}: `{}` is not a finite number", clip(tok)))),
        }
    }

    pub(super) fn expect_end(&mut self, section: &str) -> Result<(), MeshError> {
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

    pub(super) fn skip_section(&mut self, start: usize, name: &str) -> Result<(), MeshError> {
        let end = format!("$End{name}");
        while let Some((_, l)) = self.next_nonempty() {
            if l.trim() == end {
                return Ok(());
            }
        }
        Err(self.err_at(start, format!("section `${name}` is never closed by `{end}`")))
    }

    pub(super) fn mesh_format(&mut self) -> Result<Version, MeshError> {
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

    pub(super) fn physical_names(&mut self) -> Result<HashMap<i64, String>, MeshError> {
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
    pub(super) fn entities(&mut self) -> Result<HashMap<(i64, i64), i64>, MeshError> {
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
                if t.len() - (phys_at + 1) < nphys {
                    return Err(
                        self.err_at(n, format!("entity {tag} lists {nphys} physical tags but the line is shorter"))
                    );
                }
                if nphys > 0 {
                    let phys = self.int(n, t[phys_at + 1], "physical tag")?;
                    let Some(phys) = phys.checked_abs() else {
                        return Err(self.err_at(n, format!("physical tag {phys} is out of range")));
                    };
                    map.insert((dim as i64, tag), phys);
                }
            }
        }
        self.expect_end("Entities")?;
        Ok(map)
    }

    pub(super) fn node_xyz(&self, n: usize, t: &[&str]) -> Result<[f64; 3], MeshError> {
        Ok([
            self.real(n, t[0], "x coordinate")?,
            self.real(n, t[1], "y coordinate")?,
            self.real(n, t[2], "z coordinate")?,
        ])
    }

    pub(super) fn nodes_22(&mut self) -> Result<NodeTable, MeshError> {
        let (n, t) = self.tokens("the number of nodes", 1)?;
        let count = self.count(n, t[0], "number of nodes")?;
        let mut index = HashMap::with_capacity(count.min(PREALLOCATE));
        let mut coords = Vec::with_capacity(count.min(PREALLOCATE));
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

    pub(super) fn nodes_41(&mut self) -> Result<NodeTable, MeshError> {
        let (n, t) = self.tokens("`numEntityBlocks numNodes minNodeTag maxNodeTag`", 4)?;
        let blocks = self.count(n, t[0], "number of entity blocks")?;
        let total = self.count(n, t[1], "number of nodes")?;
        let mut index = HashMap::with_capacity(total.min(PREALLOCATE));
        let mut coords = Vec::with_capacity(total.min(PREALLOCATE));
        for _ in 0..blocks {
            let (n, t) = self.tokens("`entityDim entityTag parametric numNodesInBlock`", 4)?;
            let in_block = self.count(n, t[3], "number of nodes in block")?;
            let mut tags = Vec::with_capacity(in_block.min(PREALLOCATE));
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
    pub(super) fn element_kind(&self, n: usize, ty: i64) -> Result<Option<(usize, bool)>, MeshError> {
        let curved = |ty| {
            Err(self.err_at(n, format!("element type {ty} is a curved (high-order) element; only straight elements (type 2 triangles, type 4 tetrahedra, type 5 hexahedra) are supported")))
        };
        use CellKind::{Hexahedron, Tetrahedron, Triangle};
        match (self.kind, ty) {
            (_, 15) => Ok(None),
            (Triangle, 2) => Ok(Some((3, true))),
            (Triangle, 1) => Ok(Some((2, false))),
            (Triangle, 3) => {
                Err(self.err_at(n, "element type 3 (quadrangle) is not supported: dg reads triangle meshes".into()))
            }
            (Triangle, 4..=7 | 11..=14 | 17..=19) => {
                Err(self.err_at(n, format!("element type {ty} is a 3D element; read the file as a tetrahedral mesh")))
            }
            (Tetrahedron, 4) => Ok(Some((4, true))),
            (Tetrahedron, 2) => Ok(Some((3, false))),
            (Tetrahedron | Hexahedron, 1 | 8 | 26..=28) => Ok(None),
            (Tetrahedron, 3) => Err(self.err_at(
                n,
                "element type 3 (quadrangle) is not supported: dg reads tetrahedral meshes with triangle faces".into(),
            )),
            (Tetrahedron, 5) => Err(self.err_at(
                n,
                "element type 5 (hexahedron) in a tetrahedral mesh: hexahedral meshes are read by the hexahedral \
                 cases (maxwell3d-plane-wave, maxwell3d-cavity, euler3d-density-wave)"
                    .into(),
            )),
            (Tetrahedron, 6 | 7) => Err(self.err_at(
                n,
                format!("element type {ty} (prism or pyramid) is not supported: dg reads tetrahedral meshes"),
            )),
            (Hexahedron, 5) => Ok(Some((8, true))),
            (Hexahedron, 3) => Ok(Some((4, false))),
            (Hexahedron, 2 | 4 | 6 | 7) => Err(self.err_at(
                n,
                format!(
                    "element type {ty} (a simplex, prism or pyramid) in a hexahedral mesh: dg reads meshes of 8-node \
                     hexahedra (type 5) whose boundary faces are quadrangles (type 3)"
                ),
            )),
            (_, 8 | 9 | 10 | 11 | 12 | 16 | 17 | 21 | 29) => curved(ty),
            _ => Err(self.err_at(
                n,
                format!(
                    "element type {ty} is not supported (expected {})",
                    match self.kind {
                        Triangle => "2: triangle, 1: line, 15: point",
                        Tetrahedron => "4: tetrahedron, 2: triangle, 1: line, 15: point",
                        Hexahedron => "5: hexahedron, 3: quadrangle, 1: line, 15: point",
                    }
                ),
            )),
        }
    }

    pub(super) fn element_nodes(&self, n: usize, t: &[&str]) -> Result<Vec<i64>, MeshError> {
        t.iter().map(|tok| self.int(n, tok, "node reference")).collect()
    }

    pub(super) fn elements_22(
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
            let first = 3usize.saturating_add(ntags);
            match first.checked_add(nn) {
                Some(need) if t.len() == need => {}
                Some(need) => {
                    return Err(self.err_at(
                        n,
                        format!("element of type {ty} with {ntags} tags needs {need} values, found {}", t.len()),
                    ))
                }
                None => {
                    return Err(self.err_at(n, format!("element of type {ty}: {ntags} tags cannot fit on one line")))
                }
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

    pub(super) fn elements_41(
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
                // an element type the mesh does not use is skipped whatever its node count
                let need = 1 + kind.map_or(1, |(nn, _)| nn);
                let (n, t) = self.tokens("`elementTag nodeTags…`", need)?;
                if kind.is_some() && t.len() != need {
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
