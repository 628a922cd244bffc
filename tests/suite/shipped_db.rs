//! The shipped H200 results are this code's: every formulation with kernels on the GPU has entries under its
//! current code fingerprint. A change to a fingerprinted file (templates, generator source, even a doc comment
//! there) moves every key; without re-keying (`scripts/rekey_db.py`, after `scripts/same_kernels.sh` shows the
//! kernels unchanged) or re-tuning, a run would silently tune on first use instead of taking the shipped winner —
//! as the nodal-triangle entries did for a day after a comment in `render.rs` changed.

use dg::dg_fv::tuning::code_hash as fv_hash;
use dg::dg_hex::tuning::code_hash as hex_hash;
use dg::dg_modal_tri::tuning::code_hash as modal_hash;
use dg::dg_nodal_tet::tuning::code_hash as tet_hash;
use dg::dg_nodal_tri::tuning::code_hash as nodal_hash;

#[test]
fn the_shipped_h200_file_has_entries_for_every_formulations_current_kernels() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tuning-db/cuda-nvidia-h200-sm-90.json");
    let text = std::fs::read_to_string(path).expect("the shipped H200 file");
    let file: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let keys: Vec<&str> = file["entries"].as_object().expect("an entries map").keys().map(String::as_str).collect();
    assert!(keys.len() > 100, "{} entries", keys.len());
    for (formulation, hash) in [
        ("nodal-strong|tri", nodal_hash()),
        ("modal-weak|tri", modal_hash()),
        ("nodal-strong|tet", tet_hash()),
        ("nodal-weak|hex", hex_hash()),
        ("finite-volume|quad-grid", fv_hash()),
    ] {
        let current = keys.iter().filter(|k| k.contains(formulation) && k.ends_with(&format!("|cg{hash}"))).count();
        let stale = keys.iter().filter(|k| k.contains(formulation)).count() - current;
        assert!(
            current > 0,
            "no {formulation} entry under this code's fingerprint cg{hash} ({stale} under others): re-key after \
             scripts/same_kernels.sh, or re-tune"
        );
    }
}
