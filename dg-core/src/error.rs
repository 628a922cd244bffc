//! Typed errors of dg-core.

use std::path::PathBuf;

/// Errors of the reference-element and operator constructions.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The requested polynomial order is outside the supported range.
    #[error("polynomial order {order} is not supported (supported: {min}..={max})")]
    UnsupportedOrder {
        /// The order asked for.
        order: usize,
        /// Smallest supported order.
        min: usize,
        /// Largest supported order.
        max: usize,
    },
    /// A matrix that must be invertible is singular (should not happen for valid node sets).
    #[error("matrix `{0}` is singular")]
    Singular(&'static str),
    /// A state vector does not have the length of the space it is used on.
    #[error("a state of {got} values where the space needs {expected}")]
    StateLength {
        /// Its length.
        got: usize,
        /// The length the space needs.
        expected: usize,
    },
    /// Writing output failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
}

/// Errors found while building, reading or checking a mesh. Each names the element, face or file line.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The mesh file cannot be read.
    #[error("cannot read mesh file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The mesh file is malformed at a given line.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file (or `<string>` for in-memory input).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// An element has (nearly) zero area.
    #[error("element {element} is degenerate (area {area:e}){origin}")]
    Degenerate {
        /// Index of the element in the mesh (0-based).
        element: usize,
        /// Its signed area.
        area: f64,
        /// Where the element came from (e.g. a file line), or empty.
        origin: String,
    },
    /// An element is oriented against the rest of the mesh (folded mesh).
    #[error("element {element} is inverted: its orientation is opposite to the mesh's{origin}")]
    Inverted {
        /// Index of the element (0-based).
        element: usize,
        /// Where the element came from, or empty.
        origin: String,
    },
    /// More than two elements share one face.
    #[error("face ({a}, {b}) is non-manifold: shared by elements {elements:?}{origins}")]
    NonManifold {
        /// First vertex of the face.
        a: usize,
        /// Second vertex of the face.
        b: usize,
        /// The elements sharing it.
        elements: Vec<usize>,
        /// Where those elements were defined, or empty.
        origins: String,
    },
    /// A vertex lies inside a face of another element (hanging node).
    #[error("face {face} of element {element} is non-conforming: vertex {vertex} lies inside it{origin}")]
    NonConforming {
        /// The element owning the face.
        element: usize,
        /// Local face index (0..3).
        face: usize,
        /// The hanging vertex.
        vertex: usize,
        /// Where the element was defined, or empty.
        origin: String,
    },
    /// Nodes of two matched faces do not coincide.
    #[error("faces of elements {element} and {neighbor} are paired but their nodes do not match")]
    NodeMismatch {
        /// One element.
        element: usize,
        /// The other.
        neighbor: usize,
    },
    /// A mesh description is invalid (bad sizes, out-of-range vertex, …).
    #[error("invalid mesh: {0}")]
    Invalid(String),
}
