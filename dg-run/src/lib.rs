//! Running dg cases, for every formulation.
//!
//! - [`formulations`]: the formulations this program offers — the one place a formulation is registered.
//! - [`winners`]: the kernel variant a device run uses (tuning database, exact or nearest size; tuned on first
//!   use; or the baseline), with where it came from; [`shipped_db`]: the shipped database compiled in.
//! - Runners: [`simulate`] (Maxwell cases on the CPU, convergence studies) and [`device_run`] (their device time
//!   loop), [`euler_run`] and [`euler_study`] (Euler cases, modal or nodal), [`wave_run`] (3D waves on tetrahedra).

pub mod device_run;
pub mod euler_run;
pub mod euler_study;
pub mod formulations;
pub mod shipped_db;
pub mod simulate;
pub mod wave_run;
pub mod winners;
