//! `dg devices`, `dg variants`, `dg emit`, `dg verify`: the generated kernels as a user inspects them.

use anyhow::{anyhow, bail, Context};
use clap::{Args, ValueEnum};
use dg::dg_codegen::modal::ModalVariant;
use dg::dg_codegen::render::{render, LawInput};
use dg::dg_codegen::variant::{DeviceLimits, LawShape, Precision, Variant};
use dg::dg_codegen::Target;
use dg::dg_core::law::ConservationLaw;
use dg::dg_core::triangle::ReferenceTriangle;
use dg::dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg::dg_runtime::backend::{self, Device, DeviceSelector};
use dg::dg_runtime::modal_device::EdgeOrder;
use dg::dg_runtime::verify::VerifyOutcome;
use dg::kernels::{law_ir, target_of, valid_variants, verify_all, VerificationSetup};
use dg::with_law_2d;
use indicatif::{ProgressBar, ProgressStyle};

/// Precision choice on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PrecisionArg {
    /// Single precision.
    F32,
    /// Double precision.
    F64,
    /// Both.
    Both,
}

impl PrecisionArg {
    /// The precisions selected.
    pub fn list(self) -> Vec<Precision> {
        match self {
            PrecisionArg::F32 => vec![Precision::F32],
            PrecisionArg::F64 => vec![Precision::F64],
            PrecisionArg::Both => vec![Precision::F32, Precision::F64],
        }
    }
}

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
    after_help = "Examples:\n  dg emit maxwell2d --order 4 --variant node/mb1/seq1/field-local/fused/elem-major/f32 --target cuda\n  dg emit euler2d --order 2 --variant elem/wg128/seq1/matrix-const/split/node-major/f64 --target opencl --flux hllc_flux"
)]
pub struct EmitArgs {
    /// Law.
    pub law: String,
    /// Polynomial order.
    #[arg(long)]
    pub order: usize,
    /// Variant SPEC, e.g. node/mb1/seq1/field-local/fused/elem-major/f32.
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

/// Lists valid and rejected variants.
pub fn variants(args: VariantsArgs) -> anyhow::Result<()> {
    let shape = with_law_2d!(args.law.as_str(), |law| LawShape::of(&law_ir(&law))).map_err(|e| anyhow!(e))?;
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

/// Prints generated source.
pub fn emit(args: EmitArgs) -> anyhow::Result<()> {
    let variant: Variant = args.variant.parse()?;
    let el = ReferenceTriangle::new(args.order)?;
    let (ir, params, names) =
        with_law_2d!(args.law.as_str(), |law| (law_ir(&law), law.param_values(), law.numerical_flux_names()))
            .map_err(|e| anyhow!(e))?;
    let flux = args.flux.as_deref().unwrap_or(names[0]);
    if !names.contains(&flux) {
        bail!("law `{}` has no numerical flux `{flux}`; it has {}", args.law, names.join(", "));
    }
    variant.check(
        args.order,
        &LawShape::of(&ir),
        &DeviceLimits { local_memory: usize::MAX, max_work_group: usize::MAX },
    )?;
    let target = match args.target {
        TargetArg::Cuda => Target::Cuda,
        TargetArg::Opencl => Target::OpenCl,
    };
    let source = render(&LawInput { ir: &ir, params: &params, numerical_flux: flux }, &el, &variant, target)?;
    print!("{}", source.source);
    Ok(())
}

/// Verifies every valid variant on a device (with a planted bug, on a device that compiles broken kernels).
pub fn verify(args: VerifyArgs) -> anyhow::Result<()> {
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
        return with_law_2d!(args.law.as_str(), |law| verify_modal_law(&law, device, &run, only))
            .map_err(|e| anyhow!(e))?;
    }
    if args.tet {
        if args.variant.is_some() {
            bail!("--variant does not apply to --tet (every tetrahedral kernel is checked)");
        }
        return dg::with_law_3d!(args.law.as_str(), |law| verify_tet_law(
            &law,
            device,
            &orders,
            args.precision,
            args.json
        ))
        .map_err(|e| anyhow!(e))?;
    }
    let only: Option<Variant> = args.variant.as_deref().map(str::parse).transpose()?;
    let precision = match only {
        Some(v) if v.precision == Precision::F32 => PrecisionArg::F32,
        Some(_) => PrecisionArg::F64,
        None => args.precision,
    };
    with_law_2d!(args.law.as_str(), |law| verify_law(&law, device, &orders, precision, only, args.json))
        .map_err(|e| anyhow!(e))?
}

/// What one `dg verify` covers.
struct VerifyRun<'a> {
    orders: &'a [usize],
    precision: PrecisionArg,
    json: bool,
    edges: EdgeOrder,
}

/// `dg verify --modal`: every modal variant (or `only`) per degree and precision.
fn verify_modal_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    run: &VerifyRun<'_>,
    only: Option<ModalVariant>,
) -> anyhow::Result<()> {
    use dg::dg_runtime::modal_verify::verify_modal_variants;
    let target = target_of(device);
    let ir = law_ir(law);
    let mut tally = Tally::default();
    for &order in run.orders {
        for p in run.precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let variants = match only {
                Some(v) => vec![v],
                None => ModalVariant::all(p),
            };
            let started = std::time::Instant::now();
            let mut report = |o: &VerifyOutcome| {
                if !std::io::IsTerminal::is_terminal(&std::io::stderr()) && !run.json {
                    eprintln!("  {} {:.2e}{}", o.variant, o.relative_error, if o.passed { "" } else { " FAILED" });
                }
            };
            let outcomes = match p {
                Precision::F32 => {
                    verify_modal_variants::<L, f32>(device, target, law, &ir, order, &variants, run.edges, &mut report)
                }
                Precision::F64 => {
                    verify_modal_variants::<L, f64>(device, target, law, &ir, order, &variants, run.edges, &mut report)
                }
            };
            tally.add(&format!("{} modal p={order} {p:?}", law.name()), order, outcomes, started);
        }
    }
    tally.finish(law.name(), "modal", device, run.json)
}

/// `dg verify --tet`: every tetrahedral kernel per order and precision.
fn verify_tet_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    orders: &[usize],
    precision: PrecisionArg,
    json: bool,
) -> anyhow::Result<()> {
    use dg::dg_runtime::tet_verify::verify_tet_kernels;
    let target = target_of(device);
    let ir = law_ir(law);
    let mut tally = Tally::default();
    for &order in orders {
        for p in precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let started = std::time::Instant::now();
            let outcomes = match p {
                Precision::F32 => verify_tet_kernels::<L, f32>(device, target, law, &ir, order),
                Precision::F64 => verify_tet_kernels::<L, f64>(device, target, law, &ir, order),
            }
            .with_context(|| format!("tetrahedral kernels of {} at N = {order} ({p:?})", law.name()))?;
            tally.add(&format!("{} tet N={order} {p:?}", law.name()), order, outcomes, started);
        }
    }
    tally.finish(law.name(), "tetrahedral", device, json)
}

/// Counts of a verification over orders and precisions, printed per step and summed up at the end.
#[derive(Default)]
struct Tally {
    tested: usize,
    passed: usize,
    refused: usize,
    /// Variants the rules rejected before any compilation (nodal formulation).
    ruled_out: usize,
    failed: Vec<serde_json::Value>,
}

impl Tally {
    /// Adds one order's outcomes and prints their line.
    fn add(&mut self, what: &str, order: usize, outcomes: Vec<VerifyOutcome>, started: std::time::Instant) {
        let ok = outcomes.iter().filter(|o| o.passed).count();
        let no = outcomes.iter().filter(|o| o.rejected).count();
        eprintln!(
            "{what}: {} tested, {ok} passed, {no} refused by the device ({:.1} s)",
            outcomes.len() - no,
            started.elapsed().as_secs_f64()
        );
        for o in outcomes {
            if o.rejected {
                self.refused += 1;
            } else if o.passed {
                self.tested += 1;
                self.passed += 1;
            } else {
                self.tested += 1;
                self.failed.push(serde_json::json!({"order": order, "variant": o.variant, "relative_error": o.relative_error, "error": o.error}));
            }
        }
    }

    /// Prints the summary (JSON or text); an error when anything failed.
    fn finish(self, law: &str, formulation: &str, device: &dyn Device, json: bool) -> anyhow::Result<()> {
        let Tally { tested, passed, refused, ruled_out, failed } = self;
        if json {
            let doc = serde_json::json!({"law": law, "formulation": formulation, "device": device.fingerprint(), "tested": tested, "passed": passed, "rejected": refused + ruled_out, "refused_by_device": refused, "ruled_out": ruled_out, "failed": failed});
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            println!(
                "{law} ({formulation}): {tested} tested, {passed} passed, {} failed, {refused} refused by the device, \
                 {ruled_out} rejected by the rules",
                failed.len()
            );
            for f in &failed {
                println!("  FAILED {f}");
            }
        }
        if !failed.is_empty() {
            bail!("{} {formulation} kernel(s) or variant(s) failed verification", failed.len());
        }
        if tested == 0 {
            bail!("nothing was verified (every precision skipped or every kernel refused)");
        }
        Ok(())
    }
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

fn verify_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    orders: &[usize],
    precision: PrecisionArg,
    only: Option<Variant>,
    json: bool,
) -> anyhow::Result<()> {
    let target = target_of(device);
    let limits = DeviceLimits { local_memory: device.local_memory(), max_work_group: device.max_work_group() };
    let shape = LawShape::of(&law_ir(law));
    let mut tally = Tally::default();
    for &order in orders {
        let setup = VerificationSetup::new(law, order)?;
        for p in precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let (mut valid, rejected) = valid_variants(order, &shape, p, &limits);
            tally.ruled_out += rejected.len();
            if let Some(v) = only {
                v.check(order, &shape, &limits)?;
                valid = vec![v];
            }
            let bar = ProgressBar::new(valid.len() as u64);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}").expect("template").progress_chars("=> "),
            );
            bar.set_message(format!("{} N={order} {p:?}", law.name()));
            let started = std::time::Instant::now();
            let outcomes = match p {
                Precision::F32 => verify_all::<L, f32>(device, target, law, &setup, &valid, &mut |_| bar.inc(1)),
                Precision::F64 => verify_all::<L, f64>(device, target, law, &setup, &valid, &mut |_| bar.inc(1)),
            };
            bar.finish_and_clear();
            tally.add(&format!("{} N={order} {p:?}", law.name()), order, outcomes, started);
        }
    }
    tally.finish(law.name(), "nodal", device, json)
}
