//! Finding devices: CUDA first, then OpenCL GPUs, then OpenCL CPUs; the native CPU path when there is none.

use super::cuda::{self, CudaDevice};
use super::opencl::{self, OpenClDevice};
use super::{BackendError, Device};

/// Identity of a device: what the tuning database is keyed by.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct DeviceFingerprint {
    /// `cuda` or `opencl`.
    pub backend: String,
    /// Vendor.
    pub vendor: String,
    /// Device name.
    pub name: String,
    /// Architecture (`sm_90`; OpenCL: platform and device type).
    pub architecture: String,
    /// Driver / compiler version.
    pub driver: String,
    /// Global memory in bytes.
    pub memory_bytes: u64,
    /// How to select it on the command line (`cuda:0`, `opencl:1:0`).
    pub selector: String,
    /// Whether it is a GPU.
    pub is_gpu: bool,
}

impl DeviceFingerprint {
    /// The part of the fingerprint that keys tuning results (selector and memory size excluded).
    pub fn key(&self) -> String {
        format!("{}|{}|{}|{}|{}", self.backend, self.vendor, self.name, self.architecture, self.driver)
    }

    /// One line for `dg devices`: selector, name (after the vendor unless the name starts with it), architecture,
    /// driver and memory, e.g. `cuda:0       NVIDIA H200 [sm_90], driver 13.0 nvrtc 13.0, 139.8 GiB`.
    pub fn describe(&self) -> String {
        let vendor_word = self.vendor.split_whitespace().next().unwrap_or_default();
        let name = if vendor_word.is_empty() || self.name.starts_with(vendor_word) {
            self.name.clone()
        } else {
            format!("{} {}", self.vendor, self.name)
        };
        let driver =
            if self.driver.starts_with("driver") { self.driver.clone() } else { format!("driver {}", self.driver) };
        let gib = self.memory_bytes as f64 / (1u64 << 30) as f64;
        format!("{:<12} {name} [{}], {driver}, {gib:.1} GiB", self.selector, self.architecture)
    }
}

/// Which device to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The best found: CUDA, then an OpenCL GPU, then an OpenCL CPU.
    Auto,
    /// A CUDA device by ordinal.
    Cuda(usize),
    /// An OpenCL device by platform and device index.
    OpenCl(usize, usize),
    /// Any OpenCL device (GPU first).
    AnyOpenCl,
}

impl std::str::FromStr for DeviceSelector {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad =
            || format!("unknown device `{s}`: use auto, cuda, cuda:N, opencl, opencl:P:D or cpu (see `dg devices`)");
        let parts: Vec<&str> = s.split(':').collect();
        match parts.as_slice() {
            // `dg run` takes `cpu` before it comes here; a command that runs generated kernels cannot
            ["cpu"] => {
                Err("`cpu` is the native CPU path, which runs no generated kernels: use auto, cuda, cuda:N, \
                 opencl or opencl:P:D (an OpenCL CPU device such as PoCL runs them on the processor; see `dg devices`)"
                    .into())
            }
            ["auto"] => Ok(Self::Auto),
            ["cuda"] => Ok(Self::Cuda(0)),
            ["cuda", n] => n.parse().map(Self::Cuda).map_err(|_| bad()),
            ["opencl"] => Ok(Self::AnyOpenCl),
            ["opencl", p, d] => Ok(Self::OpenCl(p.parse().map_err(|_| bad())?, d.parse().map_err(|_| bad())?)),
            _ => Err(bad()),
        }
    }
}

/// The selector as a user writes it (`auto`, `cuda:0`, `opencl`, `opencl:0:1`): parses back to the same value.
impl std::fmt::Display for DeviceSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => write!(f, "auto"),
            Self::Cuda(n) => write!(f, "cuda:{n}"),
            Self::OpenCl(p, d) => write!(f, "opencl:{p}:{d}"),
            Self::AnyOpenCl => write!(f, "opencl"),
        }
    }
}

/// Everything found, with the reasons for what was not found.
pub struct Discovery {
    /// Devices, in preference order.
    pub devices: Vec<DeviceFingerprint>,
    /// Why a backend offers nothing (missing library, no platform, …).
    pub missing: Vec<String>,
}

/// Lists the devices of every backend.
pub fn discover() -> Discovery {
    let mut devices = Vec::new();
    let mut missing = Vec::new();
    match cuda::enumerate() {
        Ok(list) if list.is_empty() => missing.push("cuda: no device".to_string()),
        Ok(list) => devices.extend(list),
        Err(e) => missing.push(e.to_string()),
    }
    match opencl::enumerate() {
        Ok(list) if list.is_empty() => missing.push("opencl: no device".to_string()),
        Ok(mut list) => {
            list.sort_by_key(|c| !c.fingerprint.is_gpu);
            devices.extend(list.into_iter().map(|c| c.fingerprint));
        }
        Err(e) => missing.push(e.to_string()),
    }
    Discovery { devices, missing }
}

/// The tests that open the OpenCL device take turns: opening the platform from two threads at once can fail.
static OPENCL_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// For tests: the first OpenCL device, its programs built without optimisation ([`OpenClDevice::unoptimised`]),
/// held with a process-wide lock (the guard comes with it), or `None` — said once on standard error — where there
/// is none, unless `DG_REQUIRE_OPENCL=1` (as in CI), which makes a missing device a panic.
pub fn opencl_for_tests() -> Option<(std::sync::MutexGuard<'static, ()>, Box<dyn Device>)> {
    opencl_device_for_tests(false)
}

/// For tests that time kernels (the ceilings): [`opencl_for_tests`] with its programs built optimised (unoptimised,
/// PoCL runs the ceilings' kernels ten times slower).
pub fn optimised_opencl_for_tests() -> Option<(std::sync::MutexGuard<'static, ()>, Box<dyn Device>)> {
    opencl_device_for_tests(true)
}

fn opencl_device_for_tests(optimised: bool) -> Option<(std::sync::MutexGuard<'static, ()>, Box<dyn Device>)> {
    let turn = OPENCL_TESTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match open_opencl(&|_| true, "opencl".into()) {
        Ok(device) => Some((turn, Box::new(if optimised { device } else { device.unoptimised() }))),
        Err(e) if std::env::var("DG_REQUIRE_OPENCL").as_deref() == Ok("1") => {
            panic!("DG_REQUIRE_OPENCL=1 but no OpenCL device: {e}")
        }
        Err(e) => {
            eprintln!("skipped: no OpenCL device ({e})");
            None
        }
    }
}

/// Opens the first OpenCL device `pick` accepts, GPUs first; `what` names the selection in the error.
fn open_opencl(pick: &dyn Fn(&opencl::OpenClCandidate) -> bool, what: String) -> Result<OpenClDevice, BackendError> {
    let mut list = opencl::enumerate()?;
    list.sort_by_key(|c| !c.fingerprint.is_gpu);
    let candidate = list.iter().find(|c| pick(c)).ok_or(BackendError::NoSuchDevice(what))?;
    OpenClDevice::open(candidate)
}

/// Opens the selected device.
pub fn open(selector: &DeviceSelector) -> Result<Box<dyn Device>, BackendError> {
    let open_cuda = |ordinal: usize| -> Result<Box<dyn Device>, BackendError> {
        let list = cuda::enumerate()?;
        let fp = list.into_iter().nth(ordinal).ok_or_else(|| BackendError::NoSuchDevice(format!("cuda:{ordinal}")))?;
        Ok(Box::new(CudaDevice::open(ordinal, fp)?))
    };
    let boxed_opencl = |pick: &dyn Fn(&opencl::OpenClCandidate) -> bool, what: String| {
        open_opencl(pick, what).map(|device| Box::new(device) as Box<dyn Device>)
    };
    match *selector {
        DeviceSelector::Cuda(n) => open_cuda(n),
        DeviceSelector::OpenCl(p, d) => boxed_opencl(&|c| c.platform == p && c.device == d, format!("opencl:{p}:{d}")),
        DeviceSelector::AnyOpenCl => boxed_opencl(&|_| true, "opencl".into()),
        DeviceSelector::Auto => open_cuda(0).or_else(|_| boxed_opencl(&|_| true, "auto".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::{DeviceFingerprint, DeviceSelector};

    #[test]
    fn a_device_line_names_the_vendor_and_the_driver_once() {
        let device = |vendor: &str, name: &str, architecture: &str, driver: &str, selector: &str| DeviceFingerprint {
            backend: "cuda".into(),
            vendor: vendor.into(),
            name: name.into(),
            architecture: architecture.into(),
            driver: driver.into(),
            memory_bytes: 150_120_456_192,
            selector: selector.into(),
            is_gpu: true,
        };
        // (as the CUDA and OpenCL backends fill them in on an H200 and with PoCL)
        let cuda = device("NVIDIA", "NVIDIA H200", "sm_90", "driver 13.0 nvrtc 13.0", "cuda:0");
        assert_eq!(cuda.describe(), "cuda:0       NVIDIA H200 [sm_90], driver 13.0 nvrtc 13.0, 139.8 GiB");
        let opencl = device("NVIDIA Corporation", "NVIDIA H200", "NVIDIA CUDA (gpu)", "580.159.04", "opencl:1:0");
        assert_eq!(opencl.describe(), "opencl:1:0   NVIDIA H200 [NVIDIA CUDA (gpu)], driver 580.159.04, 139.8 GiB");
        let pocl = device("GenuineIntel", "cpu-skylake", "Portable Computing Language (cpu)", "5.0", "opencl:0:0");
        assert!(pocl.describe().starts_with("opencl:0:0   GenuineIntel cpu-skylake [Portable"), "{}", pocl.describe());
    }

    #[test]
    fn a_selector_prints_as_the_user_writes_it_and_parses_back() {
        for text in ["auto", "cuda:0", "cuda:3", "opencl", "opencl:1:2"] {
            let selector: DeviceSelector = text.parse().expect(text);
            assert_eq!(selector.to_string(), text);
        }
        assert_eq!("cuda".parse::<DeviceSelector>().map(|s| s.to_string()), Ok("cuda:0".to_string()));
        assert!("opencl:1".parse::<DeviceSelector>().is_err());
        // the commands that run generated kernels say why `cpu` is not a device of theirs, and do not offer it
        let cpu = "cpu".parse::<DeviceSelector>().expect_err("no device");
        assert!(cpu.contains("native CPU path") && cpu.contains("PoCL"), "{cpu}");
        let other = "gpu".parse::<DeviceSelector>().expect_err("no device");
        assert!(other.contains("unknown device `gpu`"), "{other}");
    }
}
