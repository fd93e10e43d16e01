//! The prototype probe: every function and every typedef of the committed bindings of one CUDA
//! version, turned back into C++ types, and compared by the C++ compiler with the declarations of
//! the `cuda.h` and `cudaTypedefs.h` the bindings were generated from.
//!
//! Read from `cuda-driver-sys/src/generated/` (the items of the selected version, projected out of
//! the merged files) and `cuda-driver-sys/src/inline.rs`:
//! - `functions.rs`: every function symbol, of both stream modes;
//! - `bindings.rs`: every `PFN_*` typedef (`Option<unsafe extern "C" fn(..) -> ..>`) and every
//!   other typedef (`pub type`, `pub use E as T` for enums);
//! - `function_names.rs`, `names.rs`: the C spellings, that is which symbol `cuMemcpyHtoD` and which
//!   typedef `PFN_cuMemcpyHtoD` are in each stream mode;
//! - `inline.rs`: the header's `static inline` functions, written in Rust.
//!
//! Each Rust type becomes its C++ spelling (`c_uchar` → `unsigned char`, `usize` → `std::size_t`,
//! `*mut *const c_char` → `char const * *`, a named type by its own name, which is the header's,
//! `Option<unsafe extern "C" fn(A) -> R>` → `R (*)(A)`), and the probe asserts, with
//! `std::is_same`, that it is the header's: for a function, `decltype(&cuX)`'s parameter count,
//! variadic-ness, return type, each parameter and the whole type; for a typedef, the typedef. C++
//! rather than C: C's `__builtin_types_compatible_p` takes an enum for its integer type, so a `u32`
//! where the header has `CUresult` would pass. A mismatch makes g++ print the instantiation
//! `cdsys::same<cdsys_where::function_cuX::parameter_2_uc, HEADER TYPE, RUST TYPE>`, which names the
//! function, the parameter and both types; [`run`] turns those into one line each.
//!
//! Which declarations a C program sees depends on the stream mode, so the probe has three units,
//! each compiled with `-fsyntax-only` against the same headers:
//! - `legacy-stream`: `cuda.h` as a C program sees it;
//! - `per-thread-stream`: with `CUDA_API_PER_THREAD_DEFAULT_STREAM` (the `_ptds`/`_ptsz` symbols,
//!   the `static inline` `cuGetProcAddress_v2_ptsz`);
//! - `internal`: as the bindings were generated, with `__CUDA_API_VERSION_INTERNAL` (the legacy
//!   `_v1` types and the `PFN_*` typedefs of older versions exist only there).
//!
//! Each function of `functions.rs` is checked in every stream view whose header declares it (the
//! header is read through the preprocessor to know which), each C spelling in its stream mode, the
//! typedefs in the internal view. What the bindings have and the header does not declare, or the
//! header declares and the bindings lack, is reported too: the counts must be equal.
//!
//! The C++ side is generic (`tests/support/c/prototypes.hpp`); each unit holds one line per entry.
//! Used by `tests/prototypes.rs`: the probe of the selected version's bindings, and the same probe
//! of deliberately broken copies of them, which must be rejected.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use quote::ToTokens;

use crate::c_header::{header_lines, includes, sets, stream_modes, Compiler, Decls};

/// The committed bindings a probe is generated from (file contents).
#[derive(Clone)]
pub struct Inputs {
    /// The header version, `12000`.
    pub version: String,
    /// `functions.rs`: the `extern` block of every function symbol.
    pub functions: String,
    /// `bindings.rs`: types, typedefs (`PFN_*` among them), constants.
    pub bindings: String,
    /// `function_names.rs`: the C spellings of functions, per stream mode.
    pub function_names: String,
    /// `names.rs`: the `PFN_cuX` spellings (and constants, not read here).
    pub names: String,
    /// `src/inline.rs`: the header's `static inline` functions in Rust.
    pub inline: String,
}

impl Inputs {
    /// The files the probe reads, relative to the `cuda-driver-sys` directory: (field, path).
    /// Those of `cuda.h` and, with the `interop` feature, of each interop module
    /// (`gl_functions.rs`, ...), which the probe reads as one (the modules are re-exported at the
    /// crate root).
    pub fn files(version: &str) -> Vec<(&'static str, String)> {
        let _ = version; // one set of files holds every version
        let mut files = Vec::new();
        for field in ["functions", "bindings", "function_names", "names"] {
            for (p, _) in sets() {
                files.push((field, format!("src/generated/{p}{field}.rs")));
            }
        }
        files.push(("inline", "src/inline.rs".to_string()));
        files
    }

    /// Reads the bindings of `version` from the `cuda-driver-sys` directory `sys`.
    pub fn read(sys: &Path, version: &str) -> Result<Inputs, String> {
        let mut text: BTreeMap<&str, String> = BTreeMap::new();
        for (field, rel) in Inputs::files(version) {
            let path = sys.join(&rel);
            let s = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "the prototype probe reads the committed bindings of CUDA {version}, and {} \
                     cannot be read ({e}): restore it (`git checkout -- cuda-driver-sys/{rel}`) or \
                     regenerate it with `ci/regenerate.sh`",
                    path.display()
                )
            })?;
            // The generated files hold every header version (and inline.rs has items of 11.x
            // or of 12+ headers): keep this one's items.
            let selected = version
                .parse()
                .map_err(|_| format!("CUDA version {version:?} is not a number"))?;
            let s = crate::c_header::project(&s, selected);
            text.entry(field).or_default().push_str(&s);
        }
        let mut take = |f: &str| text.remove(f).unwrap();
        Ok(Inputs {
            version: version.to_string(),
            functions: take("functions"),
            bindings: take("bindings"),
            function_names: take("function_names"),
            names: take("names"),
            inline: take("inline"),
        })
    }
}

/// How the headers are compiled: the three views of the probe.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Legacy,
    PerThread,
    Internal,
}

impl View {
    const ALL: [View; 3] = [View::Legacy, View::PerThread, View::Internal];

    fn name(self) -> &'static str {
        match self {
            View::Legacy => "legacy-stream",
            View::PerThread => "per-thread-stream",
            View::Internal => "internal",
        }
    }

    fn defines(self) -> &'static [&'static str] {
        match self {
            View::Legacy => &[],
            View::PerThread => &["CUDA_API_PER_THREAD_DEFAULT_STREAM"],
            // As the bindings were generated (cuda-driver-sys/generator).
            View::Internal => &[
                "__CUDA_API_VERSION_INTERNAL",
                "__CUDA_API_VERSION_INTERNAL_ODR",
            ],
        }
    }

    fn prologue(self) -> String {
        self.defines()
            .iter()
            .map(|d| format!("#define {d} 1\n"))
            .collect()
    }
}

/// Checked entries of one kind, and how many the bindings declare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Entries the probe has an assertion for.
    pub checked: usize,
    /// Entries the bindings have.
    pub declared: usize,
}

/// One compiled unit of the probe.
#[derive(Clone, Debug)]
pub struct Unit {
    /// `legacy-stream`, `per-thread-stream` or `internal`.
    pub view: String,
    /// The generated C++ file.
    pub path: String,
    /// `static_assert`s in it.
    pub assertions: usize,
    /// g++ accepted it.
    pub compiled: bool,
    /// Not compiled again: the same text as a unit known to compile (see [`run`]).
    pub reused: bool,
}

/// What the probe checked, and every problem found (empty when the bindings are the header's).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Functions of `functions.rs`.
    pub functions: Count,
    /// Parameters of the checked functions.
    pub parameters: usize,
    /// Functions `cuda.h` declares in either stream mode (library symbols, not `static inline`).
    pub header_functions: usize,
    /// Functions of `inline.rs`, against the header's `static inline` functions.
    pub inline: Count,
    /// `static inline` functions `cuda.h` defines in either stream mode.
    pub header_inline: usize,
    /// `PFN_*` typedefs of `bindings.rs`.
    pub pfn_typedefs: Count,
    /// `PFN_*` typedefs `cudaTypedefs.h` declares (internal view).
    pub header_pfn_typedefs: usize,
    /// The other typedefs of `bindings.rs` (`pub type`, `pub use E as T`).
    pub typedefs: Count,
    /// C spellings (`function_names.rs` and the `PFN_cuX` of `names.rs`): legacy, per-thread mode.
    pub spellings: [Count; 2],
    /// The three compiled units.
    pub units: Vec<Unit>,
    /// Milliseconds spent reading the header and compiling the probe.
    pub millis: u64,
    /// Each problem on one line: a mismatch (function, parameter, both types), an entry the probe
    /// could not check, a unit that did not compile.
    pub problems: Vec<String>,
}

impl Report {
    /// The counts, as the test prints them.
    pub fn summary(&self) -> String {
        let c = |c: &Count| format!("{} checked of {} declared", c.checked, c.declared);
        let mut s = format!(
            "prototypes: {}; PFN typedefs: {}\n",
            c(&self.functions),
            c(&self.pfn_typedefs)
        );
        let _ = writeln!(
            s,
            "  functions (functions.rs, both stream modes): {}, {} parameters; cuda.h declares {}",
            c(&self.functions),
            self.parameters,
            self.header_functions
        );
        let _ = writeln!(
            s,
            "  static inline functions (inline.rs): {}; cuda.h declares {}",
            c(&self.inline),
            self.header_inline
        );
        let _ = writeln!(
            s,
            "  PFN typedefs (bindings.rs): {}; cudaTypedefs.h declares {}",
            c(&self.pfn_typedefs),
            self.header_pfn_typedefs
        );
        let _ = writeln!(s, "  other typedefs (bindings.rs): {}", c(&self.typedefs));
        let _ = writeln!(
            s,
            "  C spellings (function_names.rs, PFN_cuX of names.rs): legacy stream {}; per-thread stream {}",
            c(&self.spellings[0]),
            c(&self.spellings[1])
        );
        let units: Vec<String> = self
            .units
            .iter()
            .map(|u| {
                format!(
                    "{} {} assertions{}",
                    u.view,
                    u.assertions,
                    match (u.compiled, u.reused) {
                        (false, _) => " (REJECTED)",
                        (true, true) => " (as the control's)",
                        (true, false) => "",
                    }
                )
            })
            .collect();
        let _ = write!(
            s,
            "  probe: {} ({:.2} s with the header scans)",
            units.join(", "),
            self.millis as f64 / 1000.0
        );
        s
    }
}

/// Generates the probe of `inputs` into `dir`, compiles it and reports. A unit whose text is
/// that of one of `known` (units that compiled, written by an earlier run) is not compiled again:
/// the mutation test compiles only what each mutation changed.
pub fn run(inputs: &Inputs, cxx: &Compiler, dir: &Path, known: &[Unit]) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    if let Err(e) = probe(inputs, cxx, dir, known, &mut report) {
        report.problems.push(e);
    }
    report.millis = start.elapsed().as_millis() as u64;
    report
}

// ---------------------------------------------------------------------------------------------
// The bindings, read back

/// A Rust text of a type or path (`::core::ffi::c_int`, not `:: core :: ffi :: c_int`).
fn rust(t: &impl ToTokens) -> String {
    t.to_token_stream()
        .to_string()
        .replace(":: ", "::")
        .replace(" ::", "::")
        .replace(" ,", ",")
        .replace("* mut", "*mut")
        .replace("* const", "*const")
        .replace("mut::", "mut ::")
        .replace("const::", "const ::")
}

/// A function signature, from an `extern` declaration, a Rust `extern "C" fn` or a `fn` type.
struct Signature {
    name: String,
    params: Vec<(String, syn::Type)>,
    ret: Option<syn::Type>,
    variadic: bool,
}

impl Signature {
    fn of_sig(sig: &syn::Signature) -> Signature {
        let params = sig
            .inputs
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                syn::FnArg::Typed(t) => (param_name(&t.pat, i), (*t.ty).clone()),
                syn::FnArg::Receiver(_) => (format!("self{i}"), syn::parse_quote!(Self)),
            })
            .collect();
        Signature {
            name: sig.ident.to_string(),
            params,
            ret: ret_type(&sig.output),
            variadic: sig.variadic.is_some(),
        }
    }

    fn of_bare_fn(name: &str, f: &syn::TypeBareFn) -> Signature {
        let params = f
            .inputs
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let n = a
                    .name
                    .as_ref()
                    .map_or_else(|| format!("arg{i}"), |(id, _)| id.to_string());
                (n, a.ty.clone())
            })
            .collect();
        Signature {
            name: name.to_string(),
            params,
            ret: ret_type(&f.output),
            variadic: f.variadic.is_some(),
        }
    }
}

fn param_name(pat: &syn::Pat, i: usize) -> String {
    match pat {
        syn::Pat::Ident(p) => p.ident.to_string(),
        _ => format!("arg{i}"),
    }
}

fn ret_type(r: &syn::ReturnType) -> Option<syn::Type> {
    match r {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some((**t).clone()),
    }
}

/// `Option<fn ..>`'s function type.
fn option_fn(ty: &syn::Type) -> Option<&syn::TypeBareFn> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(syn::Type::BareFn(f)) => Some(f),
        _ => None,
    }
}

/// A C spelling: the name a C program writes, the item the bindings bind it to, its modes.
struct Spelling {
    c: String,
    target: String,
    modes: [bool; 2],
}

struct Bindings {
    functions: Vec<Signature>,
    pfns: Vec<Signature>,
    /// Every other typedef: name and its Rust type.
    typedefs: Vec<(String, syn::Type)>,
    inline: Vec<Signature>,
    spellings: Vec<Spelling>,
}

fn parse(file: &str, what: &str) -> Result<syn::File, String> {
    syn::parse_file(file).map_err(|e| format!("{what} does not parse as Rust: {e}"))
}

impl Bindings {
    fn read(inputs: &Inputs) -> Result<Bindings, String> {
        let v = &inputs.version;
        let mut b = Bindings {
            functions: Vec::new(),
            pfns: Vec::new(),
            typedefs: Vec::new(),
            inline: Vec::new(),
            spellings: Vec::new(),
        };
        for item in parse(&inputs.functions, &format!("v{v}/functions.rs"))?.items {
            if let syn::Item::ForeignMod(m) = item {
                for fi in m.items {
                    if let syn::ForeignItem::Fn(f) = fi {
                        b.functions.push(Signature::of_sig(&f.sig));
                    }
                }
            }
        }
        for item in parse(&inputs.bindings, &format!("v{v}/bindings.rs"))?.items {
            match item {
                syn::Item::Type(t) => {
                    let name = t.ident.to_string();
                    if name.starts_with("PFN_") {
                        let f = option_fn(&t.ty).ok_or_else(|| {
                            format!("bindings.rs: {name} is not an Option<unsafe extern \"C\" fn> typedef")
                        })?;
                        b.pfns.push(Signature::of_bare_fn(&name, f));
                    } else {
                        b.typedefs.push((name, *t.ty));
                    }
                }
                // `pub use self::cudaError_enum as CUresult;`
                syn::Item::Use(u) => {
                    if let syn::UseTree::Path(p) = &u.tree {
                        if let syn::UseTree::Rename(r) = &*p.tree {
                            let target: syn::Type = syn::parse_str(&r.ident.to_string()).unwrap();
                            b.typedefs.push((r.rename.to_string(), target));
                        }
                    }
                }
                _ => {}
            }
        }
        for item in parse(&inputs.inline, "src/inline.rs")?.items {
            if let syn::Item::Fn(f) = item {
                if f.sig.abi.is_some() {
                    b.inline.push(Signature::of_sig(&f.sig));
                }
            }
        }
        // `pub use functions::cuMemAlloc_v2 as cuMemAlloc;`, `pub type PFN_cuX = PFN_cuX_v3020;`
        let spellings = parse(&inputs.function_names, &format!("v{v}/function_names.rs"))?
            .items
            .into_iter()
            .chain(parse(&inputs.names, &format!("v{v}/names.rs"))?.items);
        for item in spellings {
            match item {
                syn::Item::Use(u) => {
                    let mut tree = &u.tree;
                    while let syn::UseTree::Path(p) = tree {
                        tree = &p.tree;
                    }
                    if let syn::UseTree::Rename(r) = tree {
                        b.spellings.push(Spelling {
                            c: r.rename.to_string(),
                            target: r.ident.to_string(),
                            modes: stream_modes(&u.attrs),
                        });
                    }
                }
                syn::Item::Type(t) if t.ident.to_string().starts_with("PFN_") => {
                    let target = match &*t.ty {
                        syn::Type::Path(p) if p.path.segments.len() == 1 => {
                            p.path.segments[0].ident.to_string()
                        }
                        other => {
                            return Err(format!(
                                "names.rs: {} = {}: not a PFN typedef name",
                                t.ident,
                                rust(other)
                            ))
                        }
                    };
                    b.spellings.push(Spelling {
                        c: t.ident.to_string(),
                        target,
                        modes: stream_modes(&t.attrs),
                    });
                }
                _ => {}
            }
        }
        Ok(b)
    }
}

// ---------------------------------------------------------------------------------------------
// Rust types as C++ types

fn primitive(name: &str) -> Option<&'static str> {
    Some(match name {
        "c_void" => "void",
        "c_char" => "char",
        "c_schar" => "signed char",
        "c_uchar" => "unsigned char",
        "c_short" => "short",
        "c_ushort" => "unsigned short",
        "c_int" => "int",
        "c_uint" => "unsigned int",
        "c_long" => "long",
        "c_ulong" => "unsigned long",
        "c_longlong" => "long long",
        "c_ulonglong" => "unsigned long long",
        "c_float" | "f32" => "float",
        "c_double" | "f64" => "double",
        "i8" => "std::int8_t",
        "i16" => "std::int16_t",
        "i32" => "std::int32_t",
        "i64" => "std::int64_t",
        "u8" => "std::uint8_t",
        "u16" => "std::uint16_t",
        "u32" => "std::uint32_t",
        "u64" => "std::uint64_t",
        "usize" => "std::size_t",
        "isize" => "std::ptrdiff_t",
        "bool" => "bool",
        _ => return None,
    })
}

/// The C++ spelling of a Rust type of the bindings.
fn cpp_type(ty: &syn::Type) -> Result<String, String> {
    match ty {
        syn::Type::Ptr(p) => {
            let inner = cpp_type(&p.elem)?;
            Ok(if p.mutability.is_some() {
                format!("{inner} *")
            } else {
                format!("{inner} const *")
            })
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(f) = option_fn(ty) {
                return cpp_fn(&Signature::of_bare_fn("", f));
            }
            let last = p.path.segments.last().unwrap();
            let name = last.ident.to_string();
            let prefix: Vec<String> = p
                .path
                .segments
                .iter()
                .rev()
                .skip(1)
                .map(|s| s.ident.to_string())
                .collect();
            let ffi_prefix = prefix.is_empty()
                || prefix == ["ffi", "core"]
                || prefix == ["ffi", "std"]
                || prefix == ["raw", "os", "std"];
            if !last.arguments.is_empty() || !ffi_prefix {
                return Err(format!("the probe has no C++ spelling for `{}`", rust(ty)));
            }
            match primitive(&name) {
                Some(c) => Ok(c.to_string()),
                // Named types of the bindings are the header's names (bindgen keeps them).
                None if prefix.is_empty() => Ok(name),
                None => Err(format!("the probe has no C++ spelling for `{}`", rust(ty))),
            }
        }
        syn::Type::BareFn(f) => cpp_fn(&Signature::of_bare_fn("", f)),
        syn::Type::Array(a) => Ok(format!(
            "cdsys::array<{}, {}>",
            cpp_type(&a.elem)?,
            rust(&a.len)
        )),
        syn::Type::Tuple(t) if t.elems.is_empty() => Ok("void".into()),
        syn::Type::Paren(p) => cpp_type(&p.elem),
        _ => Err(format!("the probe has no C++ spelling for `{}`", rust(ty))),
    }
}

fn cpp_ret(s: &Signature) -> Result<String, String> {
    s.ret.as_ref().map_or(Ok("void".into()), cpp_type)
}

/// `cdsys::fn<R, A...>`: `R (*)(A...)`.
fn cpp_fn(s: &Signature) -> Result<String, String> {
    let mut args = vec![cpp_ret(s)?];
    for (_, t) in &s.params {
        args.push(cpp_type(t)?);
    }
    Ok(format!(
        "cdsys::{}<{}>",
        if s.variadic { "vfn" } else { "fn" },
        args.join(", ")
    ))
}

/// What one view of the header declares: the preprocessor's output of the headers, read.
fn declared(cxx: &Compiler, view: View) -> Result<Decls, String> {
    let expanded = cxx.preprocess("c++", view.defines())?;
    Ok(Decls::scan(&header_lines(&expanded)))
}

// ---------------------------------------------------------------------------------------------
// The probe

/// One unit being generated.
struct Gen {
    view: View,
    text: String,
    assertions: usize,
    /// `tag::part` (`function_cuX::parameter_2`; a typedef's tag alone) → what the messages say
    /// of the part (`parameter 2 `uc`: `) and the bindings' Rust type.
    parts: BTreeMap<String, (String, String)>,
}

impl Gen {
    /// A function or function-pointer typedef. `tag`: `function_cuX`, `typedef_PFN_..`; `header`:
    /// the header's function pointer type. The whole type is compared; where it differs, each
    /// part too (parameter count, variadic, return type, each parameter), so that the diagnostics
    /// name the parameter. Returns the number of parameters.
    fn signature(&mut self, tag: &str, header: &str, s: &Signature) -> Result<usize, String> {
        for (i, (n, t)) in s.params.iter().enumerate() {
            cpp_type(t).map_err(|e| format!("{}: parameter {i} `{n}`: {e}", s.name))?;
        }
        let whole = cpp_fn(s).map_err(|e| format!("{}: {e}", s.name))?;
        let _ = writeln!(self.text, "CDSYS_SIGNATURE({tag}, {header}, {whole})");
        self.assertions += 1;
        let ret = s.ret.as_ref().map_or("()".to_string(), rust);
        let mut parts = vec![
            (
                "parameter_count".to_string(),
                String::new(),
                s.params.len().to_string(),
            ),
            (
                "is_variadic".into(),
                "variadic: ".into(),
                s.variadic.to_string(),
            ),
            ("return_type".into(), "return type: ".into(), ret),
            ("whole_type".into(), "type: ".into(), String::new()),
        ];
        for (i, (n, t)) in s.params.iter().enumerate() {
            parts.push((
                format!("parameter_{i}"),
                format!("parameter {i} `{n}`: "),
                rust(t),
            ));
        }
        for (part, label, rust_text) in parts {
            self.parts
                .insert(format!("{tag}::{part}"), (label, rust_text));
        }
        Ok(s.params.len())
    }
}

fn probe(
    inputs: &Inputs,
    cxx: &Compiler,
    dir: &Path,
    known: &[Unit],
    report: &mut Report,
) -> Result<(), String> {
    let b = Bindings::read(inputs)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;

    // What each view declares (the three preprocessor runs in parallel).
    let scans: Vec<Result<Decls, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = View::ALL
            .iter()
            .map(|v| s.spawn(move || declared(cxx, *v)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let declared = scans.into_iter().collect::<Result<Vec<Decls>, String>>()?;
    let stream_views = [View::Legacy, View::PerThread];

    let mut units: Vec<Gen> = View::ALL
        .iter()
        .map(|v| Gen {
            view: *v,
            text: format!(
                "/* @generated by tests/support/prototypes.rs from cuda-driver-sys/src/generated/ (CUDA {}) and \
                 src/inline.rs: the {} view of cuda.h, cudaTypedefs.h and the interop headers. */\n{}\
                 #include \"prototypes.hpp\"\n{}",
                inputs.version,
                v.name(),
                v.prologue(),
                includes()
            ),
            assertions: 0,
            parts: BTreeMap::new(),
        })
        .collect();

    // C spellings, in their stream modes: the name the header's macros turn the spelling into
    // must be the item the bindings bind it to.
    for (m, view) in stream_views.iter().enumerate() {
        let g = &mut units[m];
        let _ = writeln!(g.text, "\n/* C spellings, {} */", view.name());
        for s in b.spellings.iter().filter(|s| s.modes[m]) {
            let _ = writeln!(
                g.text,
                "CDSYS_SPELLING({}, {}, \"{}\")",
                s.c,
                s.target,
                view.name()
            );
            g.assertions += 1;
            report.spellings[m].declared += 1;
            report.spellings[m].checked += 1;
        }
    }

    // Functions, in each stream view that declares them; the symbols' own names, not the macros
    // that may rename them in that view.
    let mut checked: BTreeSet<&str> = BTreeSet::new();
    let mut checked_inline: BTreeSet<&str> = BTreeSet::new();
    let bound: BTreeSet<&str> = b.functions.iter().map(|f| f.name.as_str()).collect();
    for (m, view) in stream_views.iter().enumerate() {
        let d = &declared[m];
        let g = &mut units[m];
        let _ = writeln!(g.text, "\n/* Functions, {} */", view.name());
        for name in d.functions.iter().chain(&d.inline) {
            let _ = writeln!(g.text, "#undef {name}");
        }
        for f in b.functions.iter().filter(|f| d.functions.contains(&f.name)) {
            let params = g.signature(
                &format!("function_{}", f.name),
                &format!("decltype(&::{})", f.name),
                f,
            )?;
            if checked.insert(&f.name) {
                report.parameters += params;
            }
        }
        for f in b.inline.iter().filter(|f| d.inline.contains(&f.name)) {
            g.signature(
                &format!("inline_{}", f.name),
                &format!("decltype(&::{})", f.name),
                f,
            )?;
            checked_inline.insert(&f.name);
        }
    }
    report.functions = Count {
        checked: checked.len(),
        declared: b.functions.len(),
    };
    let header: BTreeSet<&str> = stream_views
        .iter()
        .enumerate()
        .flat_map(|(m, _)| declared[m].functions.iter().map(|s| s.as_str()))
        .collect();
    report.header_functions = header.len();
    for f in bound.difference(&header) {
        report.problems.push(format!(
            "function {f}: in functions.rs, but cuda.h declares it in neither stream mode (not checked)"
        ));
    }
    for f in header.difference(&bound) {
        report.problems.push(format!(
            "function {f}: declared by cuda.h, missing from functions.rs"
        ));
    }
    let header_inline: BTreeSet<&str> = declared[0]
        .inline
        .iter()
        .chain(&declared[1].inline)
        .map(|s| s.as_str())
        .collect();
    let rust_inline: BTreeSet<&str> = b.inline.iter().map(|f| f.name.as_str()).collect();
    report.inline = Count {
        checked: checked_inline.len(),
        declared: rust_inline.len(),
    };
    report.header_inline = header_inline.len();
    for f in rust_inline.difference(&header_inline) {
        report.problems.push(format!(
            "static inline function {f}: in src/inline.rs, but cuda.h defines it in neither stream mode (not checked)"
        ));
    }
    for f in header_inline.difference(&rust_inline) {
        report.problems.push(format!(
            "static inline function {f}: defined by cuda.h, missing from src/inline.rs"
        ));
    }

    // Typedefs, in the internal view (the only one with all of them).
    let internal = &declared[2];
    let g = &mut units[2];
    g.text.push_str("\n/* PFN typedefs */\n");
    for p in &b.pfns {
        if internal.pfns.contains(&p.name) {
            g.signature(&format!("typedef_{}", p.name), &p.name, p)?;
            report.pfn_typedefs.checked += 1;
        }
    }
    report.pfn_typedefs.declared = b.pfns.len();
    report.header_pfn_typedefs = internal.pfns.len();
    let bound_pfns: BTreeSet<&str> = b.pfns.iter().map(|p| p.name.as_str()).collect();
    for p in bound_pfns.iter().filter(|p| !internal.pfns.contains(**p)) {
        report.problems.push(format!(
            "typedef {p}: in bindings.rs, but cudaTypedefs.h does not declare it (not checked)"
        ));
    }
    for p in internal
        .pfns
        .iter()
        .filter(|p| !bound_pfns.contains(p.as_str()))
    {
        report.problems.push(format!(
            "typedef {p}: declared by cudaTypedefs.h, missing from bindings.rs"
        ));
    }
    g.text.push_str("\n/* Other typedefs */\n");
    for (name, ty) in &b.typedefs {
        let c = cpp_type(ty).map_err(|e| format!("typedef {name}: {e}"))?;
        let _ = writeln!(g.text, "CDSYS_TYPE(typedef_{name}, {name}, {c})");
        g.assertions += 1;
        g.parts
            .insert(format!("typedef_{name}"), (String::new(), rust(ty)));
        report.typedefs.checked += 1;
    }
    report.typedefs.declared = b.typedefs.len();

    // Compile the three units at once.
    let paths: Vec<PathBuf> = units
        .iter()
        .map(|g| dir.join(format!("{}.cpp", g.view.name())))
        .collect();
    for (g, p) in units.iter().zip(&paths) {
        std::fs::write(p, &g.text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let reused: Vec<bool> = units
        .iter()
        .map(|g| {
            known.iter().any(|k| {
                k.compiled
                    && k.view == g.view.name()
                    && std::fs::read_to_string(&k.path).is_ok_and(|t| t == g.text)
            })
        })
        .collect();
    let outputs: Vec<Option<Result<std::process::Output, String>>> = std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .iter()
            .zip(&reused)
            .map(|(p, reused)| {
                (!reused).then(|| {
                    s.spawn(move || {
                        cxx.command()
                            .args(["-std=c++17", "-fdiagnostics-color=never", "-fsyntax-only"])
                            .arg(format!("-I{}/support/c", env!("CARGO_MANIFEST_DIR")))
                            .arg(p)
                            .output()
                            .map_err(|e| format!("cannot run {}: {e}", cxx.path.display()))
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.map(|h| h.join().unwrap()))
            .collect()
    });
    for (((g, p), out), reused) in units.iter().zip(&paths).zip(outputs).zip(reused) {
        let compiled = match out {
            None => true,
            Some(out) => {
                let out = out?;
                if !out.status.success() {
                    let diagnostics = format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    report.problems.extend(explain(g, p, &diagnostics));
                }
                out.status.success()
            }
        };
        report.units.push(Unit {
            view: g.view.name().to_string(),
            path: p.display().to_string(),
            assertions: g.assertions,
            compiled,
            reused,
        });
    }
    Ok(())
}

/// Splits `a, b<c, d>, e` at its top-level commas.
fn top_level_args(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for ch in s.chars() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().unwrap().push(ch);
    }
    out.iter().map(|a| a.trim().to_string()).collect()
}

/// One line per problem in a unit's diagnostics: each failed `same<WHERE, HEADER, RUST>` as
/// "function cuX (view): parameter 2 `uc`: cuda.h has `unsigned char`, the bindings `u32` (C++
/// `unsigned int`)"; any other error with the probe line it points at.
fn explain(g: &Gen, path: &Path, diagnostics: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut whole = Vec::new();
    let mut named: BTreeSet<String> = BTreeSet::new();
    let file = path.display().to_string();
    let lines: Vec<&str> = g.text.lines().collect();
    let view = g.view.name();
    for line in diagnostics.lines() {
        if let Some(rest) = line
            .split_once("In instantiation of 'struct cdsys::same<")
            .map(|(_, r)| r)
        {
            let inner = rest.strip_suffix(">':").unwrap_or(rest);
            let args = top_level_args(inner);
            if args.len() != 3 {
                out.push(format!("{view}: {line}"));
                continue;
            }
            // `cdsys_where::typedef_X`, or `cdsys::PART<cdsys_where::TAG[, INDEX]>`.
            let (part, tag, key) = match args[0]
                .strip_prefix("cdsys::")
                .and_then(|w| w.split_once('<'))
            {
                Some((part, inner)) => {
                    let inner = top_level_args(inner.strip_suffix('>').unwrap_or(inner));
                    let tag = inner[0].trim_start_matches("cdsys_where::").to_string();
                    let key = match inner.get(1) {
                        Some(i) => {
                            format!("{tag}::{part}_{}", i.trim_end_matches(['u', 'l', 'U', 'L']))
                        }
                        None => format!("{tag}::{part}"),
                    };
                    (part, tag, key)
                }
                None => {
                    let tag = args[0].trim_start_matches("cdsys_where::").to_string();
                    ("", tag.clone(), tag)
                }
            };
            let (kind, name) = match tag.split_once('_') {
                Some(("function", n)) => ("function", n),
                Some(("inline", n)) => ("static inline function", n),
                Some(("typedef", n)) => ("typedef", n),
                _ => ("entry", tag.as_str()),
            };
            let (what, rust) = g.parts.get(&key).cloned().unwrap_or_default();
            let rust = if rust.is_empty() {
                String::new()
            } else {
                format!("`{rust}` (C++ ")
            };
            let close = if rust.is_empty() { "" } else { ")" };
            let count = |t: &str| {
                t.trim_start_matches("cdsys::parameters<")
                    .trim_end_matches('>')
                    .to_string()
            };
            let msg = if part == "parameter_count" {
                format!(
                    "{kind} {name} ({view} view): {} parameters in cuda.h, {} in the bindings",
                    count(&args[1]),
                    count(&args[2])
                )
            } else {
                format!(
                    "{kind} {name} ({view} view): {what}cuda.h has `{}`, the bindings {rust}`{}`{close}",
                    args[1], args[2]
                )
            };
            if part == "whole_type" {
                whole.push((tag.to_string(), msg));
            } else {
                named.insert(tag.to_string());
                out.push(msg);
            }
        } else if let Some((loc, msg)) = line.split_once(": error: ") {
            // The assertion inside `same` itself is explained by its instantiation line.
            if msg.starts_with("static assertion failed: cuda.h and the Rust bindings differ") {
                continue;
            }
            if let Some(m) = msg.strip_prefix("static assertion failed: C spelling") {
                out.push(format!("C spelling{m}"));
                continue;
            }
            let probe_line = loc
                .strip_prefix(&file)
                .and_then(|r| r.trim_start_matches(':').split(':').next())
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| lines.get(n - 1))
                .map(|l| format!(" in `{}`", l.trim()))
                .unwrap_or_default();
            out.push(format!("{view} view: {loc}: {msg}{probe_line}"));
        } else if line.contains("fatal error") {
            out.push(format!("{view} view: {line}"));
        }
    }
    // The whole type only where no part named the difference.
    out.extend(
        whole
            .into_iter()
            .filter(|(t, _)| !named.contains(t))
            .map(|(_, m)| m),
    );
    if out.is_empty() {
        let head: Vec<&str> = diagnostics.lines().take(20).collect();
        out.push(format!(
            "the {view} unit of the probe did not compile ({}):\n{}",
            path.display(),
            head.join("\n")
        ));
    }
    out
}
