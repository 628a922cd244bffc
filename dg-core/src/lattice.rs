//! The cells of a structured box behind a generated mesh: what a partition into blocks needs to know of it.

/// The cells of a structured box and how the mesh's elements fill them: cell (i, j, k) is cell index
/// `i + n₀·(j + n₁·k)`, and element e lies in cell `e / per_cell` (the generators emit each cell's elements
/// together, cell after cell). A two-dimensional box has one cell across z.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellLattice {
    /// Cells per direction.
    pub cells: [usize; 3],
    /// Directions whose opposite sides are identified.
    pub periodic: [bool; 3],
    /// Elements per cell: 1 for hexahedra, 2 triangles per square, 5 or 6 tetrahedra per cube.
    pub per_cell: usize,
}

impl CellLattice {
    /// The number of elements the lattice describes.
    pub fn elements(&self) -> usize {
        self.cells.iter().product::<usize>() * self.per_cell
    }
}
