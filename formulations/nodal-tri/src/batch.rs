//! Many variants in one program: kernel compilers (PoCL most of all) pay a large fixed cost per program, so
//! verification compiles variants in batches. Identical preludes and identical kernel parts are kept once, and
//! every name is made unique with a suffix.

use crate::render::{KernelSource, PRELUDE_MACROS};
use dg_codegen::program::{KERNEL_SUFFIX, PRELUDE_SUFFIX};
use std::collections::HashMap;

/// One program holding the kernels of several variants.
#[derive(Debug, Clone)]
pub struct ProgramBatch {
    /// The program text.
    pub source: String,
    /// The variants' sources, their [`KernelSource::symbols`] naming the kernels in this program.
    pub members: Vec<KernelSource>,
    /// Kernel functions in the program (after removing duplicates).
    pub kernels: Vec<String>,
}

/// Groups `sources` into programs of at most `max_members` variants each; sources with different dialects
/// (precision, target) never share a program.
pub fn batches(sources: Vec<KernelSource>, max_members: usize) -> Vec<ProgramBatch> {
    let mut by_dialect: Vec<(String, Vec<KernelSource>)> = Vec::new();
    for source in sources {
        match by_dialect.iter_mut().find(|(d, _)| *d == source.pieces.dialect) {
            Some((_, group)) => group.push(source),
            None => by_dialect.push((source.pieces.dialect.clone(), vec![source])),
        }
    }
    let mut out = Vec::new();
    for (_, group) in by_dialect {
        let mut rest = group.into_iter().peekable();
        while rest.peek().is_some() {
            let chunk: Vec<KernelSource> = rest.by_ref().take(max_members.max(1)).collect();
            out.push(assemble(chunk));
        }
    }
    out
}

/// One program from sources that share a dialect.
fn assemble(mut members: Vec<KernelSource>) -> ProgramBatch {
    // prelude text → index; (prelude, part text) → index; parts kept in the order of their prelude
    let mut preludes: Vec<String> = Vec::new();
    let mut parts: Vec<(usize, String, Vec<&'static str>)> = Vec::new();
    let mut part_index: HashMap<(usize, String), usize> = HashMap::new();
    for member in &mut members {
        let p = match preludes.iter().position(|text| *text == member.pieces.prelude) {
            Some(p) => p,
            None => {
                preludes.push(member.pieces.prelude.clone());
                preludes.len() - 1
            }
        };
        let mut symbols = Vec::new();
        for (roles, text) in &member.pieces.parts {
            let key = (p, text.clone());
            let index = *part_index.entry(key).or_insert_with(|| {
                parts.push((p, text.clone(), roles.clone()));
                parts.len() - 1
            });
            symbols.extend(roles.iter().map(|role| (*role, format!("{role}_k{index}"))));
        }
        member.symbols = symbols;
    }
    let dialect = members.first().map_or(String::new(), |m| m.pieces.dialect.clone());
    let mut source = format!("/* dg kernel batch: {} variants */\n{dialect}", members.len());
    let mut kernels = Vec::new();
    for (p, prelude) in preludes.iter().enumerate() {
        for name in PRELUDE_MACROS {
            source.push_str(&format!("#undef {name}\n"));
        }
        source.push_str(&prelude.replace(PRELUDE_SUFFIX, &format!("_p{p}")));
        for (index, (owner, text, roles)) in parts.iter().enumerate() {
            if *owner != p {
                continue;
            }
            source.push_str("#undef SURF_E\n#undef SURF_T\n");
            source.push_str(
                &text.replace(PRELUDE_SUFFIX, &format!("_p{p}")).replace(KERNEL_SUFFIX, &format!("_k{index}")),
            );
            kernels.extend(roles.iter().map(|role| format!("{role}_k{index}")));
        }
    }
    ProgramBatch { source, members, kernels }
}
