//! Every function prototype and every typedef of the bindings, against the C++ compiler.
//!
//! `tests/support/prototypes.rs` turns each Rust declaration of the selected version's bindings
//! (every symbol of `functions.rs`, of both stream modes; every `PFN_*` and other typedef of
//! `bindings.rs`; the `static inline` functions of `src/inline.rs`; which symbol and typedef each
//! C spelling names in each stream mode) back into a C++ type, and the compiler asserts with
//! `std::is_same` that it is the one `cuda.h` and `cudaTypedefs.h` declare: parameter count,
//! return type, each parameter and the whole type. This test runs that probe with the C++ compiler
//! and headers the build script found, prints the counts and fails on any mismatch, naming the
//! function, the parameter and both types.
//!
//! The second test proves the check can fail: it applies deliberate mutations to copies of the
//! committed bindings (a parameter type, a return type, a dropped parameter, a `*const` made
//! `*mut`, a `PFN_*` typedef, a typedef, a C spelling, a missing function), runs the same probe
//! with the same compiler and headers, and requires each to be rejected with a message naming it.

// Shared with the build script, which uses the layout probe's part of it.
#[allow(dead_code)]
#[path = "support/c_header.rs"]
mod c_header;
// The bindings' model, shared with the build script, which uses the layout probe's part of it.
#[allow(dead_code)]
#[path = "support/model.rs"]
mod model;
#[path = "support/prototypes.rs"]
mod prototypes;
// The generator's syn helpers over generated Rust, shared rather than repeated; the prototype
// probe uses `option_inner`, the `Option<fn>` matcher of `PFN_*` typedefs.
#[allow(dead_code)]
#[path = "../cuda-driver-sys-items/generator/src/rust_syntax.rs"]
mod rust_syntax;

use std::path::Path;
use std::sync::OnceLock;

use c_header::Compiler;
use model::Inputs;
use prototypes::{Count, Report};

const VERSION: &str = env!("CUDA_HEADER_VERSION");

fn compiler() -> Compiler {
    Compiler {
        path: env!("PROTOTYPES_CXX").into(),
        headers: env!("CUDA_HEADER_DIR").into(),
        interop: env!("CUDA_INTEROP_DIR").into(),
    }
}

fn committed() -> Inputs {
    Inputs::read(Path::new(env!("OUT_DIR")), VERSION).unwrap_or_else(|e| panic!("{e}"))
}

fn scratch() -> std::path::PathBuf {
    Path::new(env!("OUT_DIR")).join("prototypes")
}

/// The probe of the committed bindings, run once for both tests (the mutations compile only what
/// they change against it).
fn control() -> &'static Report {
    static REPORT: OnceLock<Report> = OnceLock::new();
    REPORT.get_or_init(|| {
        prototypes::run(&committed(), &compiler(), &scratch().join("control"), None)
    })
}

#[test]
fn prototypes_match_the_header() {
    let report = control();
    println!("CUDA {VERSION}: {}", report.summary());
    if !report.problems.is_empty() {
        let units: Vec<String> = report
            .units
            .iter()
            .map(|u| u.path.display().to_string())
            .collect();
        panic!(
            "the bindings of CUDA {VERSION} differ from cuda.h/cudaTypedefs.h ({} problem(s); the probe: {}):\n{}",
            report.problems.len(),
            units.join(", "),
            report.problems.join("\n")
        );
    }
    let all = |c: &Count, what: &str| {
        assert!(c.declared > 0, "no {what} found: the probe read nothing");
        assert_eq!(c.checked, c.declared, "{what}: not every one was checked");
    };
    all(&report.functions, "functions");
    all(&report.pfn_typedefs, "PFN typedefs");
    all(&report.typedefs, "typedefs");
    all(&report.spellings[1], "per-thread C spellings");
    assert_eq!(report.functions.declared, report.functions.header);
    assert_eq!(report.pfn_typedefs.declared, report.pfn_typedefs.header);
    assert_eq!(report.inline.checked, report.inline.declared);
    assert_eq!(report.inline.declared, report.inline.header);
    assert_eq!(report.units.len(), 3);
    assert!(report
        .units
        .iter()
        .all(|u| u.compiled && u.assertions() > 0));
    // Every versioned typedef has its typed entry point in the crate: the same count, from the
    // crate itself rather than the probe's reading of bindings.rs (and of the interop modules'
    // files, which the probe reads with cuda.h's).
    let entries = cuda_driver_sys::entry::ALL.len();
    // With the `interop` feature, the probe reads the modules' files too.
    #[cfg(feature = "interop")]
    let entries = {
        use cuda_driver_sys::{egl, gl, profiler, vdpau};
        entries
            + profiler::entry::ALL.len()
            + gl::entry::ALL.len()
            + egl::entry::ALL.len()
            + vdpau::entry::ALL.len()
    };
    assert_eq!(report.pfn_typedefs.declared, entries);
}

/// A deliberate change to one item of one committed file.
struct Mutation<'a> {
    what: &'a str,
    /// `functions`, `bindings`, `function_names`, `names` or `inline` (see [`Inputs`]).
    file: &'a str,
    /// The item's text begins with this.
    item: &'a str,
    /// Replaced, exactly once in the item; `None` removes the item.
    edit: Option<(&'a str, &'a str)>,
    /// What the rejection must mention.
    expect: Vec<&'a str>,
}

/// The mutations, one a line: what it is | the file | the start of the item | `from => to` or
/// `remove` | what the rejection must mention, `;`-separated. `PTSZ`: the header's static inline
/// function (CUDA 11's cuGetProcAddress_ptsz has no status argument, 12's is _v2).
const MUTATIONS: &str = "\
a parameter type: cuMemsetD2D8_v2's `uc: c_uchar` made `u32` | functions | pub fn cuMemsetD2D8_v2( | uc: ::core::ffi::c_uchar => uc: u32 | function cuMemsetD2D8_v2; parameter 2 `uc`; unsigned char
a return type: cuInit returning `c_uint` | functions | pub fn cuInit( | -> CUresult => -> ::core::ffi::c_uint | function cuInit; return type; cudaError_enum
a dropped parameter: cuMemAlloc_v2 without `bytesize` | functions | pub fn cuMemAlloc_v2( | , bytesize: usize =>  | function cuMemAlloc_v2; 2 parameters in cuda.h, 1 in the bindings
a `*const` made `*mut`: cuMemcpyHtoD_v2's `srcHost` | functions | pub fn cuMemcpyHtoD_v2( | *const ::core::ffi::c_void => *mut ::core::ffi::c_void | function cuMemcpyHtoD_v2; parameter 1 `srcHost`; const void*
a per-thread symbol: cuMemsetD2D8_v2_ptds's `uc: c_uchar` made `u32` | functions | pub fn cuMemsetD2D8_v2_ptds( | uc: ::core::ffi::c_uchar => uc: u32 | function cuMemsetD2D8_v2_ptds (per-thread-stream view); parameter 2 `uc`
a static inline function: PTSZ's `driverVersion: c_int` made `u32` | inline | pub unsafe extern \"C\" fn PTSZ( | driverVersion: c_int => driverVersion: u32 | static inline function PTSZ; parameter 2 `driverVersion`
a PFN typedef: PFN_cuMemsetD2D8_v3020's `uc: c_uchar` made `c_ushort` | bindings | pub type PFN_cuMemsetD2D8_v3020 = | uc: ::core::ffi::c_uchar => uc: ::core::ffi::c_ushort | typedef PFN_cuMemsetD2D8_v3020; parameter 2 `uc`
a typedef: CUstream a pointer to CUevent_st | bindings | pub type CUstream = | CUstream_st => CUevent_st | typedef CUstream; CUevent_st
a C spelling: cuMemAlloc bound to cuMemAllocHost_v2 | function_names | pub use self::functions::cuMemAlloc_v2 as cuMemAlloc; | cuMemAlloc_v2 => cuMemAllocHost_v2 | C spelling cuMemAlloc; cuMemAllocHost_v2
a missing function: cuMemsetD2D8_v2 removed | functions | pub fn cuMemsetD2D8_v2( | remove | function cuMemsetD2D8_v2; missing from functions.rs";

/// The [`MUTATIONS`] of `table`.
fn mutations(table: &str) -> Vec<Mutation<'_>> {
    table
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split(" | ").collect();
            let expect = f[4].split("; ").collect();
            let (what, file, item, edit) = (f[0], f[1], f[2], f[3].split_once(" => "));
            Mutation {
                what,
                file,
                item,
                edit,
                expect,
            }
        })
        .collect()
}

/// Applies `m` to `inputs`, or says why it cannot (then the test would prove nothing).
fn mutate(inputs: &mut Inputs, m: &Mutation) -> Result<(), String> {
    let text = inputs.text.get_mut(m.file).expect("a file of the inputs");
    let start = text
        .find(m.item)
        .ok_or_else(|| format!("`{}` not found", m.item))?;
    let end = start
        + text[start..]
            .find(';')
            .ok_or_else(|| format!("`{}` has no end", m.item))?
        + 1;
    // Items are one line in bindgen's output only when short: compare without line breaks.
    let item: String = text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(",)", ")");
    let new = match m.edit {
        None => String::new(),
        Some((from, to)) => {
            if item.matches(from).count() != 1 {
                return Err(format!("`{from}` is not in `{item}` exactly once"));
            }
            item.replacen(from, to, 1)
        }
    };
    text.replace_range(start..end, &new);
    Ok(())
}

#[test]
fn mutations_are_rejected() {
    let (cxx, scratch, committed) = (compiler(), scratch(), committed());
    // The control: the committed bindings, through the same path, pass.
    let control = control();
    assert!(
        control.problems.is_empty(),
        "the committed bindings fail the probe: {:?}",
        control.problems
    );
    println!(
        "mutations of the CUDA {VERSION} bindings (control, unchanged: accepted, {} functions, {:.2} s)",
        control.functions.checked,
        control.millis as f64 / 1000.0
    );

    let ptsz = if cfg!(cuda_ge_12000) {
        "cuGetProcAddress_v2_ptsz"
    } else {
        "cuGetProcAddress_ptsz"
    };
    let table = MUTATIONS.replace("PTSZ", ptsz);
    let mutations = mutations(&table);
    // Each mutation on its own copy, all at once (most of the time is the compiler's).
    let reports: Vec<Result<Report, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = mutations
            .iter()
            .enumerate()
            .map(|(n, m)| {
                let (committed, cxx, scratch) = (&committed, &cxx, &scratch);
                s.spawn(move || {
                    let mut inputs = committed.clone();
                    mutate(&mut inputs, m).map(|()| {
                        prototypes::run(&inputs, cxx, &scratch.join(n.to_string()), Some(control))
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (m, report) in mutations.iter().zip(reports) {
        let report = match report {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: cannot be applied: {e}", m.what));
                continue;
            }
        };
        let all = report.problems.join("\n");
        let first = report
            .problems
            .iter()
            .find(|p| m.expect.iter().all(|e| p.contains(e)));
        match first {
            Some(line) => println!("  rejected: {}\n      {line}", m.what),
            None => failures.push(format!(
                "{}: {}",
                m.what,
                if all.is_empty() {
                    "ACCEPTED by the probe".to_string()
                } else {
                    format!("rejected, but no line mentions {:?}:\n{all}", m.expect)
                }
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
