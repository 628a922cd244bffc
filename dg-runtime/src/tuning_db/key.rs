//! The typed key of a tuning result: what was tuned (law and its IR hash, numerical flux, kernel family, order,
//! precision, kernel role), on what problem size, for which generated code.

use std::fmt;
use std::str::FromStr;

/// The key of one tuning result. Its text form, the key of the database files, reads
/// `law@irhash|flux|formulation|element|N3|f32|role|2^22dof|cg<code hash>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TuningKey {
    /// Law name.
    pub law: String,
    /// Hash of the law's IR (changes whenever a flux, boundary state or parameter does).
    pub law_hash: String,
    /// Numerical flux the kernels evaluate.
    pub numerical_flux: String,
    /// Discretisation: `nodal-strong` or `modal-weak`.
    pub formulation: String,
    /// Element type: `tri` or `tet`.
    pub element: String,
    /// Polynomial order.
    pub order: usize,
    /// `f32` or `f64`.
    pub precision: String,
    /// What was timed: `rhs` (one right-hand side), `stage` (one low-storage Runge–Kutta stage, the right-hand side
    /// with its updates folded in), `rk-stage` (one Runge–Kutta stage of the modal formulation: the right-hand side
    /// and stage ← stage + c·L in the same pass) or `ab3-step` (one AB3 step).
    pub role: String,
    /// log₂ of the problem size in degrees of freedom (nodes for tetrahedra), rounded.
    pub size_bucket: u32,
    /// Code fingerprint of the formulation's kernels ([`KernelFamily::code`]).
    pub code: String,
}

/// What a formulation puts in its keys: its discretisation name, its element type and the code fingerprint of
/// its kernels ([`dg_codegen::fingerprint::code_hash`] of its templates and generator source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelFamily {
    /// Discretisation: `nodal-strong`, `modal-weak`, …
    pub formulation: &'static str,
    /// Element type: `tri`, `tet`, …
    pub element: &'static str,
    /// Code fingerprint (12 hex digits).
    pub code: &'static str,
}

/// log₂ of a size, rounded (the problem-size bucket).
pub fn size_bucket(size: u64) -> u32 {
    (size.max(1) as f64).log2().round() as u32
}

impl TuningKey {
    /// The key of a result of `family` for this program's generated code.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        family: KernelFamily,
        law: &str,
        law_hash: &str,
        numerical_flux: &str,
        order: usize,
        precision: &str,
        role: &str,
        size: u64,
    ) -> Self {
        Self {
            law: law.into(),
            law_hash: law_hash.into(),
            numerical_flux: numerical_flux.into(),
            formulation: family.formulation.into(),
            element: family.element.into(),
            order,
            precision: precision.into(),
            role: role.into(),
            size_bucket: size_bucket(size),
            code: family.code.into(),
        }
    }

    /// Whether `other` is the same key at another problem size.
    pub fn same_but_size(&self, other: &TuningKey) -> bool {
        TuningKey { size_bucket: other.size_bucket, ..self.clone() } == *other
    }

    /// Whether `other` is the same key for other generated code (an older or newer dg).
    pub fn same_but_code(&self, other: &TuningKey) -> bool {
        TuningKey { code: other.code.clone(), size_bucket: other.size_bucket, ..self.clone() } == *other
    }
}

impl fmt::Display for TuningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}@{}|{}|{}|{}|N{}|{}|{}|2^{}dof|cg{}",
            self.law,
            self.law_hash,
            self.numerical_flux,
            self.formulation,
            self.element,
            self.order,
            self.precision,
            self.role,
            self.size_bucket,
            self.code
        )
    }
}

/// A text that is not a tuning key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a tuning key ({reason}); keys read law@hash|flux|formulation|element|N<order>|precision|role|2^<b>dof|cg<code>")]
pub struct KeyError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub reason: &'static str,
}

impl FromStr for TuningKey {
    type Err = KeyError;
    fn from_str(text: &str) -> Result<Self, KeyError> {
        let bad = |reason| KeyError { text: text.to_string(), reason };
        let parts: Vec<&str> = text.split('|').collect();
        let [law_at, flux, formulation, element, order, precision, role, size, code] = parts[..] else {
            return Err(bad("not nine `|`-separated fields"));
        };
        let (law, law_hash) = law_at.split_once('@').ok_or_else(|| bad("no `@` between law and IR hash"))?;
        let order = order.strip_prefix('N').and_then(|n| n.parse().ok()).ok_or_else(|| bad("order is not N<k>"))?;
        let size_bucket = size
            .strip_prefix("2^")
            .and_then(|s| s.strip_suffix("dof"))
            .and_then(|b| b.parse().ok())
            .ok_or_else(|| bad("size is not 2^<b>dof"))?;
        let code = code.strip_prefix("cg").ok_or_else(|| bad("code fingerprint is not cg<hash>"))?;
        Ok(TuningKey {
            law: law.into(),
            law_hash: law_hash.into(),
            numerical_flux: flux.into(),
            formulation: formulation.into(),
            element: element.into(),
            order,
            precision: precision.into(),
            role: role.into(),
            size_bucket,
            code: code.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip_and_comparisons() {
        let key = TuningKey::new(
            KernelFamily { formulation: "modal-weak", element: "tri", code: "0123456789ab" },
            "euler2d",
            "abc",
            "hllc_flux",
            3,
            "f64",
            "rhs",
            4_000_000,
        );
        let text = key.to_string();
        assert!(text.starts_with("euler2d@abc|hllc_flux|modal-weak|tri|N3|f64|rhs|2^22dof|cg"), "{text}");
        assert_eq!(text.parse::<TuningKey>().unwrap(), key);
        let bigger = TuningKey { size_bucket: 24, ..key.clone() };
        assert!(key.same_but_size(&bigger));
        let older = TuningKey { code: "1".into(), ..bigger.clone() };
        assert!(!key.same_but_size(&older));
        assert!(key.same_but_code(&older));
        let other_flux = TuningKey { numerical_flux: "numerical_flux".into(), ..key.clone() };
        assert!(!key.same_but_size(&other_flux) && !key.same_but_code(&other_flux));
    }

    #[test]
    fn malformed_keys_are_refused_with_the_reason() {
        for text in ["", "a|b", "euler2d|f|modal-weak|tri|N3|f64|rhs|2^22dof|cg1", "e@h|f|m|t|3|f64|rhs|2^22dof|cg1"] {
            assert!(text.parse::<TuningKey>().is_err(), "{text}");
        }
        assert!("e@h|f|m|t|N3|f64|rhs|2^22dof|cg1".parse::<TuningKey>().is_ok());
    }
}
