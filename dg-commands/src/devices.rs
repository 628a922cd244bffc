//! `dg devices`' body: compute devices with fingerprints, and their measured ceilings.

use crate::CommandError;
use dg_runtime::backend::{self, DeviceSelector};

/// Lists the devices found (JSON with `json`); with `measure`, measures each one's ceilings (memory bandwidth, FMA
/// and GEMM throughput) and stores them in the user's tuning database.
pub fn list(measure: bool, json: bool) -> Result<(), CommandError> {
    let found = backend::discover();
    if measure {
        for d in &found.devices {
            let selector: DeviceSelector = d.selector.parse().map_err(CommandError::Failed)?;
            let mut device = backend::open(&selector)?;
            eprintln!("measuring {} {} …", d.selector, d.name);
            let ceilings = dg_runtime::ceilings::measure(device.as_mut())?;
            let path = dg_runtime::tuning_db::merge_into(
                &dg_runtime::tuning_db::user_dir(),
                device.fingerprint(),
                Default::default(),
                Some(ceilings),
            )?;
            println!(
                "{:<12} memory {:.0} GB/s, FMA {:.0} GFLOP/s f32, {:.0} GFLOP/s f64 (stored in {})",
                d.selector,
                ceilings.bandwidth_gbs,
                ceilings.gflops_f32,
                ceilings.gflops_f64,
                path.display()
            );
        }
        return Ok(());
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"devices": found.devices, "missing": found.missing}))?
        );
        return Ok(());
    }
    for d in &found.devices {
        println!("{}", d.describe());
    }
    println!("{:<12} native CPU ({} threads, always available)", "cpu", dg_runtime::cpu::thread_count());
    for m in &found.missing {
        println!("not found: {m}");
    }
    Ok(())
}

/// Whether [`open`] and [`pick`] say on standard error which device they took (every rank of a run over MPI ranks
/// but the first keeps quiet: one line, not one per rank; each rank's GPU is in the run's report).
static ANNOUNCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns the device line of [`open`] and [`pick`] on or off for this process.
pub fn set_announced(on: bool) {
    ANNOUNCE.store(on, std::sync::atomic::Ordering::Relaxed);
}

fn announced() -> bool {
    ANNOUNCE.load(std::sync::atomic::Ordering::Relaxed)
}

/// Opens a device, saying on standard error which it is.
pub fn open(selector: &DeviceSelector) -> Result<Box<dyn backend::Device>, CommandError> {
    let device = backend::open(selector).map_err(|e| CommandError::Context {
        message: format!("cannot open device {selector}"),
        source: Box::new(e),
    })?;
    let fp = device.fingerprint();
    if announced() {
        eprintln!("device: {} {} ({}, {})", fp.selector, fp.name, fp.architecture, fp.driver);
    }
    Ok(device)
}

/// Starts preparing the device a `--device` choice names (`auto` or `cuda:N`: the CUDA context) on a background
/// thread, so that [`pick`] finds it ready after the mesh and space are built. Nothing for other choices.
pub fn warm_up(choice: &str) {
    match choice.parse::<backend::DeviceSelector>() {
        Ok(backend::DeviceSelector::Auto) => backend::cuda::warm_up(0),
        Ok(backend::DeviceSelector::Cuda(ordinal)) => backend::cuda::warm_up(ordinal),
        _ => {}
    }
}

/// The device a `--device` choice names: `cpu` (the native CPU path, `None`), `auto` (the first GPU found, else
/// the native CPU path, said once on standard error) or a selector (`cuda:0`, `opencl`, `opencl:P:D`).
pub fn pick(choice: &str) -> Result<Option<Box<dyn backend::Device>>, CommandError> {
    match choice {
        "cpu" => Ok(None),
        "auto" => {
            // a CUDA device wins without asking OpenCL (whose platforms can take a while to list)
            if let Some(first) = backend::cuda::enumerate().ok().and_then(|list| list.into_iter().next()) {
                return Ok(Some(open(&first.selector.parse().map_err(CommandError::Failed)?)?));
            }
            let found = backend::discover();
            match found.devices.iter().find(|d| d.is_gpu) {
                Some(d) => Ok(Some(open(&d.selector.parse().map_err(CommandError::Failed)?)?)),
                None => {
                    let why = if found.missing.is_empty() {
                        "only CPU OpenCL devices".to_string()
                    } else {
                        found.missing.join("; ")
                    };
                    if announced() {
                        eprintln!("no GPU found ({why}); running on the native CPU path");
                    }
                    Ok(None)
                }
            }
        }
        selector => Ok(Some(open(&selector.parse().map_err(CommandError::Failed)?)?)),
    }
}
