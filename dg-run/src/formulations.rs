//! The formulations this program offers: the one place a formulation is registered. Everything else (verify,
//! autotune, bench, variants, emit, the variant choice of runs) reaches a formulation through
//! [`FormulationId::get`] (what it is) and [`FormulationId::tuner`] (a tuner for a law's type).

use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{Formulation, FormulationError, TuneTarget, Tuner};

/// A formulation on the command line (`--formulation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum FormulationId {
    /// Nodal strong form on triangles (seed 000).
    NodalTri,
    /// Modal weak form on triangles with quadrature and limiter (seed 001).
    ModalTri,
    /// Nodal strong form on tetrahedra with AB3 (seed 002).
    NodalTet,
    /// Nodal weak form on hexahedra, sum-factorised, specialised per zone (seed 003).
    Hex,
    /// Finite volumes on a regular 2D grid with split sweeps (seed 003).
    Fv,
}

impl FormulationId {
    /// Every formulation.
    pub const ALL: [FormulationId; 5] = [
        FormulationId::NodalTri,
        FormulationId::ModalTri,
        FormulationId::NodalTet,
        FormulationId::Hex,
        FormulationId::Fv,
    ];

    /// The formulation.
    pub fn get(self) -> &'static dyn Formulation {
        match self {
            FormulationId::NodalTri => &dg_nodal_tri::NodalTri,
            FormulationId::ModalTri => &dg_modal_tri::ModalTri,
            FormulationId::NodalTet => &dg_nodal_tet::NodalTet,
            FormulationId::Hex => &dg_hex::Hex,
            FormulationId::Fv => &dg_fv::Fv,
        }
    }

    /// A tuner of `law` in precision `T`; an error when the formulation cannot time `target.operation`.
    pub fn tuner<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
        self,
        law: &L,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError> {
        self.get().check_operation(target.operation)?;
        // Each arm tests an associated constant of the law's type, so the compiler instantiates a formulation's
        // tuner only for the laws of its dimension (the other branch of an `if` on a constant is never compiled):
        // half of the tuner code of the registered laws, and of the build time of the crates that register laws.
        // A law of the other dimension gets the formulation's own refusal.
        match self {
            FormulationId::NodalTri if LawDimension::<L>::TWO => {
                dg_nodal_tri::NodalTri.tuner::<L, T>(law, device, target)
            }
            FormulationId::ModalTri if LawDimension::<L>::TWO => {
                dg_modal_tri::ModalTri.tuner::<L, T>(law, device, target)
            }
            FormulationId::Fv if LawDimension::<L>::TWO => dg_fv::Fv.tuner::<L, T>(law, device, target),
            FormulationId::NodalTet if LawDimension::<L>::THREE => {
                dg_nodal_tet::NodalTet.tuner::<L, T>(law, device, target)
            }
            FormulationId::Hex if LawDimension::<L>::THREE => dg_hex::Hex.tuner::<L, T>(law, device, target),
            _ => Err(self.refusal(law)),
        }
    }

    /// Why this formulation does not take `law` (of a dimension it does not discretise).
    fn refusal<L: ConservationLaw>(self, law: &L) -> FormulationError {
        match dg_runtime::formulation::supported_ir(self.get(), law) {
            Err(refused) => refused,
            Ok(_) => FormulationError::Problem(format!(
                "the {} formulation has no tuner for the {}D law `{}`",
                self.name(),
                L::DIM,
                law.name()
            )),
        }
    }

    /// The formulation a law of dimension `dim` gets when none is named: nodal triangles in 2D, tetrahedra in 3D.
    pub fn default_for(dim: usize) -> FormulationId {
        if dim == 3 {
            FormulationId::NodalTet
        } else {
            FormulationId::NodalTri
        }
    }

    /// The formulation a variant SPEC names by its first part (`modal/…`, `tet/…`, `hex/…`, `fv/…`); `None` for the
    /// nodal triangles' SPECs, whose first part is a partition (`elem`, `tile4`, …), and for anything else.
    pub fn named_by_spec(spec: &str) -> Option<FormulationId> {
        match spec.split('/').next()? {
            "modal" => Some(FormulationId::ModalTri),
            "tet" => Some(FormulationId::NodalTet),
            "hex" => Some(FormulationId::Hex),
            "fv" => Some(FormulationId::Fv),
            _ => None,
        }
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        self.get().name()
    }

    /// Whether a tuning key belongs to this formulation's current code.
    pub fn owns(self, key: &dg_runtime::tuning_db::TuningKey) -> bool {
        let f = self.get().family();
        key.formulation == f.formulation && key.element == f.element && key.code == f.code
    }
}

/// The dimension of law `L` as constants, for [`FormulationId::tuner`]'s compile-time choice.
struct LawDimension<L>(std::marker::PhantomData<L>);

impl<L: ConservationLaw> LawDimension<L> {
    const TWO: bool = L::DIM == 2;
    const THREE: bool = L::DIM == 3;
}

impl std::fmt::Display for FormulationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
