//! Kernel generation of dg: the law IR, the variant space, and kernel rendering from the templates in
//! `templates/`. It arrives with the flux-DSL and kernel-generation issues; this crate holds nothing else yet.
