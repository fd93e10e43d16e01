//! Generates the bindings of `cuda-driver-sys` from one CUDA toolkit's `cuda.h` and
//! `cudaTypedefs.h`.
//!
//! Used in two places, with the same code: `ci/regenerate.sh` (through this crate's binary) writes
//! one set of files per header version, which its `merge` stage ([`merge`]) combines into the
//! committed files under `cuda-driver-sys/src/generated/`, and `cuda-driver-sys`'s
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
//!   macro names, in both stream modes (the preprocessor's expansions: `macros`).
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
//! `module_root`) that the merge stage writes once. `ci/regenerate.sh` also generates the OpenGL
//! module for Windows ([`Options::only_module`]): the merge puts what `cudaGL.h` declares only
//! under `_WIN32` (`cuWGLGetDevice`) under `cfg(windows)`. [`rust_syntax`] holds the `syn`
//! helpers the merge and the tests share.

mod bindgen_pass;
mod bindings;
mod c_spellings;
mod compat;
mod dynamic;
mod entry;
mod function_docs;
mod function_names;
mod functions;
mod header_docs;
mod header_set;
mod item_docs;
mod linked;
mod macros;
pub mod merge;
mod module_root;
mod names;
mod parsed;
pub mod rust_syntax;
mod table;
mod version_docs;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;

use bindgen_pass::{run_bindgen, strip_core};
use function_docs::function_facts;
use header_docs::HeaderDocs;
pub use header_set::{HeaderSet, CORE, MODULES};
use item_docs::SetDocs;
use macros::{expand_macros, object_like_macros, unsigned_complements};
use parsed::{parse, Parsed};

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
    /// pass of `ci/regenerate.sh`, whose other files are those of x86-64 Linux), and the
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

/// A summary of one generation, for logs.
#[derive(Debug)]
pub struct Summary {
    pub cuda_version: u32,
    pub functions: usize,
    pub c_spellings: usize,
    pub pfn_typedefs: usize,
    pub enumerators: usize,
    pub macro_constants: usize,
    /// C spellings whose `PFN_*` version was derived from the signature (the header has no
    /// `PFN_cuX` macro for them).
    pub derived_pfn_versions: usize,
    /// The same for each module of [`MODULES`] generated.
    pub modules: Vec<(&'static str, Summary)>,
}

/// Runs the whole generation: `cuda.h`'s files, and with [`Options::interop_include`] those of
/// every module of [`MODULES`]. Errors say what in the header could not be handled.
pub fn generate(opts: &Options) -> Result<Summary, String> {
    if let Some(m) = &opts.only_module {
        let set = MODULES
            .iter()
            .find(|s| s.module == m && opts.interop_include.is_some())
            .ok_or_else(|| {
                format!(
                    "--only {m}: not a module of the interop headers (profiler, gl, egl, vdpau), \
                     or no --interop directory"
                )
            })?;
        // The module's items use cuda.h's types: one bindgen run of its internal view (the
        // legacy functions it keeps are none of the module's), no file of its written.
        let core_src = run_bindgen(opts, &CORE, &INTERNAL_DEFINES, &BTreeSet::new())?;
        let core = (parse(&core_src)?, core_src);
        return Ok(generate_set(opts, set, Some(&core))?.0);
    }
    let (mut summary, core) = generate_set(opts, &CORE, None)?;
    if opts.interop_include.is_some() {
        for set in &MODULES {
            let (s, _) = generate_set(opts, set, Some(&core))?;
            summary.modules.push((set.module, s));
        }
    }
    Ok(summary)
}

/// The definitions of the driver's own internal view of a header: every item, legacy types and
/// `PFN_*` typedefs included.
const INTERNAL_DEFINES: [&str; 2] = [
    "-D__CUDA_API_VERSION_INTERNAL",
    "-D__CUDA_API_VERSION_INTERNAL_ODR",
];

/// Generates the files of one header set. A module's items name `cuda.h`'s types, which `core`
/// (the parsed `cuda.h` bindings, and bindgen's text of them) resolves when signatures are
/// compared; `cuda.h`'s items that bindgen emits again for a module are dropped from it.
fn generate_set(
    opts: &Options,
    set: &HeaderSet,
    core: Option<&(Parsed, String)>,
) -> Result<(Summary, (Parsed, String)), String> {
    let run_bindgen = |opts: &Options,
                       set: &HeaderSet,
                       defines: &[&str],
                       blocked: &BTreeSet<String>|
     -> Result<String, String> {
        let src = run_bindgen(opts, set, defines, blocked)?;
        match core {
            Some((_, core_src)) => strip_core(&src, core_src),
            None => Ok(src),
        }
    };
    let core = core.map(|c| &c.0);
    let cuda_h = read(&opts.include_dir.join("cuda.h"))?;
    let header_h = read(&opts.include_dir.join(set.headers[0]))?;
    let typedefs_h = read(&opts.include_dir.join(set.headers[1]))?;
    let cuda_version = cuda_version(&cuda_h)?;
    let docs = SetDocs {
        header: HeaderDocs::parse(set.headers[0], &header_h),
        typedefs: HeaderDocs::parse(set.headers[1], &typedefs_h),
    };
    let with_core = |mut p: Parsed| {
        if let Some(core) = core {
            for (k, v) in &core.aliases {
                p.aliases.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        p
    };

    // Functions as a C program sees them, in both stream modes.
    let normal = with_core(parse(&run_bindgen(opts, set, &[], &BTreeSet::new())?)?);
    let per_thread = with_core(parse(&run_bindgen(
        opts,
        set,
        &["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
        &BTreeSet::new(),
    )?)?);
    let wanted: BTreeSet<String> = normal
        .functions
        .keys()
        .chain(per_thread.functions.keys())
        .cloned()
        .collect();

    // Everything, legacy types and PFN typedefs included, from the driver's own internal view;
    // minus the legacy functions whose names the C spellings take over.
    let probe = parse(&run_bindgen(
        opts,
        set,
        &INTERNAL_DEFINES,
        &BTreeSet::new(),
    )?)?;
    let legacy: BTreeSet<String> = probe
        .functions
        .keys()
        .filter(|f| !wanted.contains(*f))
        .cloned()
        .collect();
    let bindings_src = run_bindgen(opts, set, &INTERNAL_DEFINES, &legacy)?;
    let mut bindings = with_core(parse(&bindings_src)?);
    // Enumerators the header declares only under __CUDA_API_VERSION_INTERNAL (12.1-12.4:
    // CU_LAUNCH_ATTRIBUTE_MAX) are none of a C program's: the enums keep what it sees.
    let mut internal_only: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (ty, consts) in bindings.enums.iter_mut() {
        if let Some(seen) = normal.enums.get(ty) {
            let (keep, drop): (Vec<String>, Vec<String>) =
                consts.drain(..).partition(|c| seen.contains(c));
            *consts = keep;
            if !drop.is_empty() {
                internal_only.insert(ty.clone(), drop.into_iter().collect());
            }
        }
    }
    for f in &wanted {
        if !bindings.functions.contains_key(f) {
            return Err(format!(
                "function {f} is declared by {} but missing from the internal view",
                set.headers[0]
            ));
        }
    }

    // Macro expansions, as the preprocessor sees them in each mode.
    let mut macro_names = object_like_macros(&header_h);
    macro_names.extend(object_like_macros(&typedefs_h));
    let exp_normal = expand_macros(opts, set, &macro_names, &[])?;
    let exp_pt = expand_macros(
        opts,
        set,
        &macro_names,
        &["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
    )?;

    let spellings = c_spellings::analyse(
        &bindings,
        &macro_names,
        &exp_normal,
        &exp_pt,
        &normal,
        &per_thread,
    )?;
    let names = names::generate(&bindings, &macro_names, &exp_normal, &spellings, &docs)?;
    let entries = entry::generate(&bindings, &spellings)?;
    let facts = |sym: &str| function_facts(sym, &spellings, &entries.c_spelling, &docs);

    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| format!("{}: {e}", opts.out_dir.display()))?;
    let write = |name: &str, body: &str| {
        let header = file_header(set, name, cuda_version, &opts.regenerate_hint)?;
        let path = opts.out_dir.join(set.file(name));
        std::fs::write(&path, format!("{header}{body}"))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    // Macros the header #undefs again (13.5: RESOURCE_ABI_BYTES) are no constants of the API:
    // bindgen reports every #define it saw, the preprocessor what is left at the end.
    let undefined: BTreeSet<String> = bindings
        .consts
        .keys()
        .filter(|c| exp_normal.get(*c).is_some_and(|e| e == *c))
        .cloned()
        .collect();
    let unsigned = unsigned_complements(&bindings, &exp_normal);
    let (types_src, extern_blocks, renumbered) =
        bindings::split_functions(&bindings_src, &undefined, &unsigned, &internal_only, &docs)?;
    write("bindings.rs", &types_src)?;
    write("functions.rs", &functions::emit(extern_blocks, &facts))?;
    let names_tokens = compat::mark_top_level(names.tokens.clone(), &renumbered)?;
    write("names.rs", &format_tokens(names_tokens)?)?;
    write(
        "function_names.rs",
        &format_tokens(function_names::generate(&spellings.functions))?,
    )?;
    write(
        "table.rs",
        &format_tokens(table::generate(
            &bindings,
            &spellings,
            &entries.c_spelling,
            set,
        )?)?,
    )?;
    write(
        "dynamic.rs",
        &format_tokens(dynamic::generate(
            &bindings,
            &spellings,
            &entries.c_spelling,
            set,
            &facts,
        )?)?,
    )?;
    write("entry.rs", &format_tokens(entries.tokens)?)?;
    write(
        "linked.rs",
        &linked::generate(&spellings, &entries.c_spelling),
    )?;

    let summary = Summary {
        cuda_version,
        functions: bindings.functions.len(),
        c_spellings: spellings.functions.len(),
        pfn_typedefs: bindings.pfns.len(),
        enumerators: names.enumerators,
        macro_constants: names.macro_constants,
        derived_pfn_versions: entries.derived,
        modules: Vec::new(),
    };
    Ok((summary, (bindings, bindings_src)))
}

/// The `CUDA_VERSION` a directory of generated files was generated from (from the header line of
/// its `bindings.rs`, or of its first file where it holds one module's: `--only`).
pub fn generated_version(dir: &Path) -> Result<u32, String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    names.sort();
    let first = names
        .iter()
        .find(|p| p.ends_with("bindings.rs"))
        .or(names.first())
        .ok_or_else(|| format!("{}: no generated file", dir.display()))?;
    let text = read(first)?;
    let re = regex::Regex::new(r"\(CUDA_VERSION (\d+)\)").unwrap();
    re.captures(text.lines().next().unwrap_or_default())
        .and_then(|c| c[1].parse().ok())
        .ok_or_else(|| {
            format!(
                "{}: no `(CUDA_VERSION N)` in its first line",
                first.display()
            )
        })
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Each kind of generated file (a module's files have its prefix: `gl_table.rs`) and the module
/// of this crate that writes it.
pub const EMITTERS: [(&str, &str); 8] = [
    ("bindings.rs", "bindings"),
    ("dynamic.rs", "dynamic"),
    ("entry.rs", "entry"),
    ("function_names.rs", "function_names"),
    ("functions.rs", "functions"),
    ("linked.rs", "linked"),
    ("names.rs", "names"),
    ("table.rs", "table"),
];

/// The line of a generated file's header that names its emitter, for the file `name` of `set`
/// (`table.rs` or `gl_table.rs`).
pub fn emitter_line(set: &HeaderSet, name: &str) -> Result<String, String> {
    let kind = name.strip_prefix(&set.file("")).unwrap_or(name);
    let (_, module) = EMITTERS
        .iter()
        .find(|(file, _)| *file == kind)
        .ok_or_else(|| format!("{name}: no emitter writes such a file"))?;
    Ok(format!(
        "// Emitter: cuda_driver_sys_generator::{module} (cuda-driver-sys/generator/src/{module}.rs)."
    ))
}

/// The header of a generated file of one version: the first line says the `CUDA_VERSION`
/// ([`generated_version`] reads it), the second the emitter; a blank line ends it.
fn file_header(set: &HeaderSet, name: &str, version: u32, hint: &str) -> Result<String, String> {
    Ok(format!(
        "// @generated by cuda-driver-sys-generator from CUDA {}.{} {} and {} \
         (CUDA_VERSION {version}).\n{}\n// Do not edit by hand. To regenerate: {hint}\n\n",
        version / 1000,
        version % 1000 / 10,
        set.headers[0],
        set.headers[1],
        emitter_line(set, name)?,
    ))
}

fn cuda_version(cuda_h: &str) -> Result<u32, String> {
    let re = regex::Regex::new(r"(?m)^#define CUDA_VERSION (\d+)").unwrap();
    re.captures(cuda_h)
        .and_then(|c| c[1].parse().ok())
        .ok_or_else(|| "cuda.h defines no CUDA_VERSION".to_string())
}

/// Items as prettyplease writes a file of them.
fn unparse(items: Vec<syn::Item>) -> String {
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: vec![],
        items,
    })
}

fn format_tokens(tokens: TokenStream) -> Result<String, String> {
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("generated code does not parse: {e}"))?;
    Ok(prettyplease::unparse(&file))
}
