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
        match self {
            FormulationId::NodalTri => dg_nodal_tri::NodalTri.tuner::<L, T>(law, device, target),
            FormulationId::ModalTri => dg_modal_tri::ModalTri.tuner::<L, T>(law, device, target),
            FormulationId::NodalTet => dg_nodal_tet::NodalTet.tuner::<L, T>(law, device, target),
            FormulationId::Hex => dg_hex::Hex.tuner::<L, T>(law, device, target),
            FormulationId::Fv => dg_fv::Fv.tuner::<L, T>(law, device, target),
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

impl std::fmt::Display for FormulationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
