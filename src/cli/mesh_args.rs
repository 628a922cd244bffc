//! Mesh and solver options shared by `run` and `convergence`.

use anyhow::{bail, Context};
use clap::Args;
use dg::cases::Case;
use dg::prelude::*;
use std::path::PathBuf;

/// Where the mesh comes from.
#[derive(Debug, Clone, Args)]
pub struct MeshArgs {
    /// Gmsh mesh file (MSH 4.1 or 2.2 ASCII); otherwise the case's structured mesh.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["nx", "ny"])]
    pub mesh: Option<PathBuf>,
    /// Cells in x of the structured mesh.
    #[arg(long, value_name = "N")]
    pub nx: Option<usize>,
    /// Cells in y of the structured mesh (defaults to --nx).
    #[arg(long, value_name = "N")]
    pub ny: Option<usize>,
    /// Refine the mesh uniformly this many times (each triangle into four).
    #[arg(long, default_value_t = 0, value_name = "L")]
    pub refine: usize,
    /// Move interior vertices randomly by up to this fraction of their shortest edge (keeps elements valid).
    #[arg(long, value_name = "FRACTION")]
    pub perturb: Option<f64>,
}

impl MeshArgs {
    /// Builds the mesh the arguments describe; `default_n` cells per direction when nothing is given.
    pub fn build(&self, case: &dyn Case, default_n: usize) -> anyhow::Result<TriMesh> {
        let mut mesh = match &self.mesh {
            Some(path) => read_gmsh(path).with_context(|| format!("cannot use mesh {}", path.display()))?,
            None => {
                let nx = self.nx.unwrap_or(default_n);
                let ny = self.ny.unwrap_or(nx);
                if nx == 0 || ny == 0 || nx > 100_000 || ny > 100_000 {
                    bail!("--nx and --ny must be between 1 and 100000 (got {nx} × {ny})");
                }
                case.default_mesh(nx, ny)?
            }
        };
        if self.refine > 8 {
            bail!("--refine {} would multiply the element count by 4^{}; use at most 8", self.refine, self.refine);
        }
        for _ in 0..self.refine {
            mesh = refine_uniform(&mesh);
        }
        if let Some(f) = self.perturb {
            if !(0.0..=0.4).contains(&f) {
                bail!("--perturb must be between 0 and 0.4 (got {f})");
            }
            dg::dg_core::mesh::perturb_interior(&mut mesh, f, 1);
        }
        Ok(mesh)
    }
}

/// Time-stepping and flux options.
#[derive(Debug, Clone, Args)]
pub struct SolverArgs {
    /// Time integrator: lsrk45, ssprk3, rk4 or ab3.
    #[arg(long, default_value = "lsrk45", value_parser = parse_scheme)]
    pub scheme: Scheme,
    /// Courant number (relative to the LSRK45 stability limit).
    #[arg(long, default_value_t = 0.75)]
    pub cfl: f64,
    /// Fixed time step instead of the CFL rule.
    #[arg(long)]
    pub dt: Option<f64>,
    /// Numerical flux parameter α: 1 upwind, 0 central.
    #[arg(long, default_value_t = 1.0)]
    pub alpha: f64,
}

fn parse_scheme(s: &str) -> Result<Scheme, String> {
    Scheme::from_name(s)
        .ok_or_else(|| format!("unknown scheme `{s}`; choose one of {}", Scheme::ALL.map(|s| s.name()).join(", ")))
}

impl SolverArgs {
    /// Run options from these arguments.
    pub fn options(&self, t_end: Option<f64>) -> anyhow::Result<RunOptions> {
        if !(0.0..=1.0).contains(&self.alpha) {
            bail!("--alpha must be between 0 (central) and 1 (upwind), got {}", self.alpha);
        }
        Ok(RunOptions {
            scheme: self.scheme,
            cfl: self.cfl,
            dt: self.dt,
            t_end,
            alpha: self.alpha,
            ..RunOptions::default()
        })
    }
}

/// Looks a case up, with the list of cases in the error.
pub fn find_case(name: &str) -> anyhow::Result<Box<dyn Case>> {
    dg::cases::find(name)
        .with_context(|| format!("unknown case `{name}`; available: {}", dg::cases::names().join(", ")))
}
