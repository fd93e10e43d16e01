//! Generates the bindings of `cuda-driver-sys` from one CUDA toolkit's `cuda.h` and
//! `cudaTypedefs.h`.
//!
//! Used in two places, with the same code: `cargo xtask regenerate` (through this crate's binary)
//! writes one set of files per header version, which its `merge` stage ([`merge`]) combines into
//! the committed files under `cuda-driver-sys-items/src/generated/`, and `cuda-driver-sys`'s
//! build script writes them into `OUT_DIR` under its `bindgen` feature.
//!
//! What it writes, per header version, each file by one module of this crate (its emitter, named
//! in the file's header; [`EMITTERS`]):
//! - `bindings.rs` (`bindings`): bindgen's translation (`bindgen_pass`, read back by `parsed`) of
//!   every type, enum and integer macro. Enums are `#[repr(transparent)]` newtypes with associated
//!   constants, so no value from the driver is ever stored in a Rust `enum`. Types include the
//!   legacy `_v1` types and `PFN_*` typedefs the header only declares under
//!   `__CUDA_API_VERSION_INTERNAL`.
//! - `functions.rs` (`functions`): the `extern` block of every function, under its real symbol
//!   (linked): the union of what the header declares normally and under
//!   `CUDA_API_PER_THREAD_DEFAULT_STREAM`.
//! - `function_names.rs` (`function_names`): the C spellings. `cuda.h` renames functions by macro
//!   (`cuCtxCreate` → `cuCtxCreate_v2`); each such name is re-exported as exactly the symbol the
//!   macro names, in both stream modes (the preprocessor's expansions: `macros`; the analysis
//!   that the other emitters read too: `c_spellings`).
//! - `names.rs` (`names`): the unversioned `PFN_cuX` macros, every enumerator at top level, and
//!   the macro constants bindgen cannot translate (pointer casts, aliases of enumerators).
//! - `entry.rs` (`entry`): one typed `EntryPoint` per versioned `PFN_*` typedef, and one per C
//!   spelling.
//! - `dynamic.rs` (`dynamic`): the same functions for the `dynamic-loading` feature, same names
//!   and signatures, each calling through a pointer that its first call resolves.
//! - `table.rs` (`table`): the driver-entry table's methods, one slot per C spelling.
//! - `linked.rs` (`linked`): a list, for tests only, of every C spelling with its linked address.
//!
//! The other driver-API headers (profiler, OpenGL, EGL, VDPAU: [`MODULES`], `header_set`) get the
//! same files, prefixed with the module's name (`gl_table.rs`), and a module root (`gl.rs`,
//! `module_root`) that the merge stage writes once, as it writes `driver_table.rs`
//! (`driver_table`): the driver-entry table's type, one field of slots per header.
//! `cargo xtask regenerate` also generates the OpenGL module for Windows
//! ([`Options::only_module`]): the merge puts what `cudaGL.h` declares only under `_WIN32`
//! (`cuWGLGetDevice`) under `cfg(windows)`. [`rust_syntax`] holds the `syn` helpers the merge and
//! the tests share.
//!
//! [`generate`] (`pipeline`) runs one version's generation: bindgen and the preprocessor over
//! each header set, the C-spelling analysis, then each emitter. `generated_file` writes each
//! file's header and reads its `CUDA_VERSION` back for the merge ([`generated_version`]).

mod bindgen_pass;
mod bindings;
mod c_spellings;
mod compat;
mod driver_table;
mod dynamic;
mod entry;
mod function_docs;
mod function_names;
mod functions;
mod generated_file;
mod header_docs;
mod header_set;
mod item_docs;
mod linked;
mod macros;
pub mod merge;
mod module_root;
mod names;
mod parsed;
mod pipeline;
pub mod rust_syntax;
mod table;
mod version_docs;

use std::path::PathBuf;

pub use generated_file::{emitter_line, generated_version, EMITTERS};
pub use header_set::{debian_packages, foreign_headers, HeaderSet, Wheel, CORE, MODULES};

/// A function a header declares, as its Doxygen groups place it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredFunction {
    /// The header (`cuda.h`, `cudaGL.h`, ...).
    pub header: &'static str,
    /// The name a C program calls it by (`cuMemAlloc`, not the symbol `cuMemAlloc_v2`).
    pub name: String,
    /// Its group's name (`CUDA_MEM`), where the header puts it in one.
    pub group: Option<String>,
    /// The group's title (`Memory Management`), where a `\defgroup` gives one.
    pub title: Option<String>,
}

/// Every function the driver-API headers in `dir` (`cuda.h` and those of [`MODULES`]) declare
/// for C programs (not the legacy ABIs declared only for the driver's own build), each header's
/// in the order it declares them: the list the coverage report (`cargo xtask coverage`) is held
/// to.
pub fn declared_functions(dir: &std::path::Path) -> Result<Vec<DeclaredFunction>, String> {
    let mut list = Vec::new();
    for set in std::iter::once(&CORE).chain(MODULES) {
        let header = set.headers[0];
        let path = dir.join(header);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let docs = header_docs::HeaderDocs::parse(header, &text);
        list.extend(
            docs.functions()
                .into_iter()
                .map(|(name, group)| DeclaredFunction {
                    header,
                    name: name.to_string(),
                    group: group.map(|g| g.name.clone()),
                    title: group.and_then(|g| g.title.clone()),
                }),
        );
    }
    Ok(list)
}
pub use pipeline::{generate, Summary};

/// What to generate from and where to write it.
pub struct Options {
    /// A directory holding `cuda.h` and `cudaTypedefs.h` (and, for [`MODULES`], the interop
    /// headers: `cudaGL.h`, `cudaProfiler.h`, ... with their typedef headers).
    pub include_dir: PathBuf,
    /// Where the OpenGL, EGL (and KHR) and VDPAU headers are (`GL/gl.h`, `EGL/eglext.h`,
    /// `vdpau/vdpau.h`): with it, every module of [`MODULES`] is generated too; without it, only
    /// `cuda.h`'s files.
    pub interop_include: Option<PathBuf>,
    /// Where the generated files go (created if missing).
    pub out_dir: PathBuf,
    /// The C compiler used as a preprocessor (`cc`, `gcc`, `clang`): its `-E -P` output resolves
    /// the header's renaming macros exactly as a C program sees them.
    pub c_compiler: PathBuf,
    /// How to regenerate, written at the top of every generated file.
    pub regenerate_hint: String,
    /// Where set, only the files of this module of [`MODULES`] are written (`gl`: the Windows
    /// pass of `cargo xtask regenerate`, whose other files are those of x86-64 Linux), and the
    /// [`Summary`] is the module's; `cuda.h` is still parsed, as the module's items use its types.
    pub only_module: Option<String>,
}

impl Options {
    /// The compiler arguments that parse `set`: the include directories, the set's definitions.
    pub(crate) fn clang_args(&self, set: &HeaderSet) -> Vec<String> {
        let mut args = vec![format!("-I{}", self.include_dir.display())];
        if let Some(dir) = &self.interop_include {
            args.push(format!("-I{}", dir.display()));
        }
        args.extend(set.defines.iter().map(|d| d.to_string()));
        args
    }
}
