//! Planted bugs: a device that compiles a deliberately broken copy of every kernel it is given, so that a test (or
//! `dg verify --plant-bug`) can show that verification catches the bug. Verification that passes a planted bug
//! proves nothing.
//!
//! The bugs are edits of the generated source, made at compile time:
//! - [`PlantedBug::SkipLastGroup`]: every kernel returns at once in its last work group;
//! - [`PlantedBug::LastElementUnwritten`]: every kernel with an element count `K` believes there is one element
//!   fewer, so the last element's outputs are never written;
//! - [`PlantedBug::WrongStride`]: an integer `#define` of a stride (named by the formulation) is one too small;
//! - [`PlantedBug::StageRegisterDropped`]: the nodal merged kernels' folded low-storage stage writes L into the
//!   register instead of a·r + c·L;
//! - [`PlantedBug::SourceDropped`]: the law's source function (`law_source`) returns zero.
//!
//! And one failure of the device rather than of a kernel's result: [`PlantedBug::FaultInProgram`] makes the n-th
//! program compiled fault when it runs and leaves the device lost, as a CUDA kernel that reads an illegal address
//! leaves its context — every later call fails, and [`Device::lost`] says why.

use super::{BackendError, BufferId, Device, DeviceFingerprint, Launch, ProgramId, Step};
use std::cell::Cell;

/// A bug to plant in every kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlantedBug {
    /// Every kernel skips its last work group.
    SkipLastGroup,
    /// Every kernel with an element-count parameter `K` leaves the last element unwritten.
    LastElementUnwritten,
    /// The integer `#define` of this name (a stride of the state layout) is one less than it should be.
    WrongStride(String),
    /// The nodal merged kernels' folded low-storage stage stores L in the register instead of a·r + c·L (the
    /// right-hand side stays right: only a check of the stage shows it).
    StageRegisterDropped,
    /// The law's source function (`law_source`, in the programs of a law with a source term) returns zero, as if
    /// the kernels left the source out.
    SourceDropped,
    /// The program compiled at this position (0 for the first) faults when it runs; from then on every call fails
    /// and the device reports itself lost. No source is edited.
    FaultInProgram(usize),
}

/// The error of a planted fault and of every call after it.
const PLANTED_FAULT: &str = "planted fault: an illegal memory access was encountered (the device is lost)";

impl PlantedBug {
    /// The edited source and whether the edit applied anywhere in it.
    pub fn apply(&self, source: &str, cuda: bool) -> (String, bool) {
        match self {
            PlantedBug::SkipLastGroup => {
                let groups = if cuda { "(int)gridDim.x" } else { "(int)get_num_groups(0)" };
                edit_kernels(source, |_params| Some((None, format!(" if (GROUP_ID == {groups} - 1) return;"))))
            }
            PlantedBug::LastElementUnwritten => {
                // parameter lists given by a macro (`#define ARGS …, const int K, …`) are renamed in the macro
                let (source, macros) = rename_in_parameter_macros(source);
                edit_kernels(&source, |params| {
                    let inject = " const int K = K_planted - 1;".to_string();
                    // a list of macros (`ARGS STEP_ARGS`) of which one holds K
                    if params.split_whitespace().any(|token| macros.iter().any(|m| m == token)) {
                        return Some((None, inject));
                    }
                    let at = find_param(params, "const int K")?;
                    let mut renamed = params.to_string();
                    renamed.replace_range(at..at + "const int K".len(), "const int K_planted");
                    Some((Some(renamed), inject))
                })
            }
            PlantedBug::WrongStride(name) => {
                let prefix = format!("#define {name} ");
                let mut applied = false;
                let lines: Vec<String> = source
                    .lines()
                    .map(|line| match line.strip_prefix(&prefix).and_then(|v| v.trim().parse::<i64>().ok()) {
                        Some(value) if value > 1 => {
                            applied = true;
                            format!("{prefix}{}", value - 1)
                        }
                        _ => line.to_string(),
                    })
                    .collect();
                (lines.join("\n") + "\n", applied)
            }
            PlantedBug::StageRegisterDropped => {
                const STORE: &str = "step_r[i_] = r_;";
                (source.replace(STORE, "step_r[i_] = l_;"), source.contains(STORE))
            }
            PlantedBug::SourceDropped => {
                // the body of every definition `DEVICE_FN void law_source…(…) {` starts by zeroing the output and
                // returning (`if (1)` keeps the rest of the body well-formed code)
                let mut out = String::with_capacity(source.len() + 128);
                let mut rest = source;
                let mut applied = false;
                while let Some(i) = rest.find("DEVICE_FN void law_source") {
                    let Some(brace) = rest[i..].find('{').map(|b| i + b) else { break };
                    out.push_str(&rest[..=brace]);
                    out.push_str(" for (int v_ = 0; v_ < NV; ++v_) out[v_] = (real)0; if (1) return;");
                    applied = true;
                    rest = &rest[brace + 1..];
                }
                out.push_str(rest);
                (out, applied)
            }
            PlantedBug::FaultInProgram(_) => (source.to_string(), false),
        }
    }
}

/// Renames the parameter `const int K` inside `#define NAME …` macros (with `\` continuations) that hold one;
/// returns the source and the names of those macros.
fn rename_in_parameter_macros(source: &str) -> (String, Vec<String>) {
    let mut out = Vec::new();
    let mut names = Vec::new();
    let lines: Vec<&str> = source.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        if lines[i].starts_with("#define ") {
            while lines[j].trim_end().ends_with('\\') && j + 1 < lines.len() {
                j += 1;
            }
        }
        let block = lines[i..=j].join("\n");
        match (block.strip_prefix("#define "), find_param(&block, "const int K")) {
            (Some(rest), Some(at)) => {
                names.push(rest.split_whitespace().next().unwrap_or_default().to_string());
                let mut renamed = block.clone();
                renamed.replace_range(at..at + "const int K".len(), "const int K_planted");
                out.push(renamed);
            }
            _ => out.push(block),
        }
        i = j + 1;
    }
    (out.join("\n") + "\n", names)
}

/// The byte offset of parameter `decl` in a parameter list, where it is followed by `,` or the end.
fn find_param(params: &str, decl: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = params[from..].find(decl) {
        let at = from + i;
        let rest = params[at + decl.len()..].trim_start();
        if rest.is_empty() || rest.starts_with(',') || rest.starts_with('\n') {
            return Some(at);
        }
        from = at + decl.len();
    }
    None
}

/// Applies `edit` to every kernel definition (`KERNEL void name(params) {`): it may replace the parameter list and
/// gives a statement to insert at the start of the body. Returns the source and whether any kernel was edited.
fn edit_kernels(source: &str, edit: impl Fn(&str) -> Option<(Option<String>, String)>) -> (String, bool) {
    let mut out = String::with_capacity(source.len() + 256);
    let mut rest = source;
    let mut applied = false;
    while let Some(i) = rest.find("KERNEL void ") {
        let line_start = rest[..i].rfind('\n').map_or(0, |n| n + 1);
        let is_define = rest[line_start..i].trim_start().starts_with("#define");
        let (Some(open), true) = (rest[i..].find('('), !is_define) else {
            out.push_str(&rest[..i + 12]);
            rest = &rest[i + 12..];
            continue;
        };
        let open = i + open;
        let Some(close) = rest[open..].find(')').map(|c| open + c) else { break };
        let Some(brace) = rest[close..].find('{').map(|b| close + b) else { break };
        out.push_str(&rest[..open + 1]);
        let params = &rest[open + 1..close];
        match edit(params) {
            Some((new_params, statement)) => {
                applied = true;
                out.push_str(new_params.as_deref().unwrap_or(params));
                out.push_str(&rest[close..=brace]);
                out.push_str(&statement);
            }
            None => out.push_str(&rest[open + 1..=brace]),
        }
        rest = &rest[brace + 1..];
    }
    out.push_str(rest);
    (out, applied)
}

/// A device that compiles every program with a planted bug; everything else goes to the device it wraps.
pub struct PlantedDevice<'a> {
    inner: &'a mut dyn Device,
    bug: PlantedBug,
    cuda: bool,
    edited: Cell<usize>,
    /// Programs compiled so far (for [`PlantedBug::FaultInProgram`]).
    compiled: usize,
    /// The program that faults, once compiled.
    faulting: Option<ProgramId>,
    /// Whether the planted fault has happened.
    lost: bool,
}

impl<'a> PlantedDevice<'a> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut dyn Device, bug: PlantedBug) -> Self {
        let cuda = inner.fingerprint().backend == "cuda";
        Self { inner, bug, cuda, edited: Cell::new(0), compiled: 0, faulting: None, lost: false }
    }

    /// How many compiled programs the bug was planted in (zero means the test proved nothing).
    pub fn programs_edited(&self) -> usize {
        self.edited.get()
    }

    /// A planted fault's error when the device is lost, or when `program` is the faulting one (which loses it).
    fn fault(&mut self, program: Option<ProgramId>) -> Result<(), BackendError> {
        if program.is_some() && program == self.faulting {
            self.lost = true;
        }
        if self.lost {
            return Err(BackendError::Call { backend: "planted", call: "run", message: PLANTED_FAULT.into() });
        }
        Ok(())
    }

    fn plant(&self, source: &str) -> String {
        let (edited, applied) = self.bug.apply(source, self.cuda);
        if applied {
            self.edited.set(self.edited.get() + 1);
        }
        edited
    }
}

impl Device for PlantedDevice<'_> {
    fn fingerprint(&self) -> &DeviceFingerprint {
        self.inner.fingerprint()
    }
    fn prepare(&mut self, sources: &[String]) {
        let planted: Vec<String> = sources.iter().map(|s| self.bug.apply(s, self.cuda).0).collect();
        self.inner.prepare(&planted);
    }
    fn compile(&mut self, source: &str, kernels: &[String]) -> Result<ProgramId, BackendError> {
        self.fault(None)?;
        let planted = self.plant(source);
        let program = self.inner.compile(&planted, kernels)?;
        if self.bug == PlantedBug::FaultInProgram(self.compiled) {
            self.faulting = Some(program);
        }
        self.compiled += 1;
        Ok(program)
    }
    fn alloc(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        self.fault(None)?;
        self.inner.alloc(bytes)
    }
    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        self.fault(None)?;
        self.inner.alloc_zeroed(bytes)
    }
    fn upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        self.fault(None)?;
        self.inner.upload(buffer, data)
    }
    fn download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        self.fault(None)?;
        self.inner.download(buffer, data)
    }
    fn upload_range(&mut self, buffer: BufferId, offset: usize, data: &[u8]) -> Result<(), BackendError> {
        self.fault(None)?;
        self.inner.upload_range(buffer, offset, data)
    }
    fn download_range(&mut self, buffer: BufferId, offset: usize, data: &mut [u8]) -> Result<(), BackendError> {
        self.fault(None)?;
        self.inner.download_range(buffer, offset, data)
    }
    fn copy_buffer(&mut self, source: BufferId, target: BufferId, bytes: usize) -> Result<(), BackendError> {
        self.fault(None)?;
        self.inner.copy_buffer(source, target, bytes)
    }
    fn free_buffers(&mut self) {
        self.inner.free_buffers()
    }
    fn buffer_bytes(&self, buffer: BufferId) -> Option<usize> {
        self.inner.buffer_bytes(buffer)
    }
    fn run(&mut self, program: ProgramId, launches: &[Launch], repeats: usize) -> Result<Vec<f64>, BackendError> {
        self.fault(Some(program))?;
        self.inner.run(program, launches, repeats)
    }
    fn supports_gemm(&mut self) -> bool {
        self.inner.supports_gemm()
    }
    fn gemm_routines(&self) -> Vec<String> {
        self.inner.gemm_routines()
    }
    fn run_steps(&mut self, program: ProgramId, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        self.fault(Some(program))?;
        self.inner.run_steps(program, steps, repeats)
    }
    fn submit(&mut self, program: ProgramId, steps: &[Step]) -> Result<f64, BackendError> {
        self.fault(Some(program))?;
        self.inner.submit(program, steps)
    }
    fn settle(&mut self) -> Result<f64, BackendError> {
        self.inner.settle()
    }
    fn kernel_max_work_group(&self, program: ProgramId, kernel: &str) -> Option<usize> {
        self.inner.kernel_max_work_group(program, kernel)
    }
    fn local_memory(&self) -> usize {
        self.inner.local_memory()
    }
    fn supports_tensor_cores(&self) -> bool {
        self.inner.supports_tensor_cores()
    }
    fn supports_f64_mma_m16(&self) -> bool {
        self.inner.supports_f64_mma_m16()
    }
    fn supports_async_copies(&self) -> bool {
        self.inner.supports_async_copies()
    }
    fn max_work_group(&self) -> usize {
        self.inner.max_work_group()
    }
    fn supports_f64(&self) -> bool {
        self.inner.supports_f64()
    }
    fn lost(&mut self) -> Option<String> {
        if self.lost {
            return Some(PLANTED_FAULT.into());
        }
        self.inner.lost()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "#define KERNEL __kernel\n#define MBF 32\nKERNEL void volume(GPTR const real* q, const int K, const int fs)\n{\n    if (k < K) { q[0] = 1; }\n}\nKERNEL void lincomb(GPTR real* y, const int n) {\n}\n";

    #[test]
    fn each_bug_edits_the_kernels_it_names() {
        let (s, applied) = PlantedBug::SkipLastGroup.apply(SOURCE, false);
        assert!(applied);
        assert_eq!(s.matches("if (GROUP_ID == (int)get_num_groups(0) - 1) return;").count(), 2, "{s}");
        assert!(s.starts_with("#define KERNEL __kernel\n"), "the dialect define is untouched: {s}");
        let (s, applied) = PlantedBug::LastElementUnwritten.apply(SOURCE, false);
        assert!(applied);
        assert!(s.contains("const int K_planted, const int fs)\n{ const int K = K_planted - 1;"), "{s}");
        assert!(s.contains("lincomb(GPTR real* y, const int n) {\n}"), "kernels without K are left alone: {s}");
        let (s, applied) = PlantedBug::WrongStride("MBF".into()).apply(SOURCE, true);
        assert!(applied && s.contains("#define MBF 31\n"), "{s}");
        let (_, applied) = PlantedBug::WrongStride("LDQ".into()).apply(SOURCE, true);
        assert!(!applied, "a define that is not there is reported as not applied");
        let stage = "#define STEP_STORE(i, v) do { \\\n step_r[i_] = r_; \\\n step_z[i_] = step_x[i_] + step_b * r_; \\\n } while (0)\n";
        let (s, applied) = PlantedBug::StageRegisterDropped.apply(stage, false);
        assert!(applied && s.contains("step_r[i_] = l_;") && s.contains("step_b * r_;"), "{s}");
        let (_, applied) = PlantedBug::StageRegisterDropped.apply(SOURCE, false);
        assert!(!applied, "a source without the folded store is reported as not applied");
        let law = "DEVICE_FN void law_source_p0(const real* qm, real* out)\n{\n    out[0] = -qm[0];\n}\n";
        let (s, applied) = PlantedBug::SourceDropped.apply(law, false);
        assert!(applied && s.contains("{ for (int v_ = 0; v_ < NV; ++v_) out[v_] = (real)0; if (1) return;\n"), "{s}");
        let (_, applied) = PlantedBug::SourceDropped.apply(SOURCE, false);
        assert!(!applied, "a program without a source function is reported as not applied");
        let by_macro = "#define ARGS GPTR real* q, \\\n    const int K, const int E\nKERNEL void m(ARGS)\n{\n}\n";
        let (s, applied) = PlantedBug::LastElementUnwritten.apply(by_macro, false);
        assert!(applied, "{s}");
        assert!(
            s.contains("const int K_planted, const int E") && s.contains("(ARGS)\n{ const int K = K_planted - 1;"),
            "{s}"
        );
    }
}
