//! `dg devices`, `dg variants`, `dg emit`, `dg verify`: the generated kernels as a user inspects them.

use anyhow::{anyhow, bail, Context};
use clap::{Args, ValueEnum};
pub use dg::commands::verify::VerifyRun;
pub use dg::commands::PrecisionArg;
use dg::dg_codegen::modal::ModalVariant;
use dg::dg_codegen::render::{render, LawInput};
use dg::dg_codegen::variant::{DeviceLimits, LawShape, Precision, Variant};
use dg::dg_codegen::Target;
use dg::dg_core::triangle::ReferenceTriangle;
use dg::dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg::dg_runtime::backend::{self, Device, DeviceSelector};
use dg::dg_runtime::modal_device::EdgeOrder;
use dg::kernels::valid_variants;

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
    after_help = "Examples:\n  dg devices\n  dg devices --json\n  dg devices --measure   # store copy bandwidth and FMA peak for the roofline"
)]
pub struct DevicesArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Measure each device's ceilings (copy bandwidth, FMA throughput) and store them with the device in the
    /// user's tuning database, where `dg autotune` and `dg bench` take their roofline from.
    #[arg(long)]
    pub measure: bool,
}

/// Arguments of `dg variants`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  dg variants maxwell2d --order 4\n  dg variants euler2d --order 8 --precision f64")]
pub struct VariantsArgs {
    /// Law (a 2D law; see `dg laws`).
    pub law: String,
    /// Polynomial order.
    #[arg(long)]
    pub order: usize,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    pub precision: PrecisionArg,
}

/// Arguments of `dg emit`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg emit maxwell2d --order 4 --variant node/mb1/seq1/field-local/fused/elem-major/f32 --target cuda\n  dg emit euler2d --order 2 --variant elem/wg128/seq1/matrix-const/split/node-major/f64 --target opencl --flux hllc_flux\n  dg emit euler2d --order 3 --variant modal/wg128/element/const/mode-major/f64 --flux hllc_flux\n  dg emit elastic3d --order 4 --variant tet/node/v2/s1/u2/f32 --target opencl"
)]
pub struct EmitArgs {
    /// Law.
    pub law: String,
    /// Polynomial order.
    #[arg(long)]
    pub order: usize,
    /// Variant SPEC: a nodal triangle variant (node/mb1/seq1/field-local/fused/elem-major/f32), a modal one
    /// (modal/wg128/element/const/mode-major/f64) or a tetrahedral one (tet/node/v2/s1/u2/f32: the whole
    /// program of that precision).
    #[arg(long)]
    pub variant: String,
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
    after_help = "Examples:\n  dg verify maxwell2d --order 3\n  dg verify euler2d --order 1..8 --precision both --device opencl --json\n  dg verify euler2d --modal --order 1..5 --device cuda:0"
)]
pub struct VerifyArgs {
    /// Law.
    pub law: String,
    /// Order or range of orders (A..B).
    #[arg(long, default_value = "1..8")]
    pub order: String,
    /// Device: auto, cuda:N, opencl, opencl:P:D.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSelector,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::Both)]
    pub precision: PrecisionArg,
    /// Only this variant (SPEC) instead of every valid one.
    #[arg(long)]
    pub variant: Option<String>,
    /// Verify the modal formulation's kernels (seed 001) instead of the nodal ones.
    #[arg(long)]
    pub modal: bool,
    /// Verify the tetrahedral kernels (seed 002; laws acoustics3d, elastic3d): every volume, surface and AB3
    /// update kernel of every strategy (node, elem, and gemm where a BLAS exists).
    #[arg(long, conflicts_with = "modal")]
    pub tet: bool,
    /// With --modal: number the edges in a random order and swap each edge's left and right at random (the
    /// results must not change).
    #[arg(long, requires = "modal")]
    pub shuffle_edges: bool,
    /// Self-test of verification: compile every kernel with this bug planted; verification must then fail (and
    /// the command exit non-zero). skip-last-group: kernels return in their last work group;
    /// last-element-unwritten: kernels see one element fewer; wrong-stride: the layout's stride (MBF of
    /// element-major nodal variants, VSTRIDE of element-major modal ones, LDQ of the tetrahedral kernels) is one
    /// too small.
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
}

/// Parses `N` or `A..B`.
pub fn parse_orders(s: &str) -> anyhow::Result<Vec<usize>> {
    let p = |t: &str| t.trim().parse::<usize>().map_err(|_| anyhow!("`{t}` is not an order"));
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (p(a)?, p(b.trim_start_matches('='))?),
        None => (p(s)?, p(s)?),
    };
    if a < 1 || b > 10 || a > b {
        bail!("orders must lie in 1..10 with A ≤ B (got {s})");
    }
    Ok((a..=b).collect())
}

/// Lists devices.
pub fn devices(args: DevicesArgs) -> anyhow::Result<()> {
    let found = backend::discover();
    if args.measure {
        for d in &found.devices {
            let selector: DeviceSelector = d.selector.parse().map_err(|e: String| anyhow!(e))?;
            let mut device = backend::open(&selector)?;
            eprintln!("measuring {} {} …", d.selector, d.name);
            let ceilings = dg::dg_runtime::ceilings::measure(device.as_mut())?;
            let path = dg::dg_runtime::tuning_db::merge_into(
                &dg::dg_runtime::tuning_db::user_dir(),
                device.fingerprint(),
                Default::default(),
                Some(ceilings),
            )?;
            println!(
                "{:<12} copy {:.0} GB/s, FMA {:.0} GFLOP/s f32, {:.0} GFLOP/s f64 (stored in {})",
                d.selector,
                ceilings.bandwidth_gbs,
                ceilings.gflops_f32,
                ceilings.gflops_f64,
                path.display()
            );
        }
        return Ok(());
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"devices": found.devices, "missing": found.missing}))?
        );
        return Ok(());
    }
    for d in &found.devices {
        println!(
            "{:<12} {} {} [{}] driver {} , {:.1} GiB",
            d.selector,
            d.vendor,
            d.name,
            d.architecture,
            d.driver,
            d.memory_bytes as f64 / (1u64 << 30) as f64
        );
    }
    println!("{:<12} native CPU ({} threads, always available)", "cpu", dg::dg_runtime::cpu::thread_count());
    for m in &found.missing {
        println!("not found: {m}");
    }
    Ok(())
}

/// The IR of a registered law (any law linked into the program), or an error listing them.
fn registered_ir(name: &str) -> anyhow::Result<dg::dg_ir::LawIr> {
    let laws = dg::dg_ir::registered_laws();
    laws.iter().find(|l| l.name == name).map(|l| (l.ir)()).ok_or_else(|| {
        let names: Vec<&str> = laws.iter().map(|l| l.name).collect();
        anyhow!("no law `{name}` in this program; the laws linked in are: {}", names.join(", "))
    })
}

/// The numerical fluxes a law offers, in declaration order (the first is its default).
fn flux_names(ir: &dg::dg_ir::LawIr) -> Vec<String> {
    ir.functions.iter().filter_map(|(_, f)| f.name.strip_prefix("numerical_flux:").map(str::to_string)).collect()
}

/// Lists valid and rejected variants.
pub fn variants(args: VariantsArgs) -> anyhow::Result<()> {
    let ir = registered_ir(&args.law)?;
    if ir.dim != 2 {
        bail!("`dg variants` lists the nodal triangle variants of 2D laws; {} is {}D (its tetrahedral kernels: `dg verify {} --tet`)", args.law, ir.dim, args.law);
    }
    let shape = LawShape::of(&ir);
    ReferenceTriangle::new(args.order)?;
    for precision in args.precision.list() {
        let (valid, rejected) = valid_variants(args.order, &shape, precision, &DeviceLimits::default());
        println!(
            "{} N={} {:?}: {} valid, {} rejected (limits: 32 KiB local memory, 256 work items)",
            args.law,
            args.order,
            precision,
            valid.len(),
            rejected.len()
        );
        for v in &valid {
            println!("  valid     {v}");
        }
        for (v, reason) in &rejected {
            println!("  rejected  {v}: {}", reason.split(": ").last().unwrap_or(reason));
        }
    }
    Ok(())
}

/// Prints generated source: a nodal triangle variant, a modal variant (`modal/…`) or the tetrahedral program of a
/// precision (`tet/…`), for any registered law.
pub fn emit(args: EmitArgs) -> anyhow::Result<()> {
    let ir = registered_ir(&args.law)?;
    dg::kernels::kernel_support(&ir)?;
    let params: Vec<f64> = ir.params.iter().map(|(_, v)| *v).collect();
    let names = flux_names(&ir);
    let flux = args.flux.clone().or_else(|| names.first().cloned()).context("the law has no numerical flux")?;
    if !names.contains(&flux) {
        bail!("law `{}` has no numerical flux `{flux}`; it has {}", args.law, names.join(", "));
    }
    let target = match args.target {
        TargetArg::Cuda => Target::Cuda,
        TargetArg::Opencl => Target::OpenCl,
    };
    let input = LawInput { ir: &ir, params: &params, numerical_flux: &flux };
    let source = if args.variant.starts_with("modal/") {
        let variant: ModalVariant = args.variant.parse()?;
        let element = dg::dg_core::triangle::ModalTriangle::new(args.order)?;
        dg::dg_codegen::modal::render_modal(&input, &element, &variant, target)?.source
    } else if args.variant.starts_with("tet/") {
        let variant: dg::dg_codegen::tet::TetVariant = args.variant.parse()?;
        let element = dg::dg_core::tetrahedron::ReferenceTetrahedron::new(args.order)?;
        let limits = dg::dg_codegen::tet::TetLimits { max_work_group: 1024, local_memory: 48 * 1024 };
        dg::dg_codegen::tet::render_tet(&input, &element, variant.precision, target, limits)?.source
    } else {
        let variant: Variant = args.variant.parse()?;
        let el = ReferenceTriangle::new(args.order)?;
        variant.check(
            args.order,
            &LawShape::of(&ir),
            &DeviceLimits { local_memory: usize::MAX, max_work_group: usize::MAX },
        )?;
        render(&input, &el, &variant, target)?.source
    };
    print!("{source}");
    Ok(())
}

/// Verifies every valid variant on a device (with a planted bug, on a device that compiles broken kernels).
pub fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    dg::kernels::kernel_support(&registered_ir(&args.law)?)?;
    let mut device = open_device(&args.device)?;
    let Some(bug) = args.plant_bug else { return verify_on(&args, device.as_mut()) };
    let stride = if args.modal {
        "VSTRIDE"
    } else if args.tet {
        "LDQ"
    } else {
        "MBF"
    };
    let bug = match bug {
        BugArg::SkipLastGroup => PlantedBug::SkipLastGroup,
        BugArg::LastElementUnwritten => PlantedBug::LastElementUnwritten,
        BugArg::WrongStride => PlantedBug::WrongStride(stride.into()),
    };
    eprintln!("planting {bug:?} in every kernel: verification must fail");
    let mut planted = PlantedDevice::new(device.as_mut(), bug);
    let result = verify_on(&args, &mut planted);
    if planted.programs_edited() == 0 {
        bail!("the planted bug applied to no kernel (nothing was shown)");
    }
    result
}

fn verify_on(args: &VerifyArgs, device: &mut dyn Device) -> anyhow::Result<()> {
    let orders = parse_orders(&args.order)?;
    if args.modal {
        let only: Option<ModalVariant> = args.variant.as_deref().map(str::parse).transpose()?;
        let precision = match only {
            Some(v) if v.precision == Precision::F32 => PrecisionArg::F32,
            Some(_) => PrecisionArg::F64,
            None => args.precision,
        };
        let edges = if args.shuffle_edges { EdgeOrder::Shuffled { seed: 17 } } else { EdgeOrder::BoundaryFirst };
        let run = VerifyRun { orders: &orders, precision, json: args.json, edges };
        return dg::registry::law(&args.law)?.verify_modal(device, &run, only);
    }
    if args.tet {
        if args.variant.is_some() {
            bail!("--variant does not apply to --tet (every tetrahedral kernel is checked)");
        }
        return dg::registry::law(&args.law)?.verify_tet(device, &orders, args.precision, args.json);
    }
    let only: Option<Variant> = args.variant.as_deref().map(str::parse).transpose()?;
    let precision = match only {
        Some(v) if v.precision == Precision::F32 => PrecisionArg::F32,
        Some(_) => PrecisionArg::F64,
        None => args.precision,
    };
    dg::registry::law(&args.law)?.verify_nodal(device, &orders, precision, only, args.json)
}

/// Opens a device, saying once which and why when falling back.
pub fn open_device(selector: &DeviceSelector) -> anyhow::Result<Box<dyn Device>> {
    let device = backend::open(selector).with_context(|| {
        let found = backend::discover();
        format!("cannot open device {selector:?} (not found: {})", found.missing.join("; "))
    })?;
    let fp = device.fingerprint();
    eprintln!("device: {} {} ({}, {})", fp.selector, fp.name, fp.architecture, fp.driver);
    Ok(device)
}
