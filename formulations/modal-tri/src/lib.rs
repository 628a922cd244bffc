//! The modal weak-form DG formulation on triangles with quadrature (seed 001, Fuhry et al.): orthonormal basis,
//! volume cubature, Gauss edge points, the limiter and the CFL rule.
//!
//! - [`variant`], [`render`]: the variant space (work-group size, surface strategy, table storage, layout,
//!   precision) and kernel source from `templates/modal-tri/`.
//! - [`cpu`]: the CPU reference operator with ghost states and the limiter.
//! - [`device`]: the right-hand side and the SSP-RK step on a device.
//! - [`verify`]: the verification problem and the check of many variants.
//! - [`tuning`]: the [`ModalTri`] formulation and its tuner.

pub mod cpu;
pub mod device;
pub mod render;
pub mod tuning;
pub mod variant;
pub mod verify;

pub use cpu::ModalOperator2d;
pub use device::{FusedUpdate, ModalDeviceOperator};
pub use tuning::ModalTri;

pub use render::{
    check_modal, mma_fragments, render_modal, MmaShape, ModalKernelSource, ModalLaunch, ModalLawShape, ModalRole,
};
pub use variant::ModalVariant;
pub use variant::{ModalLayout, ModalSurface, Tables, MODAL_GROUPS, TILE_ELEMENTS};
