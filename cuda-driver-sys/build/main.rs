//! Finds `libcuda` and tells Cargo how to link it; with the `bindgen` feature, also generates
//! the bindings from the local CUDA headers. With the `dynamic-loading` feature nothing is linked
//! (the crate opens the library at run time); the search still runs, quietly, for
//! `DEP_CUDA_LIB_DIR`.
//!
//! The search order, the places of the CUDA toolkit's layouts on Linux (x86-64, aarch64 SBSA and
//! Jetson) and Windows, is `search.rs`'s (pure functions, unit-tested there): `CUDA_LIBRARY_PATH`;
//! a toolkit root from `CUDA_PATH`, `CUDA_ROOT`, `CUDA_TOOLKIT_ROOT_DIR`, `CUDA_HOME`; the
//! directories of `LD_LIBRARY_PATH` (not those cargo adds) and the system's; `pkg-config`'s
//! `cuda-<major>.<minor>` packages (only when linking; `PKG_CONFIG` names the program); the
//! toolkits' stub libraries last. Each variable read is announced to cargo
//! (`rerun-if-env-changed`).
//!
//! A directory with `libcuda.so` links `-lcuda`; one with only `libcuda.so.1` (a driver without
//! the development symlink) links that file verbatim. Where nothing is found the script warns,
//! naming each place it searched, and still asks for `-lcuda`, so `cargo check`, `cargo doc` and
//! docs.rs work. Nothing here panics: what cannot be used (a pkg-config that fails, a directory
//! whose name is not UTF-8, which cargo cannot take) is a line of that warning.

mod search;

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use search::{Inputs, Place, ROOT_VARS};

/// The value of a variable the build script reads, announced to cargo (openssl-sys's way).
fn var(name: &str) -> Option<OsString> {
    println!("cargo:rerun-if-env-changed={name}");
    env::var_os(name)
}

fn main() {
    println!("cargo:rerun-if-changed=build");
    let dynamic = env::var_os("CARGO_FEATURE_DYNAMIC_LOADING").is_some();
    let roots: Vec<PathBuf> = ROOT_VARS
        .iter()
        .filter_map(|v| var(v))
        .map(PathBuf::from)
        .collect();
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let rustc = PathBuf::from(env::var_os("RUSTC").unwrap_or_default());
    let inputs = Inputs {
        os: env::var("CARGO_CFG_TARGET_OS").unwrap_or_default(),
        arch: env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default(),
        library_path: var("CUDA_LIBRARY_PATH").map(PathBuf::from),
        roots,
        loader_path: search::user_loader_path(
            &var("LD_LIBRARY_PATH").unwrap_or_default(),
            &out_dir,
            search::sysroot_of(&rustc),
        ),
        dynamic,
    };

    let mut searched = Vec::new();
    let found = find_library(&inputs, &mut searched);
    match &found {
        // Dynamic loading: nothing to link; the directory is still metadata for dependents.
        Some(lib) if dynamic => println!("cargo:lib_dir={}", lib.dir),
        None if dynamic => {}
        Some(lib) => {
            println!("cargo:rustc-link-search=native={}", lib.dir);
            println!("cargo:rustc-link-lib=dylib{}", lib.link_arg);
            println!("cargo:lib_dir={}", lib.dir);
        }
        None => {
            println!(
                "cargo:warning=cuda-driver-sys: libcuda not found; linking will ask for -lcuda. \
                 Searched, in order: {}. Set CUDA_LIBRARY_PATH to the directory holding \
                 libcuda.so (or libcuda.so.1), or CUDA_PATH to a toolkit root.",
                searched.join(", ")
            );
            println!("cargo:rustc-link-lib=dylib=cuda");
        }
    }
    if let Some(dir) = &inputs.library_path {
        if found.as_ref().is_none_or(|f| Path::new(&f.dir) != dir) && !dynamic {
            let files: Vec<&str> = search::library_files(&inputs.os)
                .iter()
                .map(|(file, _)| *file)
                .collect();
            println!(
                "cargo:warning=cuda-driver-sys: CUDA_LIBRARY_PATH={} holds no {}; searched on",
                dir.display(),
                files.join(" or ")
            );
        }
    }
    if let Some(include) = include_dir(&inputs.roots) {
        println!("cargo:include_dir={}", include.display());
    }
    let Some(version) = select_version(&inputs.roots) else {
        return;
    };
    println!("cargo:version={version}");
    let list: Vec<String> = VERSIONS.iter().map(u32::to_string).collect();
    println!("cargo:versions={}", list.join(","));
    // `cuda_ge_<V>` for every known version up to the selected one: the committed bindings carry
    // each item under the cfg of the header versions it exists in (see src/generated/).
    let names: Vec<String> = VERSIONS.iter().map(|v| format!("cuda_ge_{v}")).collect();
    println!("cargo::rustc-check-cfg=cfg({})", names.join(", "));
    for (v, name) in VERSIONS.iter().zip(&names) {
        if *v <= version {
            println!("cargo:rustc-cfg={name}");
        }
    }

    #[cfg(feature = "bindgen")]
    generate(&inputs.roots);
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
/// when none is on). `None` after a `cargo::error` saying what to do.
fn select_version(roots: &[PathBuf]) -> Option<u32> {
    let from_header = cfg!(feature = "bindgen") || cfg!(feature = "cuda-version-from-header");
    if !from_header {
        let selected = VERSIONS
            .iter()
            .rev()
            .find(|v| env::var_os(format!("CARGO_FEATURE_CUDA_{v}")).is_some());
        return Some(selected.copied().unwrap_or(DEFAULT_VERSION));
    }
    let Some(dir) = include_dir(roots) else {
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
    let header = match search::header_version(&text) {
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

struct Found {
    /// The directory, as cargo takes it (UTF-8).
    dir: String,
    /// What follows `rustc-link-lib=dylib`: `=cuda`, or `:+verbatim=libcuda.so.1`.
    link_arg: &'static str,
}

/// The first place of the search order holding the library; each place looked at is pushed to
/// `searched` (with why it was skipped, where it could not be used).
fn find_library(inputs: &Inputs, searched: &mut Vec<String>) -> Option<Found> {
    for place in search::places(inputs) {
        let found = match place {
            Place::Dir(dir) => try_dir(&inputs.os, &dir, searched),
            Place::PkgConfig => pkg_config_dirs(searched)
                .iter()
                .find_map(|dir| try_dir(&inputs.os, dir, searched)),
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn try_dir(os: &str, dir: &Path, searched: &mut Vec<String>) -> Option<Found> {
    let (_, link_arg) = search::library_files(os)
        .iter()
        .find(|(file, _)| dir.join(file).exists())
        .or_else(|| {
            searched.push(dir.display().to_string());
            None
        })?;
    let Some(utf8) = dir.to_str() else {
        searched.push(format!(
            "{} (holds the library, but its name is not UTF-8, which cargo cannot take: skipped)",
            dir.display()
        ));
        return None;
    };
    Some(Found {
        dir: utf8.to_string(),
        link_arg,
    })
}

/// The `-L` directories of the toolkit's pkg-config packages (`cuda-<major>.<minor>` of each
/// version, newest first), each followed by its `stubs/`, through the `pkg-config` crate (which honours
/// `PKG_CONFIG`, `PKG_CONFIG_PATH`, the sysroot and the cross-compilation variables, and announces
/// them to cargo). What could not be asked is a line of `searched`. The crate panics on output
/// that is not UTF-8 (a `-L` directory whose name is not): that panic is caught, silently, and
/// becomes a "skipped" line, so it never fails the build.
fn pkg_config_dirs(searched: &mut Vec<String>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut skipped = false;
    for v in VERSIONS.iter().rev() {
        let name = format!("cuda-{}.{}", v / 1000, v % 1000 / 10);
        let probe = || {
            pkg_config::Config::new()
                .cargo_metadata(false)
                .env_metadata(true)
                .print_system_libs(false)
                .probe(&name)
        };
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let result = std::panic::catch_unwind(probe);
        std::panic::set_hook(quiet);
        match result {
            Ok(Ok(lib)) => {
                for dir in lib.link_paths {
                    let stubs = dir.join("stubs");
                    dirs.extend([dir, stubs]);
                }
            }
            // Not installed (pkg-config names the package): the usual answer for all but one
            // version. A failure that does not name it is pkg-config's own, below.
            Ok(Err(
                pkg_config::Error::ProbeFailure { ref output, .. }
                | pkg_config::Error::Failure { ref output, .. },
            )) if String::from_utf8_lossy(&output.stderr).contains(&name) => {}
            // No pkg-config program, cross-compiling without PKG_CONFIG_ALLOW_CROSS, ...: the
            // same for every package.
            Ok(Err(e)) => {
                let e = e.to_string().replace('\n', " ");
                searched.push(format!("pkg-config (skipped: {})", e.trim()));
                return dirs;
            }
            Err(_) => {
                skipped = true;
                searched.push(format!(
                "pkg-config {name} (skipped: its output is not UTF-8, which the pkg-config crate \
                 cannot read)"
                ));
            }
        }
    }
    if dirs.is_empty() && !skipped {
        searched.push("pkg-config (no cuda-<major>.<minor> package)".into());
    }
    dirs
}

fn include_dir(roots: &[PathBuf]) -> Option<PathBuf> {
    var("CUDA_INCLUDE_PATH")
        .map(PathBuf::from)
        .into_iter()
        .chain(roots.iter().map(|r| r.join("include")))
        .chain([PathBuf::from("/usr/local/cuda/include")])
        .find(|d| d.join("cuda.h").is_file())
}

#[cfg(feature = "bindgen")]
fn generate(roots: &[PathBuf]) {
    // select_version has found it (or stopped the build with a cargo::error).
    let Some(include_dir) = include_dir(roots) else {
        return;
    };
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
        regenerate_hint: "cargo build --features bindgen (cuda-driver-sys's build script)".into(),
        only_module: None,
    };
    if let Err(e) = cuda_driver_sys_generator::generate(&opts) {
        let e = e.replace('\n', " ");
        println!("cargo::error=cuda-driver-sys (feature bindgen): {e}");
    }
}
