//! Mesh, solver and backend options shared by `run` and `convergence`.

use anyhow::{bail, Context};
use clap::Args;
use dg_cases::MaxwellCase;
use dg_core::mesh::{read_gmsh, refine_uniform, TriMesh};
use dg_run::formulations::FormulationId;
use dg_run::maxwell_run::RunOptions;
use dg_run::run_options::CommonRunOptions;
use dg_runtime::time::Scheme;
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
    #[arg(long, value_name = "FRACTION", allow_negative_numbers = true)]
    pub perturb: Option<f64>,
}

impl MeshArgs {
    /// Builds the mesh the arguments describe; `default_n` cells per direction when nothing is given.
    pub fn build(&self, case: &dyn MaxwellCase, default_n: usize) -> anyhow::Result<TriMesh> {
        let mesh = match &self.mesh {
            Some(path) => {
                let mesh = read_gmsh(path).with_context(|| format!("cannot use mesh {}", path.display()))?;
                if case.has_exact() {
                    super::exact_domain::ensure_triangles(case.name(), path, &mesh, &case.default_mesh(1, 1)?)?;
                }
                mesh
            }
            None => {
                let nx = self.nx.unwrap_or(default_n);
                let ny = self.ny.unwrap_or(nx);
                if nx == 0 || ny == 0 || nx > 100_000 || ny > 100_000 {
                    bail!("--nx and --ny must be between 1 and 100000 (got {nx} × {ny})");
                }
                // the case's rectangle: two triangles per cell
                let asked = match self.ny {
                    Some(_) => format!("--nx {nx} --ny {ny}"),
                    None => format!("--nx {nx}"),
                };
                self.ensure_refined_fits(2 * nx as u128 * ny as u128, &asked)?;
                case.default_mesh(nx, ny)?
            }
        };
        self.refined_and_perturbed(mesh, refine_uniform)
    }

    /// Refuses `elements` triangles refined `--refine` times when even the least memory they need exceeds what
    /// this machine has available (`asked` names the options that made them).
    fn ensure_refined_fits(&self, elements: u128, asked: &str) -> anyhow::Result<()> {
        self.ensure_refined_kind_fits(crate::memory::ElementKind::Triangle, 4, elements, asked)
    }

    /// [`Self::ensure_refined_fits`] for elements of `kind`, each refinement multiplying them by `factor`.
    pub fn ensure_refined_kind_fits(
        &self,
        kind: crate::memory::ElementKind,
        factor: u128,
        elements: u128,
        asked: &str,
    ) -> anyhow::Result<()> {
        let refine = if self.refine > 0 { format!(" --refine {}", self.refine) } else { String::new() };
        let planned = crate::memory::refined(elements, factor, self.refine);
        crate::memory::ensure_fits(kind, planned, &format!("{asked}{refine}"))
    }

    /// `mesh` refined `--refine` times by `refine`, then perturbed by `--perturb`, each checked first.
    fn refined_and_perturbed(
        &self,
        mut mesh: TriMesh,
        refine: impl Fn(&TriMesh) -> TriMesh,
    ) -> anyhow::Result<TriMesh> {
        if self.refine > 8 {
            bail!("--refine {} would multiply the element count by 4^{}; use at most 8", self.refine, self.refine);
        }
        if let Some(path) = &self.mesh {
            self.ensure_refined_fits(mesh.num_elements() as u128, &format!("--mesh {}", path.display()))?;
        }
        for _ in 0..self.refine {
            mesh = refine(&mesh);
        }
        if let Some(f) = self.perturb {
            if !(0.0..=0.4).contains(&f) {
                bail!("--perturb must be between 0 and 0.4 (got {f})");
            }
            dg_core::mesh::perturb_interior(&mut mesh, f, 1);
        }
        Ok(mesh)
    }
}

/// Time-stepping and flux options.
#[derive(Debug, Clone, Args)]
pub struct SolverArgs {
    /// Time integrator: lsrk45, ssprk3, rk4, ab3 or rk2 [default: lsrk45 for Maxwell, the case's for Euler]
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Option<Scheme>,
    /// Courant number [default: 0.75 of the LSRK45 limit for Maxwell, 0.5 for 3D waves on tetrahedra, 0.3 on
    /// hexahedra, or the scheme's stability limit on the problem when smaller; the case's for Euler, in seed 001's
    /// rule dt = CFL·d_min/(λ_max(2p+1)); 0.8 per sweep for finite volumes]. A value whose step exceeds the
    /// stability limit is refused.
    #[arg(long, value_parser = positive_finite, allow_negative_numbers = true, conflicts_with = "dt")]
    pub cfl: Option<f64>,
    /// Fixed time step instead of the CFL rule (refused above the scheme's stability limit).
    #[arg(long, value_parser = positive_finite, allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Accept a --cfl or --dt above the scheme's stability limit (the run still stops when it blows up).
    #[arg(long)]
    pub allow_unstable: bool,
    /// Bind a boundary tag of the mesh to one of the law's boundary conditions (repeatable; overrides the
    /// case's bindings; `dg laws` lists each law's conditions). A case with an exact solution takes only the
    /// conditions that solution assumes; a tag whose state the case prescribes takes none.
    #[arg(long = "bc", value_name = "TAG=CONDITION", value_parser = parse_binding)]
    pub bc: Vec<(String, String)>,
    /// Maxwell: numerical flux parameter α, 1 upwind, 0 central.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub alpha: f64,
    /// MHD finite-volume cases: turn the GLM divergence cleaning off (c_h = 0), to compare ∇·B with and without.
    #[arg(long)]
    pub no_cleaning: bool,
    /// Euler: numerical flux, numerical_flux (Rusanov), hll_flux or hllc_flux [default: the case's]
    #[arg(long, value_name = "NAME")]
    pub flux: Option<String>,
    /// Euler: Barth–Jespersen limiter with positivity guard (p = 1) on [default: the case's]
    #[arg(long, conflicts_with = "no_limiter")]
    pub limiter: bool,
    /// Euler: limiter off.
    #[arg(long)]
    pub no_limiter: bool,
}

/// `TAG=CONDITION`.
fn parse_binding(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((tag, condition)) if !tag.trim().is_empty() && !condition.trim().is_empty() => {
            Ok((tag.trim().to_string(), condition.trim().to_string()))
        }
        _ => Err(format!("`{s}` is not TAG=CONDITION")),
    }
}

impl SolverArgs {
    /// The `--bc` bindings.
    pub fn bindings(&self) -> std::collections::HashMap<String, String> {
        self.bc.iter().cloned().collect()
    }
}

/// A positive finite number.
pub fn positive_finite(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(format!("must be a positive finite number, got {v}")),
        Err(_) => Err(format!("`{s}` is not a number")),
    }
}

fn parse_scheme(s: &str) -> Result<Scheme, String> {
    Scheme::from_name(s)
        .ok_or_else(|| format!("unknown scheme `{s}`; choose one of {}", Scheme::ALL.map(|s| s.name()).join(", ")))
}

impl SolverArgs {
    /// The options every run takes, from these arguments and the backend's (`output` and `partition` the
    /// defaults: the caller sets them).
    pub fn common(&self, t_end: Option<f64>, backend: &BackendArgs) -> CommonRunOptions {
        CommonRunOptions {
            cfl: self.cfl,
            dt: self.dt,
            t_end,
            allow_unstable: self.allow_unstable,
            boundary: self.bindings(),
            variant: backend.variant.clone(),
            no_tune: backend.no_tune,
            ..CommonRunOptions::default()
        }
    }

    /// Refuses the options of one family of cases given to another, which ran without them and said nothing:
    /// `--alpha` (the Maxwell cases on triangles) and `--no-cleaning` (the MHD finite-volume cases).
    pub fn refuse_other_families(&self, case: &dg_cases::AnyCase) -> anyhow::Result<()> {
        use dg_cases::AnyCase;
        if self.alpha != 1.0 && !matches!(case, AnyCase::Maxwell(_)) {
            bail!(
                "--alpha applies to the Maxwell cases on triangles (their numerical flux's upwinding), not to this one"
            );
        }
        if self.no_cleaning && !matches!(case, AnyCase::Fv(_)) {
            bail!(
                "--no-cleaning applies to the MHD finite-volume cases (their GLM divergence cleaning), not to this one"
            );
        }
        Ok(())
    }

    /// Run options from these arguments.
    pub fn options(&self, t_end: Option<f64>, backend: &BackendArgs) -> anyhow::Result<RunOptions> {
        if !(0.0..=1.0).contains(&self.alpha) {
            bail!("--alpha must be between 0 (central) and 1 (upwind), got {}", self.alpha);
        }
        if self.flux.is_some() || self.limiter || self.no_limiter {
            bail!("--flux and --limiter apply to Euler cases only");
        }
        Ok(RunOptions {
            scheme: self.scheme.unwrap_or(Scheme::Lsrk45),
            alpha: self.alpha,
            common: self.common(t_end, backend),
            ..RunOptions::default()
        })
    }

    /// Options of an Euler run of degree `order` (the case's default when `None`).
    pub fn euler_options(
        &self,
        order: Option<usize>,
        t_end: Option<f64>,
        backend: &BackendArgs,
    ) -> dg_run::euler_run::EulerOptions {
        dg_run::euler_run::EulerOptions {
            order,
            scheme: self.scheme,
            flux: self.flux.clone(),
            limiter: if self.limiter {
                Some(true)
            } else if self.no_limiter {
                Some(false)
            } else {
                None
            },
            common: self.common(t_end, backend),
        }
    }
}

impl MeshArgs {
    /// The mesh of an Euler case: a Gmsh file or the case's own mesh with `--nx` cells, refined by the case's
    /// rule (curved boundaries stay on their curves).
    pub fn build_euler(&self, case: &dyn dg_cases::euler::EulerCase) -> anyhow::Result<TriMesh> {
        if self.ny.is_some() {
            bail!("Euler cases take --nx only (their meshes have a fixed shape)");
        }
        let mesh = match &self.mesh {
            Some(path) => {
                let mesh = read_gmsh(path).with_context(|| format!("cannot use mesh {}", path.display()))?;
                super::exact_domain::ensure_euler_triangles(case, path, &mesh)?;
                mesh
            }
            None => {
                let n = self.nx.unwrap_or_else(|| case.default_cells());
                if n == 0 || n > 20_000 {
                    bail!("--nx must be between 1 and 20000 (got {n})");
                }
                // at least n × n cells of two triangles (n along the shorter side)
                self.ensure_refined_fits(2 * n as u128 * n as u128, &format!("--nx {n}"))?;
                case.default_mesh(n)?
            }
        };
        self.refined_and_perturbed(mesh, |mesh| case.refine(mesh))
    }
}

/// Where a run goes and with which kernels.
#[derive(Debug, Clone, Args)]
pub struct BackendArgs {
    /// Where to run: auto (a CUDA or OpenCL GPU if there is one, else the native CPU), cpu, cuda:N, opencl,
    /// opencl:P:D [default: auto for run, cpu for convergence]
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
    /// The discretisation [default: the one --variant's SPEC is of, where the case runs with it; else the case's:
    /// nodal-tri for Maxwell, modal-tri for Euler (nodal-tri for comparison), nodal-tet for 3D waves]
    #[arg(long, value_enum)]
    pub formulation: Option<FormulationId>,
    /// On a device without a tuning result for this problem, use the formulation's baseline instead of tuning.
    #[arg(long)]
    pub no_tune: bool,
    /// On a device: this kernel variant (SPEC, see `dg variants <law> --formulation F`) instead of the tuning
    /// database's. For helmholtz-square: a preconditioner (jacobi, block-jacobi), the element solve (generated,
    /// cublas-lu), the local width (w64, w128, w256) and/or no-refine (the condensed solve without its refinement
    /// step), e.g. block-jacobi/cublas-lu/w128.
    #[arg(long, value_name = "SPEC")]
    pub variant: Option<String>,
}

impl BackendArgs {
    /// The formulation to use: the one given, which must be among `allowed`; else the one `--variant`'s SPEC is of
    /// (`modal/…`, `tet/…`, `hex/…`, `fv/…`, any other first part the nodal triangles') where it is among `allowed`;
    /// else the first of `allowed`.
    pub fn formulation(&self, case: &str, allowed: &[FormulationId]) -> anyhow::Result<FormulationId> {
        let of_spec = self
            .variant
            .as_deref()
            .map(|spec| FormulationId::named_by_spec(spec).unwrap_or(FormulationId::NodalTri))
            .filter(|f| allowed.contains(f));
        let names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
        let chosen = match self.formulation {
            None => of_spec.unwrap_or(allowed[0]),
            Some(f) if allowed.contains(&f) => f,
            Some(f) => bail!("case `{case}` runs with --formulation {}, not {f}", names.join(" or ")),
        };
        // a SPEC whose first part names another formulation cannot be this run's (it failed later, with the chosen
        // formulation's grammar and no word of why)
        if let Some(spec) = self.variant.as_deref() {
            if let Some(named) = FormulationId::named_by_spec(spec).filter(|&named| named != chosen) {
                bail!(
                    "--variant {spec} is a {named} variant, but case `{case}` runs {chosen} here (it runs with \
                     --formulation {}): `dg variants <law> --formulation {chosen}` lists this run's variants",
                    names.join(" or ")
                );
            }
        }
        Ok(chosen)
    }

    /// Starts preparing the device of `--device` (`default` when not given) in the background.
    pub fn warm_up(&self, default: &str) {
        dg_commands::devices::warm_up(self.device.as_deref().unwrap_or(default));
    }

    /// The device of `--device` (`default` when not given): `None` for the native CPU path.
    pub fn open(&self, default: &str) -> anyhow::Result<Option<Box<dyn dg_runtime::backend::Device>>> {
        super::run::pick_device(self.device.as_deref().unwrap_or(default))
    }
}

/// Looks a case up, with the list of cases in the error.
pub fn find_case(name: &str) -> anyhow::Result<dg_cases::AnyCase> {
    dg_cases::find_any(name)
        .with_context(|| format!("unknown case `{name}`; available: {}", dg_cases::names().join(", ")))
}
