//! The prototype probe of `tests/prototypes.rs`: every function, `PFN_*` typedef, other typedef and
//! C spelling of the selected version's bindings (the build script's `projected_*.rs`), turned back
//! into a C++ type that the C++ compiler compares (`std::is_same`) with what the `cuda.h` and
//! `cudaTypedefs.h` they were generated from declare (C++: C's `__builtin_types_compatible_p` takes
//! an enum for its integer type). The C++ side is generic (`c/prototypes.hpp`), one line per entry;
//! where a function's whole type differs, each part is compared: parameter count, variadic-ness,
//! return type, each parameter.
//!
//! Three units, compiled with `-fsyntax-only`, see the headers as their declarations differ:
//! `legacy-stream` as a C program, `per-thread-stream` with `CUDA_API_PER_THREAD_DEFAULT_STREAM`,
//! `internal` as the bindings were generated (`__CUDA_API_VERSION_INTERNAL`: the legacy `_v1`
//! types, older `PFN_*` typedefs). Functions are checked in each stream view whose header declares
//! them (the preprocessed header tells), C spellings in their mode, typedefs in the internal view;
//! what only one side has is a problem too, and each mismatch one line ([`explain`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::c_header::{includes, Compiler, Decls, INTERNAL_DEFINES};
use crate::model::{rust_text, Inputs, Model, Sig};

/// The three views of the headers, each a unit of the probe: name and defines.
const VIEWS: [(&str, &str); 3] = [
    ("legacy-stream", ""),
    ("per-thread-stream", "CUDA_API_PER_THREAD_DEFAULT_STREAM"),
    ("internal", INTERNAL_DEFINES),
];

/// Checked entries of one kind, how many the bindings declare and how many the header does.
#[derive(Clone, Copy, Debug, Default)]
pub struct Count {
    /// Entries the probe has an assertion for.
    pub checked: usize,
    /// Entries the bindings have.
    pub declared: usize,
    /// Entries the header declares (functions: in either stream mode; `PFN_*` typedefs: in the
    /// internal view); 0 where its side is not listed (other typedefs, C spellings).
    pub header: usize,
}

/// One unit of the probe: a view of the headers, its C++ file and text, its entries (numbered in
/// the unit), and whether g++ accepted it.
#[derive(Clone, Debug)]
pub struct Unit {
    /// `legacy-stream`, `per-thread-stream` or `internal`.
    pub view: &'static str,
    pub path: PathBuf,
    text: String,
    entries: Vec<Entry>,
    pub compiled: bool,
}

impl Unit {
    /// The `static_assert`s in it, one an entry.
    pub fn assertions(&self) -> usize {
        self.entries.len()
    }

    /// The line of the next entry, `line` given its number.
    fn entry(&mut self, line: impl FnOnce(usize) -> String, entry: Entry) {
        let _ = writeln!(self.text, "{}", line(self.entries.len()));
        self.entries.push(entry);
    }
}

/// What the probe checked, and every problem found (empty when the bindings are the header's).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Functions of `functions.rs` (the header's: library symbols, not `static inline`).
    pub functions: Count,
    /// Parameters of the checked functions.
    pub parameters: usize,
    /// Functions of `inline.rs`, against the header's `static inline` functions.
    pub inline: Count,
    /// `PFN_*` typedefs of `bindings.rs`, against `cudaTypedefs.h`'s.
    pub pfn_typedefs: Count,
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
    /// What each view of the headers declares (see [`run`]).
    scans: Vec<Decls>,
}

impl Report {
    /// The counts, as the test prints them.
    pub fn summary(&self) -> String {
        let c = |c: &Count| format!("{} checked of {} declared", c.checked, c.declared);
        let (functions, pfns, inline) =
            (c(&self.functions), c(&self.pfn_typedefs), c(&self.inline));
        let (parameters, header) = (self.parameters, self.functions.header);
        let units: Vec<String> = (self.units.iter())
            .map(|u| {
                let how = if u.compiled { "" } else { " (REJECTED)" };
                format!("{} {} assertions{how}", u.view, u.assertions())
            })
            .collect();
        let (legacy, per_thread) = (c(&self.spellings[0]), c(&self.spellings[1]));
        let seconds = self.millis as f64 / 1000.0;
        [
            format!("prototypes: {functions}; PFN typedefs: {pfns}"),
            format!("  functions (functions.rs, both stream modes): {functions}, {parameters} parameters; cuda.h declares {header}"),
            format!("  static inline functions (inline.rs): {inline}; cuda.h declares {}", self.inline.header),
            format!("  PFN typedefs (bindings.rs): {pfns}; cudaTypedefs.h declares {}", self.pfn_typedefs.header),
            format!("  other typedefs (bindings.rs): {}", c(&self.typedefs)),
            format!("  C spellings (function_names.rs, PFN_cuX of names.rs): legacy stream {legacy}; per-thread stream {per_thread}"),
            format!("  probe: {} ({seconds:.2} s with the header scans)", units.join(", ")),
        ]
        .join("\n")
    }
}

/// Generates the probe of `inputs` into `dir`, compiles it and reports. Against the report of a
/// `control` run (same headers and compiler), the headers are not read again, and a unit whose
/// text is that of one of its units that compiled is not compiled again: the mutation test
/// compiles only what each mutation changed.
pub fn run(inputs: &Inputs, cxx: &Compiler, dir: &Path, control: Option<&Report>) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    if let Err(e) = probe(inputs, cxx, dir, control, &mut report) {
        report.problems.push(e);
    }
    report.millis = start.elapsed().as_millis() as u64;
    report
}

/// The C++ spelling of a Rust type of the bindings: a named type by its own name (the header's:
/// bindgen keeps them; a primitive, `c_uchar` or `u32`, is an alias of `prototypes.hpp`), `*mut
/// *const c_char` as `c_char const * *`, `Option<unsafe extern "C" fn(A) -> R>` as `cdsys::fn<R, A>`.
fn cpp_type(ty: &syn::Type) -> Result<String, String> {
    let unknown = || format!("the probe has no C++ spelling for `{}`", rust_text(ty));
    match ty {
        syn::Type::Ptr(p) => {
            let constness = if p.mutability.is_some() { "" } else { " const" };
            Ok(format!("{}{constness} *", cpp_type(&p.elem)?))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(f) = crate::rust_syntax::option_inner(ty) {
                return cpp_fn(f);
            }
            let path = rust_text(&p.path);
            let (module, name) = path.rsplit_once("::").unwrap_or(("", &path));
            let ffi = ["", "core::ffi", "std::ffi", "std::os::raw"];
            match ffi.contains(&module.trim_start_matches("::")) && !name.contains('<') {
                true => Ok(name.to_string()),
                false => Err(unknown()),
            }
        }
        syn::Type::BareFn(f) => cpp_fn(f),
        syn::Type::Array(a) => {
            let (elem, len) = (cpp_type(&a.elem)?, rust_text(&a.len));
            Ok(format!("cdsys::array<{elem}, {len}>"))
        }
        syn::Type::Tuple(t) if t.elems.is_empty() => Ok("void".into()),
        syn::Type::Paren(p) => cpp_type(&p.elem),
        _ => Err(unknown()),
    }
}

/// The return type of a `fn` type (`()` for none).
fn ret(f: &syn::TypeBareFn) -> syn::Type {
    match &f.output {
        syn::ReturnType::Default => syn::parse_quote!(()),
        syn::ReturnType::Type(_, t) => (**t).clone(),
    }
}

/// Parameter `i` of a `fn` type, for the messages: ``parameter 2 `uc`: ``.
fn parameter(i: usize, a: &syn::BareFnArg) -> String {
    let name = (a.name.as_ref()).map_or(format!("arg{i}"), |(n, _)| n.to_string());
    format!("parameter {i} `{name}`: ")
}

/// `cdsys::fn<R, A...>`: `R (*)(A...)` (`cdsys::vfn`: `R (*)(A..., ...)`).
fn cpp_fn(f: &syn::TypeBareFn) -> Result<String, String> {
    let mut args = vec![cpp_type(&ret(f))?];
    for (i, a) in f.inputs.iter().enumerate() {
        args.push(cpp_type(&a.ty).map_err(|e| format!("{}{e}", parameter(i, a)))?);
    }
    let kind = if f.variadic.is_some() { "vfn" } else { "fn" };
    Ok(format!("cdsys::{kind}<{}>", args.join(", ")))
}

/// What the messages call an entry (`function cuX`), and what each of its parts (`where<E, PART>` in
/// `prototypes.hpp`) is with the bindings' Rust type of it: a signature's whole type, parameter
/// count, variadic-ness, return type and parameters ([`parts`]); another typedef's type alone.
type Entry = (String, Vec<(String, String)>);

/// The parts of a signature entry.
fn parts(f: &syn::TypeBareFn) -> Vec<(String, String)> {
    let mut parts = vec![("type: ".to_string(), String::new()); 2];
    parts.push(("variadic: ".into(), f.variadic.is_some().to_string()));
    parts.push(("return type: ".into(), rust_text(&ret(f))));
    let params = f.inputs.iter().enumerate();
    parts.extend(params.map(|(i, a)| (parameter(i, a), rust_text(&a.ty))));
    parts
}

fn probe(
    inputs: &Inputs,
    cxx: &Compiler,
    dir: &Path,
    control: Option<&Report>,
    report: &mut Report,
) -> Result<(), String> {
    let m = Model::read(inputs)?;
    // The `PFN_*` typedefs of bindings.rs, and the others (`pub type`, `pub use E as T`).
    let (mut pfns, mut typedefs): (Vec<Sig>, Vec<(String, syn::Type)>) = Default::default();
    for (name, ty) in &m.aliases {
        if !name.starts_with("PFN_") {
            typedefs.push((name.clone(), ty.clone()));
        } else if let Some(f) = crate::rust_syntax::option_inner(ty) {
            pfns.push((name.clone(), f.clone()));
        } else {
            return Err(format!("bindings.rs: {name} is not an Option<fn> typedef"));
        }
    }
    let enum_typedefs = m.enum_typedefs.iter();
    typedefs.extend(enum_typedefs.map(|(n, e)| (n.clone(), syn::parse_str(e).unwrap())));
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // What each view declares: the control's, or the three preprocessor runs in parallel.
    let scan = |defines: &str| {
        let defines: Vec<&str> = defines.split_whitespace().collect();
        let [driver, _] = Decls::scan(&cxx.preprocess(&defines)?)?;
        Ok(driver)
    };
    let declared = match control {
        Some(c) => c.scans.clone(),
        None => (parallel(VIEWS.map(|(_, d)| move || scan(d))).into_iter())
            .collect::<Result<Vec<Decls>, String>>()?,
    };
    // Each kind of signature (`kind|file|header|what the header does`, the bindings), against the
    // header's names in each view that declares it: functions in the stream views, `PFN_*`
    // typedefs in the internal one (the only one with all of them).
    let kinds: [(&str, &[Sig]); 3] = [
        ("function|functions.rs|cuda.h|declare", &m.functions),
        ("static inline function|inline.rs|cuda.h|define", &m.inline),
        ("typedef|bindings.rs|cudaTypedefs.h|declare", &pfns),
    ];
    let mut checked: [BTreeSet<&str>; 3] = Default::default();
    let mut in_header: [BTreeSet<&str>; 3] = Default::default();
    let mut units = Vec::new();
    for (v, ((view, defines), d)) in VIEWS.iter().zip(&declared).enumerate() {
        let prologue: String = (defines.split_whitespace())
            .map(|d| format!("#define {d} 1\n"))
            .collect();
        let (version, includes) = (&inputs.version, includes());
        let text = format!(
            "/* @generated by tests/support/prototypes.rs from the projected bindings of CUDA \
             {version}: the {view} view of cuda.h, cudaTypedefs.h and the interop headers. */\n\
             {prologue}#include \"prototypes.hpp\"\n{includes}"
        );
        let mut g = Unit {
            view,
            path: dir.join(format!("{view}.cpp")),
            text,
            entries: Vec::new(),
            compiled: true,
        };
        if v < 2 {
            // The C spellings of the mode (the name the header's macros turn the spelling into
            // must be the item the bindings bind it to); the functions are then checked by the
            // symbol's own name (not the macros that may rename it in that view).
            let _ = writeln!(g.text, "\n/* C spellings, {view} */");
            let spellings = m.spellings.iter().chain(&m.name_types);
            let spellings: Vec<_> = spellings.filter(|s| s.2[v]).collect();
            for (c, target, _) in &spellings {
                let line = |_| format!("CDSYS_SPELLING({c}, {target}, \"{view}\")");
                g.entry(line, (format!("C spelling {c}"), Vec::new()));
            }
            report.spellings[v].checked = spellings.len();
            report.spellings[v].declared = spellings.len();
            for name in d.signatures[0].iter().chain(&d.signatures[1]) {
                let _ = writeln!(g.text, "#undef {name}");
            }
        }
        for (k, (spec, bound)) in kinds.iter().enumerate() {
            if (k == 2) != (v == 2) {
                continue;
            }
            let (kind, names) = (spec.split('|').next().unwrap(), &d.signatures[k]);
            let _ = writeln!(g.text, "\n/* {kind}s */");
            in_header[k].extend(names.iter().map(String::as_str));
            for (name, f) in bound.iter().filter(|f| names.contains(&f.0)) {
                // The whole type; where it differs, each part (prototypes.hpp).
                let header = if v < 2 {
                    format!("decltype(&::{name})")
                } else {
                    name.clone()
                };
                let cpp = cpp_fn(f).map_err(|e| format!("{name}: {e}"))?;
                let line = |n| format!("CDSYS_SIGNATURE({n}, {header}, {cpp})");
                g.entry(line, (format!("{kind} {name}"), parts(f)));
                if checked[k].insert(name) && k == 0 {
                    report.parameters += f.inputs.len();
                }
            }
        }
        if v == 2 {
            g.text.push_str("\n/* Other typedefs */\n");
            for (name, ty) in &typedefs {
                let cpp = cpp_type(ty).map_err(|e| format!("typedef {name}: {e}"))?;
                let line = |n| format!("CDSYS_TYPE({n}, {name}, {cpp})");
                let rust = vec![(String::new(), rust_text(ty))];
                g.entry(line, (format!("typedef {name}"), rust));
            }
        }
        std::fs::write(&g.path, &g.text).map_err(|e| format!("{}: {e}", g.path.display()))?;
        units.push(g);
    }
    (report.typedefs.checked, report.typedefs.declared) = (typedefs.len(), typedefs.len());
    // The counts, and a problem for each name only one side has.
    let mut counts = [Count::default(); 3];
    for (k, (spec, bound)) in kinds.iter().enumerate() {
        let [kind, file, header, verb] = spec.splitn(4, '|').collect::<Vec<_>>()[..] else {
            unreachable!()
        };
        let bound: BTreeSet<&str> = bound.iter().map(|f| f.0.as_str()).collect();
        let (checked, declared, header_n) = (checked[k].len(), bound.len(), in_header[k].len());
        counts[k] = Count {
            checked,
            declared,
            header: header_n,
        };
        let how = match header {
            "cuda.h" => format!("but {header} {verb}s it in neither stream mode"),
            _ => format!("but {header} does not {verb} it"),
        };
        for f in bound.difference(&in_header[k]) {
            (report.problems).push(format!("{kind} {f}: in {file}, {how} (not checked)"));
        }
        for f in in_header[k].difference(&bound) {
            let missing = format!("{kind} {f}: {verb}d by {header}, missing from {file}");
            report.problems.push(missing);
        }
    }
    [report.functions, report.inline, report.pfn_typedefs] = counts;
    report.scans = declared;
    let known = control.map_or(&[][..], |c| &c.units);
    compile(units, cxx, known, report)
}

/// Compiles the units at once (those not `known` to compile with the same text) and reports them.
fn compile(
    mut units: Vec<Unit>,
    cxx: &Compiler,
    known: &[Unit],
    report: &mut Report,
) -> Result<(), String> {
    let outputs = parallel(units.iter().map(|u| {
        let reused = (known.iter()).any(|k| k.compiled && k.view == u.view && k.text == u.text);
        let mut cmd = cxx.command();
        cmd.args(["-std=c++17", "-fdiagnostics-color=never", "-fsyntax-only"])
            .arg(format!("-I{}/support/c", env!("CARGO_MANIFEST_DIR")))
            .arg(&u.path);
        move || (!reused).then(|| cmd.output())
    }));
    for (u, out) in units.iter_mut().zip(outputs) {
        let Some(out) = out else { continue };
        let out = out.map_err(|e| format!("cannot run {}: {e}", cxx.path.display()))?;
        u.compiled = out.status.success();
        if !u.compiled {
            let diagnostics = String::from_utf8_lossy(&out.stderr);
            report.problems.extend(explain(u, &diagnostics));
        }
    }
    report.units = units;
    Ok(())
}

/// Runs `jobs` at once, each on a thread of its own: their results, in order.
fn parallel<T: Send, F: FnOnce() -> T + Send>(jobs: impl IntoIterator<Item = F>) -> Vec<T> {
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|job| s.spawn(job)).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// One line per problem in a unit's diagnostics: each failed `check<where<ENTRY, PART>,
/// header<HEADER>, bindings<RUST>>` as "function cuX (view): parameter 2 `uc`: cuda.h has
/// `unsigned char`, the bindings `u32` (C++ `unsigned int`)" (the whole type only where no part of
/// it is named); any other error with the probe line it points at.
fn explain(g: &Unit, diagnostics: &str) -> Vec<String> {
    let (mut out, mut whole, mut named) = (Vec::new(), Vec::new(), BTreeSet::new());
    let (file, view) = (g.path.display().to_string(), g.view);
    for line in diagnostics.lines() {
        if let Some((_, rest)) = line.split_once("In instantiation of 'struct cdsys::check<") {
            // `E, P>, cdsys::header<H>, cdsys::bindings<R> >':` (or `>>':`).
            let (w, rest) = rest.split_once(">, cdsys::header<").unwrap_or_default();
            let (header, bound) = rest.split_once(">, cdsys::bindings<").unwrap_or_default();
            let bound = bound.strip_suffix("':").unwrap_or_default().trim_end();
            let bound = bound.strip_suffix('>').unwrap_or_default().trim_end();
            let bound = bound.strip_suffix('>').map(str::trim_end);
            let numbers = w.split(|c: char| !c.is_ascii_digit());
            let numbers: Vec<usize> = numbers.filter_map(|n| n.parse().ok()).collect();
            let entry = numbers.first().and_then(|e| g.entries.get(*e));
            let (Some((subject, parts)), &[e, part], Some(bound)) = (entry, &numbers[..], bound)
            else {
                out.push(format!("{view}: {line}"));
                continue;
            };
            let sig = parts.len() > 1;
            let (what, rust) = parts.get(part).cloned().unwrap_or_default();
            let header = header.trim_end();
            let count = |t: &str| t.replace(|c: char| !c.is_ascii_digit(), ""); // parameters<N>
            let at = format!("{subject} ({view} view)");
            let msg = if sig && part == 1 {
                let (h, r) = (count(header), count(bound));
                format!("{at}: {h} parameters in cuda.h, {r} in the bindings")
            } else if rust.is_empty() {
                format!("{at}: {what}cuda.h has `{header}`, the bindings `{bound}`")
            } else {
                format!("{at}: {what}cuda.h has `{header}`, the bindings `{rust}` (C++ `{bound}`)")
            };
            if sig && part == 0 {
                whole.push((e, msg));
            } else {
                named.insert(e);
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
            let number = loc
                .strip_prefix(&file)
                .and_then(|r| r.trim_start_matches(':').split(':').next());
            let probe_line = (number.and_then(|n| n.parse::<usize>().ok()))
                .and_then(|n| g.text.lines().nth(n - 1))
                .map(|l| format!(" in `{}`", l.trim()))
                .unwrap_or_default();
            out.push(format!("{view} view: {loc}: {msg}{probe_line}"));
        } else if line.contains("fatal error") {
            out.push(format!("{view} view: {line}"));
        }
    }
    whole.retain(|(e, _)| !named.contains(e));
    out.extend(whole.into_iter().map(|(_, m)| m));
    if out.is_empty() {
        let head: Vec<&str> = diagnostics.lines().take(20).collect();
        let (path, head) = (g.path.display(), head.join("\n"));
        let msg = format!("the {view} unit of the probe did not compile ({path}):\n{head}");
        out.push(msg);
    }
    out
}
