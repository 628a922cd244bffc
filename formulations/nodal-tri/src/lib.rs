//! The nodal strong-form DG formulation on triangles (seed 000, Klöckner et al.): everything about it in one
//! place.
//!
//! - [`variant`], [`microblock`]: the variant space (work partition, elements per group, sequential
//!   microblocks, operator storage, surface strategy, layout, volume form, precision), SPEC strings, the rules
//!   that reject combinations with a reason, and seed 000's padding rule.
//! - [`render`], [`batch`]: kernel source from `templates/nodal-tri/`, and many variants in one program.
//! - [`cost`]: flops and bytes per right-hand side (the roofline model).
//! - [`mirror`]: the operator folded by the reference triangle's mirror symmetry (the mirror tiles' halved products);
//!   [`mirror_mma`]: the same operator in the FP64 tensor cores' fragments; [`symmetry`]: the bases in which the
//!   triangle's whole symmetry group block-diagonalises the operators (groundwork, no kernel uses it yet).
//! - [`cpu`]: the CPU reference operator, multithreaded with rayon.
//! - [`device`], [`device_system`]: the right-hand side on a device and its time loop.
//! - [`verify`]: the verification problem and the check of many variants.
//! - [`tuning`]: the [`NodalTri`] formulation and its tuner (timing problem, greedy neighbours, seed 000's baseline).

pub mod batch;
pub mod cost;
pub mod cpu;
pub mod device;
pub mod device_system;
pub mod microblock;
pub mod mirror;
pub mod mirror_mma;
pub mod render;
pub mod symmetry;
pub mod tuning;
pub mod variant;
pub mod verify;

pub use cpu::NodalOperator2d;
pub use device::DeviceOperator;
pub use tuning::NodalTri;

pub use variant::Variant;
