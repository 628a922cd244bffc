//! Compiles the shipped tuning database (`tuning-db/*.json`) into the binary, so that an installed `dg` run from
//! any directory finds the shipped winners.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("../tuning-db");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|r| r.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect())
        .unwrap_or_default();
    files.sort();
    let mut code = String::from(
        "/// The shipped device files: (file name, JSON text).\npub const SHIPPED: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().and_then(|n| n.to_str()).expect("file names of tuning-db/ are UTF-8");
        code.push_str(&format!("    ({name:?}, include_str!({:?})),\n", f.display().to_string()));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("shipped_db.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
