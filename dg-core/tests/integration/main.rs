//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod fuzz_gmsh;
mod generator_sources;
mod gmsh;
mod gmsh_hardening;
mod gmsh_hex;
mod mesh;
mod mesh3d;
mod reference_tetrahedron;
mod reference_triangle;
mod vtu;
