//! Kernels of the modal formulation (seed 001): one work item per element for the volume integral, and three
//! ways to form the surface integral — per edge with left/right temporaries and a gather, per edge with atomic
//! additions, or per element (each edge's flux evaluated by both its elements).

mod render;
mod variant;

pub(crate) use render::TEMPLATES;
pub use render::{render_modal, ModalKernelSource, ModalLaunch, ModalRole};
pub use variant::{ModalLayout, ModalSurface, ModalVariant, Tables, MODAL_GROUPS};
