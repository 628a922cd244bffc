//! The laws the command line can work with: every law linked into the program, each able to open a tuner of any
//! formulation for itself.
//!
//! A law's type is known only where it is defined, so the one generic step — a [`Tuner`] of that law in a
//! formulation and precision — is instantiated there: the `#[dg::conservation_law]` macro registers
//! [`Commands`]`<Law>` (through [`crate::__register_law_commands`], re-exported by `dg`) in any crate that uses
//! `dg`, and this crate registers the laws of `dg-laws`. Commands look a law up by name ([`law`]); everything
//! after the tuner is written once (`dg`'s command bodies, [`dg_runtime::pipeline`]).

use crate::formulations::FormulationId;
use dg_codegen::Precision;
use dg_core::law::ConservationLaw;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{law_ir, FormulationError, TuneTarget, Tuner};
use std::marker::PhantomData;

/// What the kernel commands need of one law, callable without knowing its type.
pub trait LawCommands: Sync {
    /// The law's name.
    fn name(&self) -> &'static str;
    /// Its space dimension.
    fn dim(&self) -> usize;
    /// Its IR.
    fn ir(&self) -> Result<dg_ir::LawIr, FormulationError>;
    /// Its parameter values and the numerical flux its kernels evaluate by default.
    fn kernel_inputs(&self) -> (Vec<f64>, String);
    /// The law with numerical flux `flux` (its default when `None`), checked.
    fn check_flux(&self, flux: Option<&str>) -> Result<(), FormulationError>;
    /// A tuner of this law in `formulation` at `target` (precision included) on `device`.
    fn tuner(
        &self,
        formulation: FormulationId,
        flux: Option<&str>,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError>;
}

/// The commands of law `L` (zero-sized; one static instance per registered law).
pub struct Commands<L>(pub PhantomData<fn() -> L>);

impl<L> Commands<L> {
    /// The commands of `L`.
    pub const NEW: Commands<L> = Commands(PhantomData);
}

impl<L: ConservationLaw + Clone + Default + Send + Sync + 'static> LawCommands for Commands<L> {
    fn name(&self) -> &'static str {
        L::default().name()
    }
    fn dim(&self) -> usize {
        L::DIM
    }
    fn ir(&self) -> Result<dg_ir::LawIr, FormulationError> {
        law_ir(&L::default())
    }
    fn kernel_inputs(&self) -> (Vec<f64>, String) {
        let law = L::default();
        (law.param_values(), law.numerical_flux_name().to_string())
    }
    fn check_flux(&self, flux: Option<&str>) -> Result<(), FormulationError> {
        with_flux::<L>(flux).map(|_| ())
    }
    fn tuner(
        &self,
        formulation: FormulationId,
        flux: Option<&str>,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError> {
        let law = with_flux::<L>(flux)?;
        match target.precision {
            Precision::F32 => formulation.tuner::<L, f32>(&law, device, target),
            Precision::F64 => formulation.tuner::<L, f64>(&law, device, target),
        }
    }
}

/// The law `L` with numerical flux `flux` selected (its default when `None`).
fn with_flux<L: ConservationLaw + Default>(flux: Option<&str>) -> Result<L, FormulationError> {
    let mut law = L::default();
    if let Some(name) = flux {
        if !law.select_numerical_flux(name) {
            return Err(FormulationError::Problem(format!(
                "law `{}` has no numerical flux `{name}`; it offers {}",
                law.name(),
                law.numerical_flux_names().join(", ")
            )));
        }
    }
    Ok(law)
}

/// A registered law: its commands.
pub struct LawEntry {
    /// The commands, instantiated for the law.
    pub commands: &'static dyn LawCommands,
}

dg_ir::inventory::collect!(LawEntry);

/// Registers the commands of a law type (what the macro expands to in crates that use `dg`).
#[macro_export]
#[doc(hidden)]
macro_rules! __register_law_commands {
    ($law:ty) => {
        $crate::__private::inventory::submit! {
            $crate::registry::LawEntry { commands: &$crate::registry::Commands::<$law>::NEW }
        }
    };
}

crate::__register_law_commands!(dg_laws::advection2d::Law);
crate::__register_law_commands!(dg_laws::advection3d::Law);
crate::__register_law_commands!(dg_laws::burgers2d::Law);
crate::__register_law_commands!(dg_laws::maxwell2d::Law);
crate::__register_law_commands!(dg_laws::maxwell3d::Law);
crate::__register_law_commands!(dg_laws::euler2d::Law);
crate::__register_law_commands!(dg_laws::euler3d::Law);
crate::__register_law_commands!(dg_laws::acoustics2d::Law);
crate::__register_law_commands!(dg_laws::acoustics3d::Law);
crate::__register_law_commands!(dg_laws::elastic3d::Law);
crate::__register_law_commands!(dg_laws::shallow_water2d::Law);
crate::__register_law_commands!(dg_laws::mhd2d::Law);

/// Every registered law's commands, sorted by name.
pub fn laws() -> Vec<&'static dyn LawCommands> {
    let mut all: Vec<&'static dyn LawCommands> =
        dg_ir::inventory::iter::<LawEntry>.into_iter().map(|e| e.commands).collect();
    all.sort_by_key(|c| c.name());
    all
}

/// The commands of the law called `name`, or an error listing the registered laws.
pub fn law(name: &str) -> Result<&'static dyn LawCommands, FormulationError> {
    let all = laws();
    all.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|c| c.name()).collect();
        FormulationError::Problem(format!(
            "no law `{name}` in this program; the laws linked in are: {}",
            names.join(", ")
        ))
    })
}
