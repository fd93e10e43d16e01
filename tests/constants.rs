//! Every constant the crate exports, against the C compiler: each enumerator of each enum (as the
//! newtype's associated constant and at top level), every integer macro constant bindgen
//! translated, and the macro constants `names.rs` adds (pointer casts such as
//! `CU_LAUNCH_PARAM_BUFFER_POINTER`, `CU_DEVICE_CPU`, aliases of enumerators).
//!
//! `tests/support/layout.rs` writes the table of the constants from the committed bindings; the C
//! compiler (`tests/support/c/constants_probe.c`) evaluates `(unsigned long long)NAME`
//! (`(uintptr_t)NAME` for pointers) against the same header, as a C program includes it (with
//! `CUDA_API_PER_THREAD_DEFAULT_STREAM` under the `per-thread-default-stream` feature), and this
//! test expands the same table into the Rust values. No driver function is called or referenced.

// The table names every enumerator, those `compat-0-3` deprecates among them (this package's
// dev-dependencies turn the feature on, for compile_fail/compat_0_3_renumbered.rs).
#![allow(deprecated)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, CStr};

#[path = "common/headers.rs"]
mod headers;

/// Kinds: 0 enumerator (`Enum::NAME`), 1 enumerator at top level (names.rs), 2 macro constant
/// bindgen translated, 3 macro constant of names.rs.
struct Constant {
    rust: &'static str,
    c: &'static str,
    kind: u8,
    pointer: bool,
    value: i128,
}

/// The Rust half of the probe's table (see tests/support/layout.rs; the C half expands the same
/// entries in tests/support/c/constants_probe.c): `K` an integer, `P` a pointer constant; the
/// last argument is C's.
macro_rules! constants_table {
    ($($k:ident($rust:literal, $c:literal, $kind:literal, ($value:expr), $cc:tt))*) => {
        pub(crate) fn constants() -> Vec<Constant> {
            vec![$(Constant {
                rust: $rust, c: $c, kind: $kind, pointer: stringify!($k) == "P", value: $value,
            }),*]
        }
    };
}

// `mod probe`: the tables of the selected version, expanded by the macro above.
include!(concat!(env!("OUT_DIR"), "/constants_probe.rs"));

#[repr(C)]
struct CConstant {
    name: *const c_char,
    bits: u64,
    negative: u64,
}
extern "C" {
    /// Fills `out` (when not null) with the C compiler's values; returns their number.
    fn cuda_driver_workspace_constants(out: *mut CConstant) -> u64;
}

fn c_values() -> BTreeMap<&'static str, i128> {
    // SAFETY: the C probe fills exactly as many entries as it returns, whose names are
    // NUL-terminated literals.
    unsafe {
        let n = cuda_driver_workspace_constants(std::ptr::null_mut()) as usize;
        let mut v: Vec<CConstant> = Vec::with_capacity(n);
        cuda_driver_workspace_constants(v.as_mut_ptr());
        v.set_len(n);
        v.iter()
            .map(|c| {
                let name = CStr::from_ptr(c.name).to_str().unwrap();
                let value = if c.negative != 0 {
                    c.bits as i64 as i128
                } else {
                    c.bits as i128
                };
                (name, value)
            })
            .collect()
    }
}

#[test]
fn constants_match_the_c_compiler() {
    let version = env!("CUDA_HEADER_VERSION");
    assert_eq!(
        VERSION, version,
        "the probe was generated for another header version"
    );
    let c = c_values();
    let rust = constants();
    let mut bad = Vec::new();
    let mut counts = [0usize; 4];
    let mut pointers = 0;
    let mut enums = BTreeSet::new();
    for k in &rust {
        counts[k.kind as usize] += 1;
        pointers += usize::from(k.pointer);
        if k.kind == 0 {
            enums.insert(k.rust.split("::").next().unwrap());
        }
        match c.get(k.c) {
            Some(&v) if v == k.value => {}
            Some(&v) => bad.push(format!(
                "{} (C `{}`): C {v} ({v:#x}), Rust {} ({:#x})",
                k.rust, k.c, k.value, k.value
            )),
            None => bad.push(format!("{}: no C entry for `{}`", k.rust, k.c)),
        }
    }

    // Every enumerator and enum the header defines is in the bindings.
    let rust_enumerators: BTreeSet<&str> =
        rust.iter().filter(|k| k.kind == 0).map(|k| k.c).collect();
    for e in HEADER_ENUMERATORS {
        if !rust_enumerators.contains(e) {
            bad.push(format!(
                "enumerator {e} of the header is not in the bindings"
            ));
        }
    }
    if HEADER_ENUMERATORS.len() != counts[0] {
        bad.push(format!(
            "the header defines {} enumerators, the bindings have {}",
            HEADER_ENUMERATORS.len(),
            counts[0]
        ));
    }
    if HEADER_ENUMS != RUST_ENUMS || enums.len() > RUST_ENUMS {
        bad.push(format!(
            "the header defines {HEADER_ENUMS} enums, the bindings have {RUST_ENUMS} newtypes"
        ));
    }

    println!(
        "CUDA {version} constants: compared {} enumerators of {} enums ({} in the header), {} \
         top-level enumerator spellings, {} macro constants of bindgen and {} of names.rs \
         ({pointers} of them pointers), {} in all.",
        counts[0],
        enums.len(),
        HEADER_ENUMS,
        counts[1],
        counts[2],
        counts[3],
        rust.len()
    );
    // The same, counted per header (cuda.h, and each interop header's module).
    let hs = headers::headers();
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for k in &rust {
        let name = k.rust.rsplit("::").next().unwrap();
        *per.entry(headers::header_of(&hs, name)).or_default() += 1;
    }
    if let Some(n) = per.get("?") {
        bad.push(format!("{n} constants declared by no header's bindings"));
    }
    let counts_per: Vec<(&str, &str, usize)> =
        per.iter().map(|(h, n)| (*h, "constants", *n)).collect();
    println!(
        "CUDA {version} constants per header: {}",
        headers::per_header_line(&hs, &counts_per)
    );
    assert!(counts[0] > 0 && counts[2] > 0, "nothing was compared");
    assert!(
        bad.is_empty(),
        "{} constants differ between the bindings and the C compiler (CUDA {version}):\n  {}",
        bad.len(),
        bad.join("\n  ")
    );
}
