//! Chooses the CUDA header version the items are compiled for and sets its cfgs (`cuda_ge_<V>`
//! for every known version up to it); with the `bindgen` feature, also generates the items from the
//! local CUDA headers. It depends on nothing, so that it and the items compile while
//! cuda-driver-sys's build script (which looks for the library, with the `pkg-config` crate)
//! is still being built. Its metadata (`DEP_CUDA_DRIVER_SYS_ITEMS_VERSION`, `_VERSIONS`,
//! `_INCLUDE_DIR`) is what cuda-driver-sys passes on to dependents as `DEP_CUDA_*`; `_CFGS`,
//! `_KNOWN_CFGS`, `_GENERATED` and `_SRC` let cuda-driver-sys's documentation compile the same
//! items.
//!
//! Nothing here panics: a version that cannot be chosen (no `cuda.h` where one is needed, a header
//! older than the oldest supported) is one `cargo::error` line saying what to do.

mod header;

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use header::ROOT_VARS;

/// The value of a variable the build script reads, announced to cargo (openssl-sys's way).
fn var(name: &str) -> Option<OsString> {
    println!("cargo:rerun-if-env-changed={name}");
    env::var_os(name)
}

fn main() {
    println!("cargo:rerun-if-changed=build");
    let roots: Vec<PathBuf> = ROOT_VARS
        .iter()
        .filter_map(|v| var(v))
        .map(PathBuf::from)
        .collect();
    let include = include_dir(&roots);
    if let Some(include) = &include {
        println!("cargo:include_dir={}", include.display());
    }
    // Where the generated files are (the committed ones, or with `bindgen` those written below),
    // for `generated!`; and the sources, for cuda-driver-sys's documentation (`src/items.rs`).
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let generated = if cfg!(feature = "bindgen") {
        PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default())
    } else {
        manifest_dir.join("src/generated")
    };
    println!(
        "cargo:rustc-env=CUDA_DRIVER_SYS_GENERATED={}",
        generated.display()
    );
    println!("cargo:generated={}", generated.display());
    println!("cargo:src={}", manifest_dir.join("src").display());
    let list: Vec<String> = VERSIONS.iter().map(u32::to_string).collect();
    println!("cargo:versions={}", list.join(","));
    let Some(version) = select_version(include.as_deref()) else {
        return;
    };
    println!("cargo:version={version}");
    // `cuda_ge_<V>` for every known version up to the selected one: the committed bindings carry
    // each item under the cfg of the header versions it exists in (see src/generated/).
    let names: Vec<String> = VERSIONS.iter().map(|v| format!("cuda_ge_{v}")).collect();
    println!("cargo::rustc-check-cfg=cfg({})", names.join(", "));
    let set: Vec<&str> = VERSIONS
        .iter()
        .zip(&names)
        .filter(|(v, _)| **v <= version)
        .map(|(_, name)| name.as_str())
        .collect();
    for name in &set {
        println!("cargo:rustc-cfg={name}");
    }
    println!("cargo:known_cfgs={}", names.join(","));
    println!("cargo:cfgs={}", set.join(","));

    #[cfg(feature = "bindgen")]
    if let Some(include) = &include {
        generate(include);
    }
}

/// The header versions of the committed bindings, one feature `cuda-<V>` each, oldest first: the
/// first column of `versions.txt`, the crate's one list of versions (read when the build script
/// is compiled; a malformed list stops that compilation with a message).
const VERSIONS: [u32; versions_in::<0>(VERSIONS_TXT).1] = versions_in(VERSIONS_TXT).0;

const VERSIONS_TXT: &[u8] = include_bytes!("../versions.txt");

/// The first field of every line of `text` that is not blank or a `#` comment, each a 5-digit
/// `CUDA_VERSION` greater than the one before, in the first `N` slots; and how many there are.
const fn versions_in<const N: usize>(text: &[u8]) -> ([u32; N], usize) {
    let mut out = [0u32; N];
    let (mut count, mut i, mut last) = (0, 0, 0);
    while i < text.len() {
        let (mut value, mut digits) = (0u32, 0);
        while i < text.len() && text[i].is_ascii_digit() {
            value = value * 10 + (text[i] - b'0') as u32;
            digits += 1;
            i += 1;
        }
        let blank_or_comment = digits == 0
            && (i == text.len() || text[i] == b'\n' || text[i] == b'#' || text[i] == b'\r');
        if !blank_or_comment {
            if digits != 5 || (i < text.len() && text[i] != b' ' && text[i] != b'\n') {
                panic!(
                    "versions.txt: a line that is not blank, a # comment or `<CUDA_VERSION> ...`"
                );
            }
            if value <= last {
                panic!("versions.txt: the versions are not in increasing order");
            }
            if count < N {
                out[count] = value;
            }
            count += 1;
            last = value;
        }
        while i < text.len() && text[i] != b'\n' {
            i += 1;
        }
        i += 1;
    }
    (out, count)
}

/// The version built for when no `cuda-<V>` feature is on: the one tagged `default` in
/// `versions.txt` (`tests/versions.rs` checks it), CUDA 12.0, the default minimum driver.
const DEFAULT_VERSION: u32 = 12000;

/// The header version to build for: with `bindgen` or `cuda-version-from-header`, the
/// `CUDA_VERSION` of the `cuda.h` found; else the newest `cuda-<V>` feature ([`DEFAULT_VERSION`]
/// when none is on). `include` is the folder of the `cuda.h` found, if any. `None` after a
/// `cargo::error` saying what to do.
fn select_version(include: Option<&Path>) -> Option<u32> {
    let from_header = cfg!(feature = "bindgen") || cfg!(feature = "cuda-version-from-header");
    if !from_header {
        let selected = VERSIONS
            .iter()
            .rev()
            .find(|v| env::var_os(format!("CARGO_FEATURE_CUDA_{v}")).is_some());
        return Some(selected.copied().unwrap_or(DEFAULT_VERSION));
    }
    let Some(dir) = include else {
        println!(
            "cargo::error=cuda-driver-sys: {} needs a cuda.h: set CUDA_INCLUDE_PATH to the \
             directory holding cuda.h (or CUDA_PATH to a toolkit root); none found in \
             $CUDA_INCLUDE_PATH, {}, /usr/local/cuda/include",
            if cfg!(feature = "bindgen") {
                "feature bindgen"
            } else {
                "feature cuda-version-from-header"
            },
            ROOT_VARS.map(|v| format!("${v}/include")).join(", ")
        );
        return None;
    };
    let cuda_h = dir.join("cuda.h");
    println!("cargo:rerun-if-changed={}", cuda_h.display());
    let text = match std::fs::read(&cuda_h) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            println!(
                "cargo::error=cuda-driver-sys: cannot read {}: {e}",
                cuda_h.display()
            );
            return None;
        }
    };
    let header = match header::header_version(&text) {
        Ok(Some(v)) => v,
        Ok(None) => {
            println!(
                "cargo::error=cuda-driver-sys: {} defines no CUDA_VERSION: point \
                 CUDA_INCLUDE_PATH at a CUDA toolkit's include directory",
                cuda_h.display()
            );
            return None;
        }
        Err(e) => {
            println!(
                "cargo::error=cuda-driver-sys: {} {e}: point CUDA_INCLUDE_PATH at a CUDA \
                 toolkit's include directory",
                cuda_h.display()
            );
            return None;
        }
    };
    if cfg!(feature = "bindgen") {
        // Generated from this very header: every cfg up to its version.
        return Some(header);
    }
    match VERSIONS.iter().rev().find(|&&v| v <= header) {
        Some(&v) => {
            if v != header {
                println!(
                    "cargo:warning=cuda-driver-sys: {} is CUDA_VERSION {header}; using the \
                     bindings of {v}, the newest known version not newer than it",
                    cuda_h.display()
                );
            }
            Some(v)
        }
        None => {
            let oldest = VERSIONS[0];
            println!(
                "cargo::error=cuda-driver-sys: {} is CUDA_VERSION {header}, older than the oldest \
                 supported ({oldest}); use a CUDA {}.{} or newer toolkit",
                cuda_h.display(),
                oldest / 1000,
                oldest % 1000 / 10,
            );
            None
        }
    }
}

fn include_dir(roots: &[PathBuf]) -> Option<PathBuf> {
    var("CUDA_INCLUDE_PATH")
        .map(PathBuf::from)
        .into_iter()
        .chain(roots.iter().map(|r| r.join("include")))
        .chain([PathBuf::from("/usr/local/cuda/include")])
        .find(|d| d.join("cuda.h").is_file())
}

/// Writes the bindings of the `cuda.h` in `include_dir` (and its interop headers) into OUT_DIR.
#[cfg(feature = "bindgen")]
fn generate(include_dir: &Path) {
    let include_dir = include_dir.to_path_buf();
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    for h in ["cuda.h", "cudaTypedefs.h"] {
        println!("cargo:rerun-if-changed={}", include_dir.join(h).display());
    }
    let c_compiler = cc::Build::new().get_compiler().path().to_path_buf();
    // The interop modules (the generator's table of header sets) need the other APIs' headers
    // their CUDA headers include (each set's `foreign_headers`): CUDA_INTEROP_INCLUDE, else the
    // system's.
    let modules = cuda_driver_sys_generator::MODULES.iter().any(|set| {
        let feature = format!("CARGO_FEATURE_{}", set.module.to_uppercase());
        env::var_os(feature).is_some()
    });
    println!("cargo:rerun-if-env-changed=CUDA_INTEROP_INCLUDE");
    let interop_include = modules.then(|| {
        env::var_os("CUDA_INTEROP_INCLUDE")
            .map_or_else(|| PathBuf::from("/usr/include"), PathBuf::from)
    });
    let opts = cuda_driver_sys_generator::Options {
        include_dir,
        interop_include,
        out_dir,
        c_compiler,
        regenerate_hint: "cargo build --features bindgen (cuda-driver-sys-items's build script)"
            .into(),
        only_module: None,
    };
    if let Err(e) = cuda_driver_sys_generator::generate(&opts) {
        let e = e.replace('\n', " ");
        println!("cargo::error=cuda-driver-sys (feature bindgen): {e}");
    }
}
