//! What every formulation's variant space shares: the precision, what the rules need to know of a law and of
//! the device, and the error of a SPEC that does not parse or a variant that is rejected.

/// What the rules need to know of a law.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LawShape {
    /// State variables.
    pub nvars: usize,
    /// Whether the flux is linear and homogeneous in the state (diff-first applies).
    pub linear_flux: bool,
    /// The fewest products with each reference derivative matrix that form the flux's divergence per element:
    /// [`dg_ir::DivergencePlan::products`] for a linear flux, one per variable otherwise.
    pub divergence_products: usize,
    /// Of those products, the fields whose reference gradients several variables share
    /// ([`dg_ir::DivergencePlan::gradients`]; 0 for a nonlinear flux).
    pub shared_gradients: usize,
    /// Material coefficients per element.
    pub materials: usize,
}

impl LawShape {
    /// The shape of a law from its IR.
    pub fn of(ir: &dg_ir::LawIr) -> Self {
        let nvars = ir.variables.len();
        let plan = ir.divergence_plan();
        let divergence_products = plan.as_ref().map_or(nvars, |plan| plan.products());
        let shared_gradients = plan.as_ref().map_or(0, |plan| plan.gradients.len());
        Self {
            nvars,
            linear_flux: ir.flux_is_linear_homogeneous(),
            divergence_products,
            shared_gradients,
            materials: ir.materials.len(),
        }
    }
}

/// Arithmetic precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Precision {
    /// Single.
    F32,
    /// Double.
    F64,
}

impl Precision {
    /// Bytes per value.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// `f32` or `f64`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

/// What the rules need to know of the device.
#[derive(Debug, Clone, Copy)]
pub struct DeviceLimits {
    /// Bytes of local (shared) memory per work group.
    pub local_memory: usize,
    /// Largest work-group size.
    pub max_work_group: usize,
    /// Whether generated CUDA kernels may multiply matrices on the tensor cores (`mma.sync` with double or tf32
    /// operands: compute capability 8.0 and later).
    pub tensor_cores: bool,
    /// Whether generated CUDA kernels may use the f64 tensor-core shapes of compute capability 9.0 (`mma.sync`
    /// `m16n8k4`, `m16n8k8`, `m16n8k16` with double operands).
    pub f64_mma_m16: bool,
    /// Whether the device runs GEMM steps through a BLAS (cuBLAS on CUDA), so that variants built on library
    /// GEMMs can run.
    pub blas: bool,
    /// Whether generated kernels may copy from global to local memory asynchronously: CUDA on compute capability
    /// 8.0 and later (`cp.async`). OpenCL kernels copy through registers instead, so every OpenCL device may.
    pub async_copies: bool,
}

impl DeviceLimits {
    /// Why a variant built on library GEMMs cannot run where [`DeviceLimits::blas`] is false.
    pub const NO_BLAS: &'static str = "the GEMM strategy needs a BLAS (cuBLAS on CUDA); this device has none";

    /// A current GPU's limits (48 KiB of static local memory, 1024 work items; no tensor cores, no BLAS): what
    /// `dg emit` shows of a program whose kernels depend on the limits.
    pub fn current_gpu() -> Self {
        Self { local_memory: 48 * 1024, max_work_group: 1024, ..Self::default() }
    }
}

impl Default for DeviceLimits {
    /// The limits of an OpenCL 1.2 minimum device (32 KiB, 256 work items, no tensor cores, no BLAS; asynchronous
    /// copies, which OpenCL kernels make through registers), safe everywhere.
    fn default() -> Self {
        Self {
            local_memory: 32 * 1024,
            max_work_group: 256,
            tensor_cores: false,
            f64_mma_m16: false,
            blas: false,
            async_copies: true,
        }
    }
}

/// An invalid SPEC or variant (of any formulation).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    /// The SPEC string does not parse; `reason` says what is wrong and what the formulation's SPECs look like.
    #[error("invalid variant `{spec}`: {reason}")]
    Parse {
        /// The input.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// A combination the kernels do not support, or that does not fit the device.
    #[error("variant {spec} is rejected: {reason}")]
    Rejected {
        /// The variant.
        spec: String,
        /// Why.
        reason: String,
    },
}
