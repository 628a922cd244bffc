//! `dg devices`, `dg variants`, `dg emit`, `dg verify`: the generated kernels as a user inspects them.

use anyhow::{anyhow, bail, Context};
use clap::{Args, ValueEnum};
use dg_codegen::{DeviceLimits, Precision, Target};
use dg_commands::verify::verify_law;
pub use dg_commands::verify::VerifyRun;
pub use dg_commands::PrecisionArg;
use dg_run::formulations::FormulationId;
use dg_run::registry::LawCommands;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{Device, DeviceSelector};
use dg_runtime::formulation::{Formulation, LawCall};

/// Kernel language on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TargetArg {
    /// CUDA C.
    Cuda,
    /// OpenCL C.
    Opencl,
}

/// Arguments of `dg devices`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg devices\n  dg devices --json\n  dg devices --measure   # store memory bandwidth and FMA peak for the roofline"
)]
pub struct DevicesArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Measure each device's ceilings (memory bandwidth, FMA throughput) and store them with the device in the
    /// user's tuning database, where `dg autotune` and `dg bench` take their roofline from.
    #[arg(long)]
    pub measure: bool,
}

/// Arguments of `dg variants`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg variants maxwell2d --order 4\n  dg variants euler2d --order 3 --formulation modal-tri --precision f64\n  dg variants acoustics3d --order 4\n  dg variants maxwell2d --order 8 --device cuda:0   (the rules at this GPU's limits: its tensor-core kernels too)"
)]
pub struct VariantsArgs {
    /// Law (see `dg laws`).
    pub law: String,
    /// Polynomial order.
    #[arg(long)]
    pub order: usize,
    /// Formulation [default: nodal-tri for 2D laws, nodal-tet for 3D laws].
    #[arg(long, value_enum)]
    pub formulation: Option<FormulationId>,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    pub precision: PrecisionArg,
    /// Apply this device's limits (auto, cuda:N, opencl, opencl:P:D: its local memory, work-group size, tensor
    /// cores, BLAS), as `dg verify` and `dg autotune` do [default: a minimal device's: 32 KiB local memory, 256 work
    /// items, no tensor cores, no BLAS].
    #[arg(long)]
    pub device: Option<DeviceSelector>,
}

/// Arguments of `dg emit`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg emit maxwell2d --order 4 --variant node/mb1/seq1/field-local/fused/elem-major/f32 --target cuda\n  dg emit euler2d --order 2 --variant elem/wg128/seq1/matrix-const/split/node-major/f64 --target opencl --flux hllc_flux\n  dg emit euler2d --order 3 --formulation modal-tri --variant modal/wg128/element/const/mode-major/f64 --flux hllc_flux\n  dg emit elastic3d --order 4 --variant tet/node/v2/s1/u2/f32 --target opencl"
)]
pub struct EmitArgs {
    /// Law.
    pub law: String,
    /// Polynomial order.
    #[arg(long)]
    pub order: usize,
    /// Formulation [default: from the SPEC's first part (`modal/…`, `tet/…`), else by the law's dimension].
    #[arg(long, value_enum)]
    pub formulation: Option<FormulationId>,
    /// Variant SPEC (see `dg variants`; refused where the rules reject it for the law) [default: the
    /// formulation's baseline in f32, or the law's first valid variant where the rules reject the baseline]. A
    /// tetrahedral SPEC prints the whole program of its precision (every strategy's kernels).
    #[arg(long)]
    pub variant: Option<String>,
    /// Kernel language.
    #[arg(long, value_enum, default_value_t = TargetArg::Cuda)]
    pub target: TargetArg,
    /// Numerical flux (default: the law's first).
    #[arg(long)]
    pub flux: Option<String>,
}

/// Arguments of `dg verify`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg verify maxwell2d --order 3\n  dg verify euler2d --order 1..8 --precision both --device opencl --json\n  dg verify euler2d --formulation modal-tri --order 1..5 --device cuda:0\n  dg verify acoustics3d --order 1..4 --device opencl"
)]
pub struct VerifyArgs {
    /// Law.
    pub law: String,
    /// Order or range of orders (A..B) [default: the formulation's orders within 1..8: 1..2 for finite volumes]
    #[arg(long)]
    pub order: Option<String>,
    /// Formulation [default: from --variant's first part (`modal/…`, `tet/…`), else nodal-tri for 2D laws, nodal-tet
    /// for 3D laws].
    #[arg(long, value_enum)]
    pub formulation: Option<FormulationId>,
    /// Device: auto, cuda:N, opencl, opencl:P:D.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSelector,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::Both)]
    pub precision: PrecisionArg,
    /// Only this variant (SPEC) instead of every valid one, in the SPEC's precision (a --precision naming the
    /// other one is refused); a SPEC whose first part names a formulation (`modal/…`, `tet/…`, `hex/…`, `fv/…`)
    /// chooses it when --formulation is not given.
    #[arg(long)]
    pub variant: Option<String>,
    /// Numerical flux the kernels evaluate (default: the law's first).
    #[arg(long)]
    pub flux: Option<String>,
    /// Self-test of verification: compile every kernel with this bug planted; verification must then fail (and
    /// the command exit non-zero; it exits non-zero too, saying so, when every variant passes). skip-last-group:
    /// kernels return in their last work group; last-element-unwritten: kernels see one element fewer;
    /// wrong-stride: the layout's stride (MBF of element-major and tiled nodal variants, VSTRIDE of element-major and tiled modal ones,
    /// LDQ of the tetrahedral kernels, CSTRIDE of the hexahedral ones) is one too small; stage-register-dropped (nodal triangles, the variants that fold a low-storage stage into their
    /// store: merged surface, except f64 element-per-work-item kernels from N = 3): the folded stage writes L into
    /// the register instead of a·r + c·L; source-dropped (a law with a source term): the law's source function
    /// returns zero.
    #[arg(long, value_enum, value_name = "BUG")]
    pub plant_bug: Option<BugArg>,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
}

/// A bug `dg verify --plant-bug` plants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BugArg {
    /// Every kernel returns in its last work group.
    SkipLastGroup,
    /// Every kernel believes there is one element fewer.
    LastElementUnwritten,
    /// The state layout's stride is one too small.
    WrongStride,
    /// Nodal triangles: the low-storage stage folded into the merged kernels' store writes L into the register
    /// instead of a·r + c·L (the right-hand side itself stays right).
    StageRegisterDropped,
    /// A law with a source term: its source function returns zero, as if the kernels left the source out.
    SourceDropped,
}

/// Parses `N` or `A..B`.
pub fn parse_orders(s: &str) -> anyhow::Result<Vec<usize>> {
    let p = |t: &str| t.trim().parse::<usize>().map_err(|_| anyhow!("`{t}` is not an order"));
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (p(a)?, p(b.trim_start_matches('='))?),
        None => (p(s)?, p(s)?),
    };
    if a > b || b > MAX_ANY_ORDER {
        bail!("orders are N or A..B with A ≤ B ≤ {MAX_ANY_ORDER} (got {s})");
    }
    Ok((a..=b).collect())
}

/// Above every formulation's highest order: a range past it is refused before it is listed.
const MAX_ANY_ORDER: usize = 64;

/// Refuses, before any device is opened, an order the formulation does not discretise (triangles and tetrahedra
/// 1..=10, hexahedra 0..=15, finite volumes 1..=2).
pub fn check_orders(formulation: FormulationId, orders: &[usize]) -> anyhow::Result<()> {
    let range = formulation.get().orders();
    match orders.iter().find(|o| !range.contains(o)) {
        Some(bad) => {
            bail!("the {formulation} formulation takes orders {}..={} (got {bad})", range.start(), range.end())
        }
        None => Ok(()),
    }
}

/// Refuses, before any device is opened, a law the formulation does not take (another dimension, a flux it cannot take),
/// with the formulation's reason.
pub fn check_law(formulation: FormulationId, law: &dyn LawCommands) -> anyhow::Result<()> {
    let ir = law.ir()?;
    formulation
        .get()
        .supports(&ir)
        .map_err(|reason| anyhow!("the {formulation} formulation cannot run law `{}`: {reason}", law.name()))
}

/// The orders asked for (`text`: N or A..B), or the formulation's own within 1..8; refused, before any device is
/// opened, where the formulation does not discretise them.
pub fn orders_or_own(text: Option<&str>, formulation: FormulationId) -> anyhow::Result<Vec<usize>> {
    let orders = match text {
        Some(text) => parse_orders(text)?,
        None => formulation.get().orders().filter(|o| (1..=8).contains(o)).collect(),
    };
    check_orders(formulation, &orders)?;
    Ok(orders)
}

/// Lists devices (and with `--measure` stores each one's ceilings).
pub fn devices(args: DevicesArgs) -> anyhow::Result<()> {
    Ok(dg_commands::devices::list(args.measure, args.json)?)
}

/// The formulation of a kernel command: the one named, else by the law's dimension.
pub fn formulation_of(named: Option<FormulationId>, law: &dyn LawCommands) -> FormulationId {
    named.unwrap_or_else(|| FormulationId::default_for(law.dim()))
}

/// The formulation of a kernel command given a variant SPEC: the one named, else the one the SPEC's first part names
/// (`modal/…`, `tet/…`, `hex/…`, `fv/…`), else by the law's dimension.
pub fn formulation_of_spec(named: Option<FormulationId>, spec: Option<&str>, law: &dyn LawCommands) -> FormulationId {
    formulation_of(named.or_else(|| spec.and_then(FormulationId::named_by_spec)), law)
}

/// The numerical fluxes a law offers, in declaration order (the first is its default).
fn flux_names(ir: &dg_ir::LawIr) -> Vec<String> {
    ir.functions.iter().filter_map(|(_, f)| f.name.strip_prefix("numerical_flux:").map(str::to_string)).collect()
}

/// Lists valid and rejected variants.
pub fn variants(args: VariantsArgs) -> anyhow::Result<()> {
    let law = dg_run::registry::law(&args.law)?;
    let formulation = formulation_of(args.formulation, law);
    let f = formulation.get();
    check_law(formulation, law)?;
    check_orders(formulation, &[args.order])?;
    let inputs = dg_commands::KernelInputs::of(law, None)?;
    let call = inputs.call();
    let (limits, whose) = match &args.device {
        None => (
            DeviceLimits::default(),
            "limits of a minimal device: 32 KiB local memory, 256 work items, no tensor cores, no BLAS; `dg verify` \
             and `dg autotune` apply the device's own (--device)"
                .to_string(),
        ),
        Some(selector) => {
            let mut device = open_device(selector)?;
            let limits = dg_commands::limits_of(device.as_mut());
            let fp = device.fingerprint();
            let whose = limits_text(&format!("{} ({})", fp.name, fp.selector), &limits);
            (limits, whose)
        }
    };
    for precision in args.precision.list() {
        let all = f.variants(&call, args.order, precision, &limits);
        // the valid variants, each with whether a search visits it
        let valid: Vec<(&String, bool)> =
            all.iter().filter(|(_, r)| r.is_none()).map(|(v, _)| (v, f.searched_at(v, args.order))).collect();
        let left_out = match valid.iter().filter(|(_, searched)| !searched).count() {
            0 => String::new(),
            n => format!(" ({n} left out of a search)"),
        };
        println!(
            "{} {formulation} N={} {:?}: {} valid{left_out}, {} rejected ({whose})",
            args.law,
            args.order,
            precision,
            valid.len(),
            all.len() - valid.len()
        );
        for (v, searched) in valid {
            match searched {
                true => println!("  valid     {v}"),
                false => println!("  valid     {v}  (left out of a search: `dg autotune --every-variant` meets it)"),
            }
        }
        for (v, reason) in all.iter().filter_map(|(v, r)| r.as_ref().map(|r| (v, r))) {
            println!("  rejected  {v}: {}", rule_reason(reason));
        }
    }
    Ok(())
}

/// What `dg variants` says of a device's limits: its name, local memory, work-group size, tensor cores and BLAS.
fn limits_text(device: &str, limits: &DeviceLimits) -> String {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    format!(
        "limits of {device}: {} KiB local memory, {} work items, tensor cores {} (f64 m16 shapes {}), BLAS {}",
        limits.local_memory / 1024,
        limits.max_work_group,
        yes_no(limits.tensor_cores),
        yes_no(limits.f64_mma_m16),
        yes_no(limits.blas)
    )
}

/// A rule's reason without the "variant … is rejected: " the formulations' errors start with.
fn rule_reason(reason: &str) -> &str {
    reason.split_once(" is rejected: ").map_or(reason, |(_, why)| why)
}

/// Prints the generated source of one variant of any formulation, for any registered law.
pub fn emit(args: EmitArgs) -> anyhow::Result<()> {
    let law = dg_run::registry::law(&args.law)?;
    let formulation = formulation_of_spec(args.formulation, args.variant.as_deref(), law);
    let f = formulation.get();
    let ir = law.ir()?;
    check_law(formulation, law)?;
    check_orders(formulation, &[args.order])?;
    let (params, _) = law.kernel_inputs();
    let names = flux_names(&ir);
    let flux = args.flux.clone().or_else(|| names.first().cloned()).context("the law has no numerical flux")?;
    if !names.contains(&flux) {
        bail!("law `{}` has no numerical flux `{flux}`; it has {}", args.law, names.join(", "));
    }
    let target = match args.target {
        TargetArg::Cuda => Target::Cuda,
        TargetArg::Opencl => Target::OpenCl,
    };
    let call = LawCall { ir: &ir, params: &params, numerical_flux: &flux };
    let spec = emitted_variant(f, &call, &args, formulation)?;
    print!("{}", f.emit(&call, args.order, &spec, target)?);
    Ok(())
}

/// The SPEC `dg emit` prints: the one asked for, refused where the rules reject it for this law and order on any
/// current GPU (tensor cores and a BLAS granted); else the formulation's baseline, or — where the rules reject the
/// baseline for this law (a surface the law's flux cannot share, say) — the first variant valid on the minimal
/// device, with a line on stderr saying so.
fn emitted_variant(
    f: &dyn Formulation,
    call: &LawCall<'_>,
    args: &EmitArgs,
    formulation: FormulationId,
) -> anyhow::Result<String> {
    let gpu = DeviceLimits { tensor_cores: true, f64_mma_m16: true, blas: true, ..DeviceLimits::current_gpu() };
    let rejection = |spec: &str, precision: Precision, limits: &DeviceLimits| {
        f.variants(call, args.order, precision, limits)
            .into_iter()
            .find(|(v, _)| v == spec)
            .and_then(|(_, r)| r.map(|r| rule_reason(&r).to_string()))
    };
    if let Some(spec) = &args.variant {
        let precision = if spec.contains("/f64") { Precision::F64 } else { Precision::F32 };
        if let Some(reason) = rejection(spec, precision, &gpu) {
            bail!(
                "variant `{spec}` is not valid for law `{}` ({formulation}, N={}): {reason}\n`dg variants {} \
                 --formulation {formulation} --order {}` lists the valid ones",
                args.law,
                args.order,
                args.law,
                args.order
            );
        }
        return Ok(spec.clone());
    }
    let baseline = f.default_variant(Precision::F32);
    // one evaluation of the space on the minimal device: the baseline's verdict and, where it is rejected, the first
    // variant the rules accept
    let space = f.variants(call, args.order, Precision::F32, &DeviceLimits::default());
    let verdict = space.iter().find(|(v, _)| *v == baseline).and_then(|(_, r)| r.as_deref().map(rule_reason));
    let Some(reason) = verdict else { return Ok(baseline) };
    let first =
        space.iter().find(|(_, r)| r.is_none()).map(|(v, _)| v.clone()).with_context(|| {
            format!("no variant of {formulation} is valid for law `{}` at N={}", args.law, args.order)
        })?;
    eprintln!("the baseline `{baseline}` is not valid for law `{}`: {reason}; showing `{first}`", args.law);
    Ok(first)
}

/// Verifies every valid variant on a device (with a planted bug, on a device that compiles broken kernels).
pub fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let law = dg_run::registry::law(&args.law)?;
    let formulation = formulation_of_spec(args.formulation, args.variant.as_deref(), law);
    check_law(formulation, law)?;
    let orders = orders_or_own(args.order.as_deref(), formulation)?;
    verified_precision(&args)?;
    // bugs that no kernel of this law or formulation can carry: refused before every variant is verified for nothing
    match args.plant_bug {
        Some(BugArg::SourceDropped) if law.ir()?.functions_of(dg_ir::FunctionRole::Source).next().is_none() => bail!(
            "--plant-bug source-dropped needs a law with a source term; `{}` has none (`dg ir {}` shows its functions)",
            args.law,
            args.law
        ),
        Some(BugArg::StageRegisterDropped) if formulation != FormulationId::NodalTri => bail!(
            "--plant-bug stage-register-dropped applies to the nodal triangles' folded stages (--formulation \
             nodal-tri), not {formulation}"
        ),
        _ => {}
    }
    let mut device = open_device(&args.device)?;
    let Some(bug) = args.plant_bug else { return verify_on(&args, formulation, &orders, device.as_mut()) };
    let stride = match formulation {
        FormulationId::NodalTri => "MBF",
        FormulationId::ModalTri => "VSTRIDE",
        FormulationId::NodalTet => "LDQ",
        FormulationId::Hex => "CSTRIDE",
        FormulationId::Fv if bug == BugArg::WrongStride => bail!(
            "the finite-volume kernels take their strides at run time (the grid's size): plant skip-last-group or \
             last-element-unwritten"
        ),
        FormulationId::Fv => "",
    };
    let bug = match bug {
        BugArg::SkipLastGroup => PlantedBug::SkipLastGroup,
        BugArg::LastElementUnwritten => PlantedBug::LastElementUnwritten,
        BugArg::WrongStride => PlantedBug::WrongStride(stride.into()),
        BugArg::StageRegisterDropped => PlantedBug::StageRegisterDropped,
        BugArg::SourceDropped => PlantedBug::SourceDropped,
    };
    eprintln!("planting {bug:?} in every kernel: verification must fail");
    let mut planted = PlantedDevice::new(device.as_mut(), bug);
    let result = verify_on(&args, formulation, &orders, &mut planted);
    if planted.programs_edited() == 0 {
        bail!("the planted bug applied to no kernel (nothing was shown)");
    }
    // verification failing is the expected outcome; every variant passing shows nothing either
    result?;
    bail!(
        "the planted bug did not make verification fail: every variant verified passed with it, so either no launch \
         of theirs runs the planted code (f64 element-per-work-item kernels from N = 3 keep the unfolded stage, for \
         one, so stage-register-dropped cannot show there) or verification missed it"
    )
}

/// The precisions `dg verify` checks: a SPEC's own, else --precision's; a --precision that names the other one
/// than the SPEC's is refused (it would verify what was not asked for).
fn verified_precision(args: &VerifyArgs) -> anyhow::Result<PrecisionArg> {
    let Some(spec) = args.variant.as_deref() else { return Ok(args.precision) };
    let own = match dg_commands::bench::precision_of_spec(spec) {
        Some(Precision::F32) => PrecisionArg::F32,
        Some(Precision::F64) => PrecisionArg::F64,
        None => return Ok(args.precision),
    };
    if args.precision != PrecisionArg::Both && args.precision != own {
        let given = if args.precision == PrecisionArg::F32 { "f32" } else { "f64" };
        bail!("--precision {given} contradicts --variant {spec}, whose precision is its own: leave --precision out");
    }
    Ok(own)
}

fn verify_on(
    args: &VerifyArgs,
    formulation: FormulationId,
    orders: &[usize],
    device: &mut dyn Device,
) -> anyhow::Result<()> {
    let run = VerifyRun {
        formulation,
        flux: args.flux.as_deref(),
        orders,
        precision: verified_precision(args)?,
        only: args.variant.as_deref(),
        json: args.json,
    };
    Ok(verify_law(dg_run::registry::law(&args.law)?, device, &run)?)
}

/// Opens a device, saying which.
pub fn open_device(selector: &DeviceSelector) -> anyhow::Result<Box<dyn Device>> {
    Ok(dg_commands::devices::open(selector)?)
}
