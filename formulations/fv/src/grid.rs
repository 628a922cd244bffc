//! A regular grid of nx × ny cells on a rectangle, each direction periodic or closed by one of the law's boundary
//! conditions on either side.

/// What closes one side of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Periodic (the opposite side must be periodic too).
    Periodic,
    /// The law's boundary condition with this index (into `ConservationLaw::boundary_names`).
    Condition(usize),
}

/// The grid. A state holds `nvars` arrays of `nx · ny` cell means, cell (i, j) at `v * nx * ny + j * nx + i`.
#[derive(Debug, Clone, PartialEq)]
pub struct FvGrid {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Lower corner (of the whole grid, for a [`Window`]).
    pub lower: [f64; 2],
    /// Upper corner (of the whole grid, for a [`Window`]).
    pub upper: [f64; 2],
    /// Sides x = lower, x = upper, y = lower, y = upper.
    pub sides: [Side; 4],
    /// Where this grid is rows of a larger one (a band of a run split over ranks), which rows; `None` for a whole
    /// grid.
    pub window: Option<Window>,
}

/// The rows of a larger grid a grid is: its spacing and its cells' centres are computed as that grid's, so that a
/// band steps bit for bit as the whole grid's rows do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The whole grid's rows (between its `lower` and `upper`).
    pub whole_rows: usize,
    /// The whole grid's row of this grid's first row (below 0, or from `whole_rows` on, across a periodic side).
    pub first_row: i64,
}

impl FvGrid {
    /// A periodic grid.
    pub fn periodic(nx: usize, ny: usize, lower: [f64; 2], upper: [f64; 2]) -> Self {
        Self { nx, ny, lower, upper, sides: [Side::Periodic; 4], window: None }
    }

    /// Cell widths (dx, dy).
    pub fn spacing(&self) -> [f64; 2] {
        let rows = self.window.map_or(self.ny, |w| w.whole_rows);
        [(self.upper[0] - self.lower[0]) / self.nx as f64, (self.upper[1] - self.lower[1]) / rows as f64]
    }

    /// The whole grid's row of this grid's row 0 (0 unless a [`Window`]).
    fn first_row(&self) -> i64 {
        self.window.map_or(0, |w| w.first_row)
    }

    /// The lower corner of cell (0, 0) (`lower` but for a [`Window`]).
    pub fn origin(&self) -> [f64; 2] {
        [self.lower[0], self.lower[1] + self.first_row() as f64 * self.spacing()[1]]
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }

    /// Centre of cell (i, j).
    pub fn center(&self, i: usize, j: usize) -> [f64; 2] {
        let [dx, dy] = self.spacing();
        let row = self.first_row() as f64 + j as f64;
        [self.lower[0] + (i as f64 + 0.5) * dx, self.lower[1] + (row + 0.5) * dy]
    }

    /// The cell means of `f(x, q)` sampled at the cell centres (second-order accurate means).
    pub fn sample(&self, nvars: usize, f: impl Fn([f64; 2], &mut [f64])) -> Vec<f64> {
        let n = self.cells();
        let mut q = vec![0.0; nvars * n];
        let mut values = vec![0.0; nvars];
        for j in 0..self.ny {
            for i in 0..self.nx {
                f(self.center(i, j), &mut values);
                for v in 0..nvars {
                    q[v * n + j * self.nx + i] = values[v];
                }
            }
        }
        q
    }

    /// Checks the grid: cells in both directions (at least two), a non-empty finite rectangle, periodic sides in
    /// pairs.
    pub fn check(&self) -> Result<(), String> {
        if self.nx < 2 || self.ny < 1 {
            return Err(format!("a grid needs at least 2 × 1 cells (got {} × {})", self.nx, self.ny));
        }
        if self.window.is_some_and(|w| w.whole_rows < 1) {
            return Err("a window of a grid of no rows".into());
        }
        for d in 0..2 {
            if !(self.lower[d].is_finite() && self.upper[d].is_finite() && self.upper[d] > self.lower[d]) {
                return Err(format!("empty or non-finite rectangle {:?}–{:?}", self.lower, self.upper));
            }
            let (a, b) = (self.sides[2 * d], self.sides[2 * d + 1]);
            if (a == Side::Periodic) != (b == Side::Periodic) {
                return Err(format!("direction {d} is periodic on one side only"));
            }
        }
        Ok(())
    }
}
