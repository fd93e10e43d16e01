//! Generates the bindings of `cuda-driver-sys` from one CUDA toolkit's `cuda.h` and
//! `cudaTypedefs.h`.
//!
//! Used in two places, with the same code: `ci/regenerate.sh` (through this crate's binary) writes
//! one set of files per header version, which its `merge` stage ([`merge`]) combines into the
//! committed files under `cuda-driver-sys/src/generated/`, and `cuda-driver-sys`'s
//! build script writes them into `OUT_DIR` under its `bindgen` feature.
//!
//! What it writes, per header version:
//! - `bindings.rs`: bindgen's translation of every type, function, enum and integer macro. Enums
//!   are `#[repr(transparent)]` newtypes with associated constants, so no value from the driver is
//!   ever stored in a Rust `enum`. Functions are the union of what the header declares normally and
//!   under `CUDA_API_PER_THREAD_DEFAULT_STREAM`; types include the legacy `_v1` types and `PFN_*`
//!   typedefs the header only declares under `__CUDA_API_VERSION_INTERNAL`.
//! - `names.rs`: the C spellings. `cuda.h` renames functions by macro (`cuCtxCreate` →
//!   `cuCtxCreate_v2`); each such name is re-exported as exactly the symbol the macro names, in
//!   both stream modes. Also the unversioned `PFN_cuX` macros, every enumerator at top level, and
//!   the macro constants bindgen cannot translate (pointer casts, aliases of enumerators).
//! - `entry.rs`: one typed `EntryPoint` per versioned `PFN_*` typedef, and one per C spelling.
//! - `functions.rs`: the `extern` block of every function, under its real symbol (linked).
//! - `dynamic.rs`: the same functions for the `dynamic-loading` feature, same names and
//!   signatures, each calling through a pointer that its first call resolves.
//! - `table.rs`: the driver-entry table's methods, one slot per C spelling.
//!
//! The other driver-API headers (profiler, OpenGL, EGL, VDPAU: [`MODULES`]) get the same files,
//! prefixed with the module's name (`gl_table.rs`).
//! - `linked.rs`: a list, for tests only, of every C spelling with its linked address.

pub mod merge;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

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
}

/// One driver-API header and its typedef header, generated into one set of files.
pub struct HeaderSet {
    /// The module of `cuda-driver-sys` (and the feature) it becomes, and the prefix of its files
    /// (`gl` → `gl_bindings.rs`, ...); empty for `cuda.h`, whose files have no prefix.
    pub module: &'static str,
    /// The header and its typedef header: their items are what the set binds.
    pub headers: [&'static str; 2],
    /// What a C program includes before them (`cudaVDPAU.h` does not include `vdpau/vdpau.h`).
    pub prelude: &'static [&'static str],
    /// Preprocessor definitions for the foreign headers (`EGL_NO_X11`: EGL's native types without
    /// Xlib, the same sizes).
    pub defines: &'static [&'static str],
}

/// `cuda.h` and `cudaTypedefs.h`.
pub const CORE: HeaderSet = HeaderSet {
    module: "",
    headers: ["cuda.h", "cudaTypedefs.h"],
    prelude: &[],
    defines: &[],
};

/// The other driver-API headers, each bound as an optional module of `cuda-driver-sys`. Their
/// items from other APIs (`GLuint`, `EGLImageKHR`, `VdpDevice`, ...) are bound from those APIs'
/// own headers; `cuda.h`'s items are not repeated (the modules use the crate's).
pub const MODULES: [HeaderSet; 4] = [
    HeaderSet {
        module: "profiler",
        headers: ["cudaProfiler.h", "cudaProfilerTypedefs.h"],
        prelude: &[],
        defines: &[],
    },
    HeaderSet {
        module: "gl",
        headers: ["cudaGL.h", "cudaGLTypedefs.h"],
        prelude: &["GL/gl.h"],
        defines: &[],
    },
    HeaderSet {
        module: "egl",
        headers: ["cudaEGL.h", "cudaEGLTypedefs.h"],
        prelude: &[],
        defines: &["-DEGL_NO_X11"],
    },
    HeaderSet {
        module: "vdpau",
        headers: ["cudaVDPAU.h", "cudaVDPAUTypedefs.h"],
        prelude: &["vdpau/vdpau.h"],
        defines: &[],
    },
];

impl HeaderSet {
    fn is_core(&self) -> bool {
        self.module.is_empty()
    }

    /// The field of `DriverTable` that holds this header's slots (`core` for `cuda.h`).
    pub fn table_field(&self) -> &'static str {
        if self.is_core() {
            "core"
        } else {
            self.module
        }
    }

    /// The file `name` of this set (`gl_bindings.rs`).
    pub fn file(&self, name: &str) -> String {
        if self.is_core() {
            name.to_string()
        } else {
            format!("{}_{name}", self.module)
        }
    }

    /// What the bindings are generated from: the headers as a C program includes them.
    fn wrapper(&self) -> String {
        let mut w = String::from("#include <cuda.h>\n");
        for h in self.prelude.iter().chain(&self.headers) {
            if *h != "cuda.h" {
                writeln!(w, "#include <{h}>").unwrap();
            }
        }
        w
    }

    fn clang_args(&self, opts: &Options) -> Vec<String> {
        let mut args = vec![format!("-I{}", opts.include_dir.display())];
        if let Some(dir) = &opts.interop_include {
            args.push(format!("-I{}", dir.display()));
        }
        args.extend(self.defines.iter().map(|d| d.to_string()));
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
    let (mut summary, core) = generate_set(opts, &CORE, None)?;
    if opts.interop_include.is_some() {
        for set in &MODULES {
            let (s, _) = generate_set(opts, set, Some(&core))?;
            summary.modules.push((set.module, s));
        }
    }
    Ok(summary)
}

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
    let internal_defines = [
        "-D__CUDA_API_VERSION_INTERNAL",
        "-D__CUDA_API_VERSION_INTERNAL_ODR",
    ];
    let probe = parse(&run_bindgen(
        opts,
        set,
        &internal_defines,
        &BTreeSet::new(),
    )?)?;
    let legacy: BTreeSet<String> = probe
        .functions
        .keys()
        .filter(|f| !wanted.contains(*f))
        .cloned()
        .collect();
    let bindings_src = run_bindgen(opts, set, &internal_defines, &legacy)?;
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

    let header = file_header(set, cuda_version, &opts.regenerate_hint);
    let names = gen_names(
        &bindings,
        &macro_names,
        &exp_normal,
        &exp_pt,
        &normal,
        &per_thread,
    )?;
    let entries = gen_entries(&bindings, &names)?;

    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| format!("{}: {e}", opts.out_dir.display()))?;
    let write = |name: &str, body: &str| {
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
    let (types_src, functions_src) =
        split_functions(&bindings_src, &undefined, &unsigned, &internal_only)?;
    write("bindings.rs", &types_src)?;
    write("functions.rs", &functions_src)?;
    write("names.rs", &format_tokens(names.tokens.clone())?)?;
    write(
        "function_names.rs",
        &format_tokens(names.function_tokens.clone())?,
    )?;
    write(
        "table.rs",
        &format_tokens(gen_table(&bindings, &names, &entries.c_spelling, set)?)?,
    )?;
    write(
        "dynamic.rs",
        &format_tokens(gen_dynamic(&bindings, &names, &entries.c_spelling, set)?)?,
    )?;
    write("entry.rs", &format_tokens(entries.tokens)?)?;
    write("linked.rs", &gen_linked(&names, &entries.c_spelling))?;

    let summary = Summary {
        cuda_version,
        functions: bindings.functions.len(),
        c_spellings: names.functions.len(),
        pfn_typedefs: bindings.pfns.len(),
        enumerators: names.enumerators,
        macro_constants: names.macro_constants,
        derived_pfn_versions: entries.derived,
        modules: Vec::new(),
    };
    Ok((summary, (bindings, bindings_src)))
}

/// The `CUDA_VERSION` a directory of generated files was generated from (from the header line of
/// its `bindings.rs`).
pub fn generated_version(dir: &Path) -> Result<u32, String> {
    let text = read(&dir.join("bindings.rs"))?;
    let re = regex::Regex::new(r"\(CUDA_VERSION (\d+)\)").unwrap();
    re.captures(text.lines().next().unwrap_or_default())
        .and_then(|c| c[1].parse().ok())
        .ok_or_else(|| {
            format!(
                "{}: no `(CUDA_VERSION N)` in the first line of bindings.rs",
                dir.display()
            )
        })
}

/// Macro constants that complement an unsigned literal (13.5: `(~0u)`): bindgen's evaluator
/// loses the unsignedness and writes `i32 = -1`; C's value is the unsigned one (`0xffffffff`).
fn unsigned_complements(
    b: &Parsed,
    expansions: &BTreeMap<String, String>,
) -> BTreeMap<String, syn::Item> {
    static RE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^\(*~(0[xX][0-9a-fA-F]+|\d+)([uU])([lL]{0,2})\)*$").unwrap()
    });
    let mut out = BTreeMap::new();
    for name in b.consts.keys() {
        let Some(e) = expansions.get(name) else {
            continue;
        };
        let e: String = e.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(c) = RE.captures(&e) else { continue };
        let literal = &c[1];
        let n = match literal
            .strip_prefix("0x")
            .or_else(|| literal.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => literal.parse(),
        };
        let Ok(n) = n else { continue };
        let id = format_ident!("{name}");
        // `u`: unsigned int; `ul`, `ull`: 64 bits on the platforms CUDA supports (LP64).
        let item: syn::Item = if c[3].is_empty() {
            let v = proc_macro2::Literal::u32_unsuffixed(!(n as u32));
            syn::parse_quote!(pub const #id: u32 = #v;)
        } else {
            let v = proc_macro2::Literal::u64_unsuffixed(!n);
            syn::parse_quote!(pub const #id: u64 = #v;)
        };
        out.insert(name.clone(), item);
    }
    out
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn file_header(set: &HeaderSet, version: u32, hint: &str) -> String {
    format!(
        "// @generated by cuda-driver-sys-generator from CUDA {}.{} {} and {} \
         (CUDA_VERSION {version}).\n// Do not edit by hand. To regenerate: {hint}\n\n",
        version / 1000,
        version % 1000 / 10,
        set.headers[0],
        set.headers[1],
    )
}

fn cuda_version(cuda_h: &str) -> Result<u32, String> {
    let re = regex::Regex::new(r"(?m)^#define CUDA_VERSION (\d+)").unwrap();
    re.captures(cuda_h)
        .and_then(|c| c[1].parse().ok())
        .ok_or_else(|| "cuda.h defines no CUDA_VERSION".to_string())
}

fn format_tokens(tokens: TokenStream) -> Result<String, String> {
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("generated code does not parse: {e}"))?;
    Ok(prettyplease::unparse(&file))
}

// ---------------------------------------------------------------------------------------------
// bindgen

/// The regex bindgen matches a header's path with.
fn file_regex(header: &str) -> String {
    format!(".*[/\\\\]{}", regex::escape(header))
}

fn run_bindgen(
    opts: &Options,
    set: &HeaderSet,
    defines: &[&str],
    blocked: &BTreeSet<String>,
) -> Result<String, String> {
    let mut builder = bindgen::Builder::default()
        .header_contents("cuda_driver_sys_wrapper.h", &set.wrapper())
        .clang_args(set.clang_args(opts))
        .clang_args(defines.iter().copied());
    for h in set.headers {
        builder = builder.allowlist_file(file_regex(h));
    }
    builder = builder
        .use_core()
        .ctypes_prefix("::core::ffi")
        .default_enum_style(bindgen::EnumVariation::NewType {
            is_bitfield: false,
            is_global: false,
        })
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(true)
        .derive_copy(true)
        // Enum newtypes always get PartialEq, Eq and Hash (matching, map keys); structs get only
        // Debug, Copy, Clone and Default, as C's (comparing their callbacks means little, and
        // the derives would cost every dependent's build).
        .derive_eq(false)
        .derive_hash(false)
        .derive_partialeq(false)
        .impl_debug(false)
        .layout_tests(false)
        .generate_comments(false)
        .merge_extern_blocks(true)
        .must_use_type("cudaError_enum")
        .must_use_type("CUresult");
    for f in blocked {
        builder = builder.blocklist_function(format!("^{f}$"));
    }
    let bindings = builder.generate().map_err(|e| {
        format!(
            "bindgen failed on {} in {}: {e}",
            set.headers[0],
            opts.include_dir.display()
        )
    })?;
    Ok(bindings.to_string())
}

/// The name an item of bindgen's output defines (for an `impl`, its type's).
fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Struct(s) => s.ident.to_string(),
        syn::Item::Union(u) => u.ident.to_string(),
        syn::Item::Type(t) => t.ident.to_string(),
        syn::Item::Const(c) => c.ident.to_string(),
        syn::Item::Enum(e) => e.ident.to_string(),
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        syn::Item::Impl(i) => format!("impl {}", i.self_ty.to_token_stream()),
        syn::Item::Use(u) => format!("use {}", u.tree.to_token_stream()),
        _ => return None,
    })
}

/// A module's bindgen output without `cuda.h`'s items, which bindgen emits again where the
/// module's items use them (`CUresult`, `CUarray`): the module uses the crate's. bindgen is not
/// told to leave them out (a blocklisted type is one it cannot derive `Copy` for, which would
/// change how the module's unions are written); each item dropped must be exactly `cuda.h`'s.
fn strip_core(src: &str, core_src: &str) -> Result<String, String> {
    let parse =
        |s: &str| syn::parse_file(s).map_err(|e| format!("bindgen output does not parse: {e}"));
    let core = parse(core_src)?;
    let core_items: BTreeMap<String, Vec<String>> =
        core.items.iter().fold(BTreeMap::new(), |mut m, i| {
            if let Some(n) = item_name(i) {
                m.entry(n)
                    .or_default()
                    .push(i.to_token_stream().to_string());
            }
            m
        });
    let mut file = parse(src)?;
    let mut err = None;
    file.items.retain(|i| {
        let Some(name) = item_name(i) else {
            return true;
        };
        match core_items.get(&name) {
            None => true,
            Some(texts) if texts.contains(&i.to_token_stream().to_string()) => false,
            Some(_) => {
                err = Some(format!(
                    "the module's `{name}` differs from cuda.h's item of that name"
                ));
                true
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(prettyplease::unparse(&file)),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading bindgen's output back

struct Parsed {
    /// Function name → its declaration.
    functions: BTreeMap<String, syn::ForeignItemFn>,
    /// `pub type A = B;` for every non-PFN alias.
    aliases: BTreeMap<String, syn::Type>,
    /// `PFN_*` typedef name → the bare function type inside its `Option<...>`.
    pfns: BTreeMap<String, syn::TypeBareFn>,
    /// Newtype enum name → its constants (name, value tokens).
    enums: BTreeMap<String, Vec<String>>,
    /// Top-level `pub const NAME: TYPE` (macro constants bindgen translated).
    consts: BTreeMap<String, syn::Type>,
}

fn parse(src: &str) -> Result<Parsed, String> {
    let file = syn::parse_file(src).map_err(|e| format!("bindgen output does not parse: {e}"))?;
    let mut p = Parsed {
        functions: BTreeMap::new(),
        aliases: BTreeMap::new(),
        pfns: BTreeMap::new(),
        enums: BTreeMap::new(),
        consts: BTreeMap::new(),
    };
    let mut newtypes = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::ForeignMod(m) => {
                for fi in &m.items {
                    if let syn::ForeignItem::Fn(f) = fi {
                        p.functions.insert(f.sig.ident.to_string(), f.clone());
                    }
                }
            }
            syn::Item::Type(t) => {
                let name = t.ident.to_string();
                if name.starts_with("PFN_") {
                    let inner = option_inner(&t.ty)
                        .ok_or_else(|| format!("{name} is not an Option<fn> typedef"))?;
                    p.pfns.insert(name, inner);
                } else {
                    p.aliases.insert(name, (*t.ty).clone());
                }
            }
            syn::Item::Struct(s) => {
                let is_newtype = s.attrs.iter().any(|a| {
                    a.path().is_ident("repr")
                        && a.to_token_stream().to_string().contains("transparent")
                });
                if is_newtype {
                    newtypes.insert(s.ident.to_string());
                }
            }
            syn::Item::Impl(i) => {
                let ty = i.self_ty.to_token_stream().to_string();
                for ii in &i.items {
                    if let syn::ImplItem::Const(c) = ii {
                        p.enums
                            .entry(ty.clone())
                            .or_default()
                            .push(c.ident.to_string());
                    }
                }
            }
            syn::Item::Const(c) => {
                p.consts.insert(c.ident.to_string(), (*c.ty).clone());
            }
            // bindgen writes `typedef enum X_enum {..} X;` as `pub use self::X_enum as X;`.
            syn::Item::Use(u) => {
                if let syn::UseTree::Path(path) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*path.tree {
                        let target: syn::Type = syn::parse_str(&r.ident.to_string()).unwrap();
                        p.aliases.insert(r.rename.to_string(), target);
                    }
                }
            }
            _ => {}
        }
    }
    p.enums.retain(|k, _| newtypes.contains(k));
    Ok(p)
}

fn option_inner(ty: &syn::Type) -> Option<syn::TypeBareFn> {
    let syn::Type::Path(tp) = ty else { return None };
    let last = tp.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(syn::Type::BareFn(f)) => Some(f.clone()),
        _ => None,
    }
}

impl Parsed {
    /// A type with every typedef resolved, as a string: two signatures with the same canonical
    /// text have the same ABI.
    fn canonical(&self, ty: &syn::Type) -> String {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() && tp.path.segments.len() == 1 => {
                let name = tp.path.segments[0].ident.to_string();
                match self.aliases.get(&name) {
                    Some(t) => self.canonical(t),
                    None => name,
                }
            }
            syn::Type::Ptr(p) => format!(
                "*{} {}",
                if p.mutability.is_some() {
                    "mut"
                } else {
                    "const"
                },
                self.canonical(&p.elem)
            ),
            other => other.to_token_stream().to_string(),
        }
    }

    fn fn_signature(&self, f: &syn::ForeignItemFn) -> String {
        let args: Vec<String> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => self.canonical(&t.ty),
                syn::FnArg::Receiver(_) => unreachable!("extern functions have no receiver"),
            })
            .collect();
        format!("({}) -> {}", args.join(", "), self.ret(&f.sig.output))
    }

    fn pfn_signature(&self, f: &syn::TypeBareFn) -> String {
        let args: Vec<String> = f.inputs.iter().map(|a| self.canonical(&a.ty)).collect();
        format!("({}) -> {}", args.join(", "), self.ret(&f.output))
    }

    fn ret(&self, r: &syn::ReturnType) -> String {
        match r {
            syn::ReturnType::Default => "()".into(),
            syn::ReturnType::Type(_, t) => self.canonical(t),
        }
    }

    /// Which typedef names an enum type: `CUresult` for `cudaError_enum`, the enum itself where
    /// none does.
    fn enum_display_names(&self) -> BTreeMap<String, String> {
        let mut names: BTreeMap<String, String> =
            self.enums.keys().map(|k| (k.clone(), k.clone())).collect();
        for (alias, ty) in &self.aliases {
            let target = ty.to_token_stream().to_string();
            if let Some(n) = names.get_mut(&target) {
                if n == &target {
                    *n = alias.clone();
                }
            }
        }
        names
    }
}

// ---------------------------------------------------------------------------------------------
// Macros

fn object_like_macros(header: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"(?m)^\s*#\s*define\s+([A-Za-z_]\w*)(\s|$)").unwrap();
    re.captures_iter(header).map(|c| c[1].to_string()).collect()
}

/// Expands each macro through the C preprocessor, with the header included as a C program
/// includes it. A macro not defined in this mode expands to its own name.
fn expand_macros(
    opts: &Options,
    set: &HeaderSet,
    names: &BTreeSet<String>,
    defines: &[&str],
) -> Result<BTreeMap<String, String>, String> {
    let dir = opts.out_dir.join(".preprocess");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let probe = dir.join("probe.c");
    let mut src = set.wrapper();
    for n in names {
        writeln!(src, "__cuda_driver_sys_macro__ \"{n}\" {n}").unwrap();
    }
    std::fs::write(&probe, src).map_err(|e| format!("{}: {e}", probe.display()))?;
    let out = Command::new(&opts.c_compiler)
        .args(["-E", "-P"])
        .args(set.clang_args(opts))
        .args(defines)
        .arg(&probe)
        .output()
        .map_err(|e| {
            format!(
                "cannot run the C preprocessor {}: {e}",
                opts.c_compiler.display()
            )
        })?;
    std::fs::remove_dir_all(&dir).ok();
    if !out.status.success() {
        return Err(format!(
            "the C preprocessor {} failed: {}",
            opts.c_compiler.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let re = regex::Regex::new(r#"^__cuda_driver_sys_macro__ "(\w+)" ?(.*)$"#).unwrap();
    let mut map = BTreeMap::new();
    for line in text.lines() {
        if let Some(c) = re.captures(line) {
            map.insert(c[1].to_string(), c[2].trim().to_string());
        }
    }
    if map.len() != names.len() {
        return Err(format!(
            "the preprocessor expanded {} of {} macros",
            map.len(),
            names.len()
        ));
    }
    Ok(map)
}

/// Macros that are no constants of the API: include guards, calling conventions, attribute and
/// versioning helpers, feature-test markers. Anything else the generator cannot translate is an
/// error, so a new kind of macro in a new header is never dropped silently.
fn is_non_constant_macro(name: &str, expansion: &str) -> bool {
    name.starts_with("__")
        || expansion.is_empty()
        || matches!(
            name,
            "CUDAAPI" | "CUDA_CB" | "CUDATYPEDEFS_H" | "CU_UUID_HAS_BEEN_DEFINED"
        )
        || expansion.starts_with("__attribute__")
}

// ---------------------------------------------------------------------------------------------
// names.rs

struct Names {
    /// `PFN_cuX` aliases, enumerators, macro constants.
    tokens: TokenStream,
    /// The C spellings of functions.
    function_tokens: TokenStream,
    /// C spelling → (symbol in the normal mode, symbol in the per-thread mode). A symbol may be
    /// a hand-written inline (`cuGetProcAddress_v2_ptsz`).
    functions: BTreeMap<String, (String, String)>,
    /// `PFN_cuX` macro → (typedef in the normal mode, in the per-thread mode), where the header
    /// has such macros.
    pfn_macros: BTreeMap<String, (String, String)>,
    enumerators: usize,
    macro_constants: usize,
    /// PFN macros of the header that name no type.
    broken: Vec<String>,
}

/// `cuda.h`'s static inline functions, written by hand in `cuda-driver-sys`: the per-thread
/// `cuGetProcAddress` of CUDA 12+ (`_v2_ptsz`) and of CUDA 11 (`_ptsz`).
const HAND_WRITTEN_INLINES: &[&str] = &["cuGetProcAddress_v2_ptsz", "cuGetProcAddress_ptsz"];

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

fn gen_names(
    b: &Parsed,
    macros: &BTreeSet<String>,
    exp_n: &BTreeMap<String, String>,
    exp_p: &BTreeMap<String, String>,
    normal: &Parsed,
    per_thread: &Parsed,
) -> Result<Names, String> {
    let mut out = TokenStream::new();
    let mut functions = BTreeMap::new();
    let mut pfn_macros = BTreeMap::new();
    let mut handled = BTreeSet::new();
    let mut broken = Vec::new();
    let declared =
        |f: &str, p: &Parsed| p.functions.contains_key(f) || HAND_WRITTEN_INLINES.contains(&f);

    // Every function a C program can call by name, with the symbol the call reaches.
    for f in normal.functions.keys() {
        functions.insert(f.clone(), (f.clone(), f.clone()));
    }
    for m in macros {
        let (n, p) = (&exp_n[m], &exp_p[m]);
        let n_fn = is_ident(n) && declared(n, normal);
        let p_fn = is_ident(p) && declared(p, per_thread);
        if m.starts_with("PFN_") {
            // Header typos make some macros unusable in C as well (12.x:
            // `PFN_cuGraphBatchMemOpNodeSetParams _v11070`, `PFN_cuStreamGetId_v12000_v12000`):
            // such a macro is recorded and not bound.
            let typedef = |e: &str| is_ident(e) && b.pfns.contains_key(e);
            if typedef(n) && typedef(p) {
                pfn_macros.insert(m.clone(), (n.clone(), p.clone()));
            } else if !typedef(n) {
                broken.push(format!("`{m}` expands to `{n}`"));
            } else {
                broken.push(format!("`{m}` expands to `{p}` in the per-thread mode"));
            }
            handled.insert(m.clone());
            continue;
        }
        if !(n_fn || p_fn) {
            continue;
        }
        // A name that is a function in one mode only keeps its own symbol in the other.
        let n_sym = if n_fn { n.clone() } else { m.clone() };
        let p_sym = if p_fn { p.clone() } else { m.clone() };
        if !declared(&n_sym, normal) && !declared(&p_sym, per_thread) {
            return Err(format!("macro {m} names no declared function ({n} / {p})"));
        }
        functions.insert(m.clone(), (n_sym, p_sym));
        handled.insert(m.clone());
    }
    // The per-thread mode's own names (cuMemcpy_ptds, ...) are callable by those names too.
    for f in per_thread.functions.keys() {
        functions.entry(f.clone()).or_insert((f.clone(), f.clone()));
    }

    let path_of = |sym: &str| -> TokenStream {
        let id = format_ident!("{sym}");
        if HAND_WRITTEN_INLINES.contains(&sym) {
            quote!(crate::inline::#id)
        } else {
            quote!(functions::#id)
        }
    };
    let mut fn_out = TokenStream::new();
    for (c_name, (n_sym, p_sym)) in &functions {
        let id = format_ident!("{c_name}");
        let (pn, pp) = (path_of(n_sym), path_of(p_sym));
        if n_sym == p_sym {
            if n_sym != c_name {
                fn_out.extend(quote! { pub use #pn as #id; });
            }
            continue;
        }
        if n_sym != c_name {
            fn_out.extend(quote! {
                #[cfg(not(feature = "per-thread-default-stream"))]
                pub use #pn as #id;
            });
        }
        if p_sym != c_name {
            fn_out.extend(quote! {
                #[cfg(feature = "per-thread-default-stream")]
                pub use #pp as #id;
            });
        }
    }
    for (m, (n, p)) in &pfn_macros {
        let (id, tn, tp) = (
            format_ident!("{m}"),
            format_ident!("{n}"),
            format_ident!("{p}"),
        );
        if n == p {
            out.extend(quote! { pub type #id = #tn; });
        } else {
            out.extend(quote! {
                #[cfg(not(feature = "per-thread-default-stream"))]
                pub type #id = #tn;
                #[cfg(feature = "per-thread-default-stream")]
                pub type #id = #tp;
            });
        }
    }

    // Every enumerator at top level, as C spells it, typed with the C typedef's name.
    let display = b.enum_display_names();
    let mut enumerators = 0;
    let mut enum_of: BTreeMap<String, String> = BTreeMap::new();
    for (ty, consts) in &b.enums {
        let tname = format_ident!("{}", display[ty]);
        for c in consts {
            let id = format_ident!("{c}");
            out.extend(quote! { pub const #id: #tname = #tname::#id; });
            enum_of.insert(c.clone(), display[ty].clone());
            enumerators += 1;
        }
    }

    // Macro constants bindgen could not translate.
    let cast_re = regex::Regex::new(
        r"^\(\(\s*(\w+)\s*(\*?)\s*\)\s*\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))\s*\)?\s*\)$",
    )
    .unwrap();
    let mut macro_constants = 0;
    for m in macros {
        if handled.contains(m) || b.consts.contains_key(m) || enum_of.contains_key(m) {
            continue;
        }
        let e = &exp_n[m];
        if e == m || is_non_constant_macro(m, e) || functions.contains_key(m) {
            continue;
        }
        let id = format_ident!("{m}");
        if let Some(c) = cast_re.captures(e) {
            let value: TokenStream = c[3].replace(' ', "").parse().unwrap();
            let ty: TokenStream = match (&c[1], &c[2]) {
                ("void", "*") => quote!(*mut ::core::ffi::c_void),
                (t, "") if b.aliases.contains_key(t) => {
                    let t = format_ident!("{t}");
                    quote!(#t)
                }
                (t, s) => return Err(format!("macro {m} = {e}: cast to {t}{s} is not handled")),
            };
            out.extend(quote! { pub const #id: #ty = #value as #ty; });
        } else if let Some(t) = enum_of.get(e) {
            let (t, v) = (format_ident!("{t}"), format_ident!("{e}"));
            out.extend(quote! { pub const #id: #t = #t::#v; });
        } else if let Some(t) = b.consts.get(e) {
            let v = format_ident!("{e}");
            out.extend(quote! { pub const #id: #t = #v; });
        } else {
            return Err(format!(
                "macro {m} expands to `{e}`, which the generator cannot translate"
            ));
        }
        macro_constants += 1;
    }
    Ok(Names {
        tokens: out,
        function_tokens: fn_out,
        functions,
        pfn_macros,
        enumerators,
        macro_constants,
        broken,
    })
}

// ---------------------------------------------------------------------------------------------
// entry.rs

struct Entries {
    tokens: TokenStream,
    /// C spelling → its versioned typedef, per stream mode (normal, per-thread).
    c_spelling: BTreeMap<String, (String, String)>,
    derived: usize,
}

/// `PFN_cuMemcpyHtoD_v7000_ptds` → ("cuMemcpyHtoD", 7000, Some("ptds")).
fn split_pfn(name: &str) -> Option<(String, u32, Option<String>)> {
    static RE: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"^PFN_(cu\w+)_v(\d+)(?:_(ptds|ptsz))?$").unwrap());
    let c = RE.captures(name)?;
    Some((
        c[1].to_string(),
        c[2].parse().ok()?,
        c.get(3).map(|m| m.as_str().to_string()),
    ))
}

static VERSION_SUFFIX: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"_v(\d+)$").unwrap());

/// The ordinal of an ABI variant from its symbol: `cuCtxCreate` 1, `cuCtxCreate_v2` 2, ...
fn symbol_ordinal(sym: &str) -> usize {
    let sym = sym.trim_end_matches("_ptds").trim_end_matches("_ptsz");
    VERSION_SUFFIX
        .captures(sym)
        .and_then(|c| c[1].parse().ok())
        .unwrap_or(1)
}

fn gen_entries(b: &Parsed, names: &Names) -> Result<Entries, String> {
    let mut out = quote! {
        use super::*;
        use crate::EntryPoint;
    };
    // Versioned typedefs, grouped by the base name cuGetProcAddress takes.
    let mut by_base: BTreeMap<String, Vec<(u32, String)>> = BTreeMap::new();
    let mut all = Vec::new();
    for name in b.pfns.keys() {
        let Some((base, version, pt)) = split_pfn(name) else {
            return Err(format!(
                "typedef {name} does not read as PFN_<symbol>_v<version>"
            ));
        };
        let id = format_ident!("{}", &name[4..]);
        let ty = format_ident!("{name}");
        let sym = syn::LitCStr::new(
            &std::ffi::CString::new(base.clone()).unwrap(),
            proc_macro2::Span::call_site(),
        );
        let lit = proc_macro2::Literal::i32_unsuffixed(version as i32);
        let ctor = if pt.is_some() {
            quote!(new_per_thread)
        } else {
            quote!(new)
        };
        out.extend(quote! {
            pub const #id: EntryPoint<#ty> = unsafe { EntryPoint::#ctor(#sym, #lit) };
        });
        all.push(id);
        if pt.is_none() {
            by_base
                .entry(base)
                .or_default()
                .push((version, name.clone()));
        }
    }
    for v in by_base.values_mut() {
        v.sort();
    }

    let pfn_sig: BTreeMap<&String, String> = b
        .pfns
        .iter()
        .map(|(k, f)| (k, b.pfn_signature(f)))
        .collect();
    // C spelling → typedef: the header's PFN_cuX macro where it has one; otherwise (CUDA 13
    // headers have none) the typedef whose signature is the linked symbol's, the n-th ABI
    // variant for the symbol's _vN suffix where several share it.
    let derive = |c_name: &str, sym: &str| -> Result<Option<String>, String> {
        let Some(f) = b.functions.get(sym) else {
            return Ok(None);
        };
        let sig = b.fn_signature(f);
        let base = sym.trim_end_matches("_ptds").trim_end_matches("_ptsz");
        let base = VERSION_SUFFIX.replace(base, "").to_string();
        let candidates = by_base.get(&base).or_else(|| by_base.get(c_name));
        let Some(cands) = candidates else {
            return Ok(None);
        };
        let matching: Vec<&(u32, String)> =
            cands.iter().filter(|(_, t)| pfn_sig[t] == sig).collect();
        match matching.len() {
            0 => Ok(None),
            1 => Ok(Some(matching[0].1.clone())),
            _ => {
                let k = symbol_ordinal(sym);
                match cands.get(k - 1) {
                    Some((_, t)) if pfn_sig[t] == sig => Ok(Some(t.clone())),
                    _ => Err(format!(
                        "{c_name} ({sym}): several typedefs match {sig} and none is variant {k}"
                    )),
                }
            }
        }
    };
    // The per-thread typedef (`_ptds`/`_ptsz`) of the same ABI variant as `n`, for a symbol with
    // that suffix; `n` itself for any other symbol.
    let stream_variant = |n: &String, sym: &str| -> String {
        let Some(pt) = ["ptds", "ptsz"]
            .into_iter()
            .find(|s| sym.ends_with(&format!("_{s}")))
        else {
            return n.clone();
        };
        // The same version's per-thread typedef first: 11.7/11.8's `PFN_cuStreamBatchMemOp_v8000`
        // takes the new `CUstreamBatchMemOpParams` while its `_ptsz` twin takes `_v1`, so a
        // search by signature alone would pick the 11.7 ABI for the 8.0 symbol.
        let same_version = format!("{n}_{pt}");
        if b.pfns.contains_key(&same_version) {
            return same_version;
        }
        b.pfns
            .keys()
            .find(|k| {
                split_pfn(k).is_some_and(|(base, _, s)| {
                    s.as_deref() == Some(pt) && n.starts_with(&format!("PFN_{base}_v"))
                }) && pfn_sig[*k] == pfn_sig[n]
            })
            .cloned()
            .unwrap_or_else(|| n.clone())
    };
    let mut c_spelling = BTreeMap::new();
    let mut derived = 0;
    let mut disagreements = Vec::new();
    for (c_name, (n_sym, p_sym)) in &names.functions {
        let from_macro = names.pfn_macros.get(&format!("PFN_{c_name}"));
        let (n, p) = match (derive(c_name, n_sym)?, from_macro) {
            (Some(d), Some((n, p))) if &d == n => (n.clone(), p.clone()),
            (Some(d), Some((n, _))) => {
                // The header's PFN macro names another ABI than the function macro (12.0:
                // PFN_cuCtxCreate is the _v3 type, cuCtxCreate is cuCtxCreate_v2): the entry
                // follows the linked symbol, so that it calls what the C spelling calls.
                disagreements.push(format!(
                    "`PFN_{c_name}` is `{n}`, but `{c_name}` links `{n_sym}`, whose type is `{d}`"
                ));
                (stream_variant(&d, n_sym), stream_variant(&d, p_sym))
            }
            (None, Some((n, p))) => (n.clone(), p.clone()),
            (Some(d), None) => {
                derived += 1;
                (stream_variant(&d, n_sym), stream_variant(&d, p_sym))
            }
            (None, None) => continue,
        };
        c_spelling.insert(c_name.clone(), (n, p));
    }
    for (c_name, (n, p)) in &c_spelling {
        let id = format_ident!("{c_name}");
        if all.iter().any(|a| a == c_name) {
            continue; // a C spelling that is itself a versioned name (cuCtxCreate_v3 has none)
        }
        let (en, ep) = (format_ident!("{}", &n[4..]), format_ident!("{}", &p[4..]));
        let (tn, tp) = (format_ident!("{n}"), format_ident!("{p}"));
        if n == p {
            out.extend(quote! { pub const #id: EntryPoint<#tn> = #en; });
        } else {
            out.extend(quote! {
                #[cfg(not(feature = "per-thread-default-stream"))]
                pub const #id: EntryPoint<#tn> = #en;
                #[cfg(feature = "per-thread-default-stream")]
                pub const #id: EntryPoint<#tp> = #ep;
            });
        }
    }
    let notes: Vec<String> = names.broken.iter().cloned().chain(disagreements).collect();
    out.extend(quote! {
        /// Defects of this header that the bindings work around: `PFN_*` macros that name no type
        /// (not bound), and `PFN_cuX` macros that name another ABI than the function `cuX` links
        /// (the entry point [`cuX`](self) follows the linked function).
        pub const HEADER_NOTES: &[&str] = &[#(#notes),*];
    });
    // The length is a constant of its own, so that the list itself is the same item in every
    // header version that has the same entry points (see merge.rs).
    let count = proc_macro2::Literal::usize_unsuffixed(all.len());
    out.extend(quote! {
        /// How many entry points [`ALL`] holds.
        pub const ALL_LEN: usize = #count;
        /// Every versioned entry point of `cudaTypedefs.h`: symbol, version and stream mode.
        pub const ALL: [crate::EntryPointInfo; ALL_LEN] = [#(#all.info()),*];
    });
    Ok(Entries {
        tokens: out,
        c_spelling,
        derived,
    })
}

// ---------------------------------------------------------------------------------------------
// linked.rs

// ---------------------------------------------------------------------------------------------
// functions.rs, table.rs

/// bindgen's output without its `extern` block, and the `extern` block alone: a `table-only`
/// build re-exports none of the functions but the four the table needs.
/// Constants named in `dropped` are left out, those in `replaced` replaced, and the associated
/// constants `enumerators_dropped[type]` of enum newtypes left out.
fn split_functions(
    src: &str,
    dropped: &BTreeSet<String>,
    replaced: &BTreeMap<String, syn::Item>,
    enumerators_dropped: &BTreeMap<String, BTreeSet<String>>,
) -> Result<(String, String), String> {
    let file = syn::parse_file(src).map_err(|e| format!("bindgen output does not parse: {e}"))?;
    let const_name = |i: &syn::Item| match i {
        syn::Item::Const(c) => Some(c.ident.to_string()),
        _ => None,
    };
    let (functions, types): (Vec<syn::Item>, Vec<syn::Item>) = file
        .items
        .into_iter()
        .filter(|i| const_name(i).is_none_or(|n| !dropped.contains(&n)))
        .map(|i| match const_name(&i).and_then(|n| replaced.get(&n)) {
            Some(r) => r.clone(),
            None => i,
        })
        .map(|mut i| {
            if let syn::Item::Impl(imp) = &mut i {
                if let Some(gone) = enumerators_dropped.get(&imp.self_ty.to_token_stream().to_string()) {
                    imp.items.retain(|ii| {
                        !matches!(ii, syn::ImplItem::Const(c) if gone.contains(&c.ident.to_string()))
                    });
                }
            }
            i
        })
        .partition(|i| matches!(i, syn::Item::ForeignMod(_)));
    let unparse = |items| {
        prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: vec![],
            items,
        })
    };
    Ok((unparse(types), unparse(functions)))
}

/// The driver-entry table's part for this header: one slot per C spelling a program calls (not
/// the symbols the macros name, which are the same functions), each a method of `DriverTable`
/// (defined by hand in `table.rs`, with one field of slots per header) with the function's
/// signature.
fn gen_table(
    b: &Parsed,
    names: &Names,
    c_spelling: &BTreeMap<String, (String, String)>,
    set: &HeaderSet,
) -> Result<TokenStream, String> {
    // The table's slots of this header: `DriverTable`'s field of the same name (table.rs).
    let field = format_ident!("{}", set.table_field());
    let targets: BTreeSet<&String> = names
        .functions
        .iter()
        .flat_map(|(c, (n, p))| [n, p].into_iter().filter(move |s| *s != c))
        .collect();
    let mut methods = TokenStream::new();
    let mut entries = Vec::new();
    let mut slot_names = Vec::new();
    for (c_name, (n_sym, _)) in &names.functions {
        if targets.contains(c_name) {
            continue;
        }
        let Some((n, p)) = c_spelling.get(c_name) else {
            return Err(format!(
                "{c_name} has no PFN typedef: the table cannot type it"
            ));
        };
        let Some(decl) = b.functions.get(n_sym).or_else(|| b.functions.get(c_name)) else {
            return Err(format!("{c_name}: no declaration of {n_sym}"));
        };
        if b.pfn_signature(&b.pfns[n]) != b.pfn_signature(&b.pfns[p]) {
            return Err(format!("{c_name}: {n} and {p} differ"));
        }
        let id = format_ident!("{c_name}");
        let (en, ep) = (format_ident!("{}", &n[4..]), format_ident!("{}", &p[4..]));
        let inputs = &decl.sig.inputs;
        let args: Vec<&syn::Pat> = inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => &*t.pat,
                syn::FnArg::Receiver(_) => unreachable!("extern functions have no receiver"),
            })
            .collect();
        if args
            .iter()
            .any(|a| a.to_token_stream().to_string() == "driver_fn")
        {
            return Err(format!("{c_name} has a parameter named driver_fn"));
        }
        if b.ret(&decl.sig.output) != b.canonical(&syn::parse_quote!(CUresult)) {
            return Err(format!("{c_name} does not return CUresult"));
        }
        let doc = format!(
            " `{c_name}` through `cuGetProcAddress(\"{}\", {})` (`{n}`); `CUDA_ERROR_NOT_FOUND` \
             where the driver has no such function, the code `cuGetProcAddress` failed with \
             where it failed (see the [module](self)).",
            split_pfn(n).map(|x| x.0).unwrap_or_default(),
            split_pfn(n).map(|x| x.1).unwrap_or_default(),
        );
        methods.extend(quote! {
            #[doc = #doc]
            ///
            /// # Safety
            /// As for the C function.
            #[inline]
            pub unsafe fn #id(&self, #inputs) -> CUresult {
                match self.#field.resolve(self.mode, Index::#id as usize, entry::#en) {
                    Ok(driver_fn) => driver_fn(#(#args),*),
                    Err(code) => code,
                }
            }
        });
        entries.push(quote! {
            TableEntry { name: #c_name, legacy: entry::#en.info(), per_thread: entry::#ep.info() }
        });
        slot_names.push(id);
    }
    // Slot numbers as an enum and the length as a constant of its own: a function added by a
    // newer header changes neither the methods nor the entries of the others (see merge.rs).
    let count = proc_macro2::Literal::usize_unsuffixed(entries.len());
    Ok(quote! {
        /// How many functions the table holds.
        pub const TABLE_LEN: usize = #count;

        /// What each slot of [`DriverTable`] resolves: the C spelling, and its entry point in
        /// each stream mode.
        pub const TABLE_ENTRIES: [TableEntry; TABLE_LEN] = [#(#entries),*];

        /// The slot of each function, in the order of [`TABLE_ENTRIES`].
        #[repr(usize)]
        #[derive(Clone, Copy)]
        pub(crate) enum Index {
            #(#slot_names,)*
        }

        impl DriverTable {
            #methods
        }
    })
}

/// The functions' real symbols as they are under `dynamic-loading`: each an `unsafe extern "C"
/// fn` of the declared signature that calls through its slot, which first holds a resolver of the
/// same signature (the first call asks the loader, stores the driver's function and calls it, or
/// returns the loader's code), so that later calls are one load and an indirect call.
///
/// Slots are numbered by an enum and the count is a constant of its own, so that a function added
/// by a newer header changes no other item (see merge.rs). The four functions taken by name are
/// this header's `cuGetProcAddress` (`cuGetProcAddress_v2` where it has one, else CUDA 11.3's
/// `cuGetProcAddress`, the only one an 11.x driver exports), `cuDriverGetVersion`,
/// `cuGetErrorName` and `cuGetErrorString` (for `cuda.h` only: an interop header's functions are
/// all looked up). Each header's functions form one `SET` for the loader (`loader::FunctionSet`).
fn gen_dynamic(
    b: &Parsed,
    names: &Names,
    c_spelling: &BTreeMap<String, (String, String)>,
    set: &HeaderSet,
) -> Result<TokenStream, String> {
    // Only cuda.h's functions bootstrap the loader; every other header's are looked up.
    let by_name_list: Vec<&str> = if set.is_core() {
        let proc_address = ["cuGetProcAddress_v2", "cuGetProcAddress"]
            .into_iter()
            .find(|s| b.functions.contains_key(*s))
            .ok_or("the header declares no cuGetProcAddress")?;
        vec![
            proc_address,
            "cuDriverGetVersion",
            "cuGetErrorName",
            "cuGetErrorString",
        ]
    } else {
        Vec::new()
    };
    let mut functions = Vec::new();
    let mut slots = Vec::new();
    let mut variants = Vec::new();
    let mut trampolines = TokenStream::new();
    let mut resolvers = TokenStream::new();
    for (sym, decl) in b.functions.iter() {
        // The typedef of the symbol itself: the name `sym` is a C spelling too, which in one
        // stream mode may bind another symbol (`cuEventRecord` is `cuEventRecord_ptsz` under
        // per-thread); the mode where it binds `sym` gives `sym`'s own ABI.
        let (Some((n, p)), Some((n_sym, p_sym))) = (c_spelling.get(sym), names.functions.get(sym))
        else {
            return Err(format!("{sym} has no PFN typedef: it cannot be resolved"));
        };
        let n = match (n_sym == sym, p_sym == sym) {
            (true, _) => n,
            (false, true) => p,
            (false, false) => {
                return Err(format!(
                    "{sym}: its name binds {n_sym} and {p_sym}, never itself"
                ))
            }
        };
        if b.ret(&decl.sig.output) != b.canonical(&syn::parse_quote!(CUresult)) {
            return Err(format!("{sym} does not return CUresult"));
        }
        let inputs = &decl.sig.inputs;
        let mut args = Vec::new();
        let mut types = Vec::new();
        for a in inputs {
            let syn::FnArg::Typed(t) = a else {
                return Err(format!("{sym}: a receiver in an extern function"));
            };
            if t.pat.to_token_stream().to_string() == "driver_fn" {
                return Err(format!("{sym} has a parameter named driver_fn"));
            }
            args.push(&*t.pat);
            types.push(&*t.ty);
        }
        let id = format_ident!("{sym}");
        let entry = format_ident!("{}", &n[4..]);
        let symbol = syn::LitCStr::new(
            &std::ffi::CString::new(sym.clone()).unwrap(),
            proc_macro2::Span::call_site(),
        );
        let by_name = by_name_list.contains(&sym.as_str());
        let attrs = &decl.attrs;
        functions.push(quote! {
            Function { symbol: #symbol, entry: super::entry::#entry.info(), by_name: #by_name }
        });
        slots.push(quote! { AtomicPtr::new(Resolve::#id as *mut c_void) });
        variants.push(id.clone());
        trampolines.extend(quote! {
            #(#attrs)*
            #[inline]
            pub unsafe extern "C" fn #id(#inputs) -> CUresult {
                let driver_fn: unsafe extern "C" fn(#(#types),*) -> CUresult =
                    unsafe { transmute(SLOTS[Index::#id as usize].load(Ordering::Acquire)) };
                unsafe { driver_fn(#(#args),*) }
            }
        });
        resolvers.extend(quote! {
            unsafe extern "C" fn #id(#inputs) -> CUresult {
                match crate::loader::resolve(&SET, Index::#id as usize) {
                    Ok(driver_fn) => {
                        let driver_fn: unsafe extern "C" fn(#(#types),*) -> CUresult =
                            unsafe { transmute(driver_fn.as_ptr()) };
                        unsafe { driver_fn(#(#args),*) }
                    }
                    Err(code) => code,
                }
            }
        });
    }
    let bootstrap = set.is_core().then(|| {
        let by_name = by_name_list.iter().map(|s| format_ident!("{s}"));
        quote! {
            /// The slots of the header's `cuGetProcAddress` (`cuGetProcAddress_v2`, or CUDA 11's
            /// `cuGetProcAddress` where the header has no `_v2`), `cuDriverGetVersion`,
            /// `cuGetErrorName` and `cuGetErrorString`, filled by name when the library is loaded.
            pub(crate) const BOOTSTRAP: [Index; 4] = [#(Index::#by_name),*];
        }
    });
    let count = proc_macro2::Literal::usize_unsuffixed(functions.len());
    Ok(quote! {
        use ::core::ffi::c_void;
        use ::core::mem::transmute;
        use ::core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
        use crate::loader::{Function, FunctionSet};

        /// How many functions there are.
        pub(crate) const FUNCTIONS_LEN: usize = #count;

        /// Every function: its real symbol and the entry point of its ABI.
        pub(crate) const FUNCTIONS: [Function; FUNCTIONS_LEN] = [#(#functions),*];

        /// What each function calls: its resolver until the first call resolves it, then the
        /// driver's function.
        pub(crate) static SLOTS: [AtomicPtr<c_void>; FUNCTIONS_LEN] = [#(#slots),*];

        /// The slot of each function, in the order of [`FUNCTIONS`].
        #[repr(usize)]
        #[derive(Clone, Copy)]
        pub(crate) enum Index {
            #(#variants),*
        }

        /// Which functions the driver was found to lack (looked up once, never called).
        static MISSING: [AtomicBool; FUNCTIONS_LEN] = [const { AtomicBool::new(false) }; FUNCTIONS_LEN];

        /// This header's functions, for the loader.
        pub(crate) static SET: FunctionSet = FunctionSet {
            functions: &FUNCTIONS,
            slots: &SLOTS,
            missing: &MISSING,
        };

        #bootstrap

        #trampolines

        /// The first call of each function: resolve, store, call (or return the loader's code).
        struct Resolve;

        impl Resolve {
            #resolvers
        }
    })
}

fn gen_linked(names: &Names, c_spelling: &BTreeMap<String, (String, String)>) -> String {
    let mut s = String::from(
        "// For tests: every C spelling as `(name, linked symbol, function, entry point)`, the entry\n\
         // point of the typedef whose signature the function has (None: cudaTypedefs.h has none).\n\
         // The including test defines `linked_functions!`, which may or may not take addresses.\n\
         linked_functions! {\n",
    );
    for (c_name, (n_sym, p_sym)) in &names.functions {
        let entry = |t: Option<&String>| match t {
            Some(t) => format!("Some(entry::{}.info())", &t[4..]),
            None => "None".into(),
        };
        let (en, ep) = match c_spelling.get(c_name) {
            Some((n, p)) => (entry(Some(n)), entry(Some(p))),
            None => (entry(None), entry(None)),
        };
        if n_sym == p_sym {
            writeln!(s, "    (c\"{c_name}\", c\"{n_sym}\", {c_name}, {en}),").unwrap();
        } else {
            writeln!(s, "    #[cfg(not(feature = \"per-thread-default-stream\"))]\n    (c\"{c_name}\", c\"{n_sym}\", {c_name}, {en}),").unwrap();
            writeln!(s, "    #[cfg(feature = \"per-thread-default-stream\")]\n    (c\"{c_name}\", c\"{p_sym}\", {c_name}, {ep}),").unwrap();
        }
    }
    s.push_str("}\n");
    s
}
