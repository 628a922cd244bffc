//! The laws the command line can work with: every law linked into the program, with the generic code of each
//! kernel command instantiated for it.
//!
//! A law's type is known only where it is defined, so the code that verifies, tunes or benchmarks kernels of that
//! law — generic over the law — is instantiated there: the `#[dg::conservation_law]` macro registers
//! [`Commands`]`<Law>` (through [`crate::__register_law_commands`]) in any crate that uses `dg`, and this crate
//! registers the laws of `dg-laws`. Commands look a law up by name ([`law`]) and call it through the
//! object-safe [`LawCommands`].

use crate::commands::autotune::autotune_law;
use crate::commands::verify::{verify_law, verify_modal_law, verify_tet_law, VerifyRun};
use crate::commands::PrecisionArg;
use crate::tet_bench::{bench_one, OrderBench};
use crate::tuning::{measure_winner, TuneOptions, WinnerNow};
use dg_codegen::modal::ModalVariant;
use dg_codegen::variant::{Precision, Variant};
use dg_core::law::ConservationLaw;
use dg_runtime::backend::Device;
use dg_runtime::tuning_db::Ceilings;
use std::marker::PhantomData;
use std::path::Path;

/// What the kernel commands do with one law, callable without knowing its type.
pub trait LawCommands: Sync {
    /// The law's name.
    fn name(&self) -> &'static str;
    /// Its space dimension.
    fn dim(&self) -> usize;
    /// `dg verify` of the nodal triangle kernels.
    fn verify_nodal(
        &self,
        device: &mut dyn Device,
        orders: &[usize],
        precision: PrecisionArg,
        only: Option<Variant>,
        json: bool,
    ) -> anyhow::Result<()>;
    /// `dg verify --modal`.
    fn verify_modal(
        &self,
        device: &mut dyn Device,
        run: &VerifyRun<'_>,
        only: Option<ModalVariant>,
    ) -> anyhow::Result<()>;
    /// `dg verify --tet`.
    fn verify_tet(
        &self,
        device: &mut dyn Device,
        orders: &[usize],
        precision: PrecisionArg,
        json: bool,
    ) -> anyhow::Result<()>;
    /// `dg autotune` of the nodal triangle kernels into the database in `dir`.
    fn autotune(
        &self,
        device: &mut dyn Device,
        orders: &[usize],
        precision: PrecisionArg,
        opts: &TuneOptions,
        dir: &Path,
        json: bool,
    ) -> anyhow::Result<()>;
    /// `dg bench`: a stored nodal winner verified and timed now.
    fn measure_winner(
        &self,
        device: &mut dyn Device,
        order: usize,
        variant: &Variant,
        dofs: u64,
        repeats: usize,
        ceilings: &Ceilings,
    ) -> anyhow::Result<WinnerNow>;
    /// `dg tet-bench` at one order, on about `nodes` nodes.
    #[allow(clippy::too_many_arguments)]
    fn tet_bench(
        &self,
        device: &mut dyn Device,
        order: usize,
        nodes: usize,
        precision: Precision,
        repeats: usize,
        ceilings: &Ceilings,
    ) -> anyhow::Result<OrderBench>;
}

/// The commands of law `L` (zero-sized; one static instance per registered law).
pub struct Commands<L>(pub PhantomData<fn() -> L>);

impl<L> Commands<L> {
    /// The commands of `L`.
    pub const NEW: Commands<L> = Commands(PhantomData);
}

impl<L: ConservationLaw + Clone + Default + 'static> Commands<L> {
    fn require_dim(&self, dims: &[usize], what: &str) -> anyhow::Result<L> {
        crate::kernels::kernel_support(&crate::kernels::law_ir(&L::default()))?;
        if !dims.contains(&L::DIM) {
            let law = L::default();
            anyhow::bail!(
                "{} is a {}D law; {what} take{} {} laws",
                law.name(),
                L::DIM,
                if what.ends_with('s') { "" } else { "s" },
                dims.iter().map(|d| format!("{d}D")).collect::<Vec<_>>().join(" or ")
            );
        }
        Ok(L::default())
    }
}

impl<L: ConservationLaw + Clone + Default + 'static> LawCommands for Commands<L> {
    fn name(&self) -> &'static str {
        L::default().name()
    }
    fn dim(&self) -> usize {
        L::DIM
    }
    fn verify_nodal(
        &self,
        device: &mut dyn Device,
        orders: &[usize],
        precision: PrecisionArg,
        only: Option<Variant>,
        json: bool,
    ) -> anyhow::Result<()> {
        let law = self.require_dim(&[2], "the nodal triangle kernels (use --tet for 3D laws)")?;
        verify_law(&law, device, orders, precision, only, json)
    }
    fn verify_modal(
        &self,
        device: &mut dyn Device,
        run: &VerifyRun<'_>,
        only: Option<ModalVariant>,
    ) -> anyhow::Result<()> {
        let law = self.require_dim(&[2], "the modal triangle kernels")?;
        verify_modal_law(&law, device, run, only)
    }
    fn verify_tet(
        &self,
        device: &mut dyn Device,
        orders: &[usize],
        precision: PrecisionArg,
        json: bool,
    ) -> anyhow::Result<()> {
        let law = self.require_dim(&[3], "the tetrahedral kernels")?;
        verify_tet_law(&law, device, orders, precision, json)
    }
    fn autotune(
        &self,
        device: &mut dyn Device,
        orders: &[usize],
        precision: PrecisionArg,
        opts: &TuneOptions,
        dir: &Path,
        json: bool,
    ) -> anyhow::Result<()> {
        let law = self.require_dim(&[2], "the nodal triangle kernels (`dg tet-bench --store` tunes 3D laws)")?;
        autotune_law(&law, device, orders, precision, opts, dir, json)
    }
    fn measure_winner(
        &self,
        device: &mut dyn Device,
        order: usize,
        variant: &Variant,
        dofs: u64,
        repeats: usize,
        ceilings: &Ceilings,
    ) -> anyhow::Result<WinnerNow> {
        let law = self.require_dim(&[2], "the nodal triangle kernels")?;
        measure_winner(device, &law, order, variant, dofs, repeats, ceilings)
    }
    fn tet_bench(
        &self,
        device: &mut dyn Device,
        order: usize,
        nodes: usize,
        precision: Precision,
        repeats: usize,
        ceilings: &Ceilings,
    ) -> anyhow::Result<OrderBench> {
        let law = self.require_dim(&[3], "the tetrahedral kernels")?;
        let name = law.name();
        bench_one(&law, device, order, nodes, precision, repeats, ceilings)
            .map_err(|e| anyhow::anyhow!("{name} N = {order}: {e}"))
    }
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
        $crate::ir::inventory::submit! {
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

/// Every registered law's commands, sorted by name.
pub fn laws() -> Vec<&'static dyn LawCommands> {
    let mut all: Vec<&'static dyn LawCommands> =
        dg_ir::inventory::iter::<LawEntry>.into_iter().map(|e| e.commands).collect();
    all.sort_by_key(|c| c.name());
    all
}

/// The commands of the law called `name`, or an error listing the registered laws.
pub fn law(name: &str) -> anyhow::Result<&'static dyn LawCommands> {
    let all = laws();
    all.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|c| c.name()).collect();
        anyhow::anyhow!("no law `{name}` in this program; the laws linked in are: {}", names.join(", "))
    })
}
