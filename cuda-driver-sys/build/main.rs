//! Finds `libcuda` and tells Cargo how to link it; with the `bindgen` feature, also generates
//! the bindings from the local CUDA headers. With the `dynamic-loading` feature nothing is linked
//! (the crate opens the library at run time); the search still runs, quietly, for
//! `DEP_CUDA_LIB_DIR`.
//!
//! Search order (the first directory holding the library wins):
//! 1. `CUDA_LIBRARY_PATH`, a directory;
//! 2. a toolkit root from `CUDA_PATH`, `CUDA_ROOT`, `CUDA_TOOLKIT_ROOT_DIR`, `CUDA_HOME` (its
//!    `lib64`, `lib`, `targets/<arch>-linux/lib`, `lib/x64` on Windows);
//! 3. `pkg-config`, through the `pkg-config` crate (the toolkit's `cuda-<major>.<minor>.pc`,
//!    "CUDA Driver Library"; the crate honours `PKG_CONFIG`, `PKG_CONFIG_PATH`,
//!    `PKG_CONFIG_LIBDIR`, `PKG_CONFIG_SYSROOT_DIR`, their per-target forms and
//!    `PKG_CONFIG_ALLOW_CROSS`, and tells Cargo to rerun when they change);
//! 4. the usual places: the directories of `LD_LIBRARY_PATH`, the system library directories,
//!    `/usr/local/nvidia/lib64`, `/usr/lib/wsl/lib`, then the toolkit's stub libraries
//!    (`<toolkit>/lib64/stubs`, `<toolkit>/targets/<arch>-linux/lib/stubs`).
//!
//! A directory with `libcuda.so` links `-lcuda`; one with only `libcuda.so.1` (a driver without
//! the development symlink) links that file verbatim. Where nothing is found the script warns and
//! still asks for `-lcuda`, so `cargo check`, `cargo doc` and docs.rs work.

use std::env;
use std::path::{Path, PathBuf};

const ROOT_VARS: [&str; 4] = [
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
    "CUDA_HOME",
];

fn main() {
    println!("cargo:rerun-if-changed=build");
    // The pkg-config crate announces the variables it reads itself.
    let watched = ["CUDA_LIBRARY_PATH", "CUDA_INCLUDE_PATH", "LD_LIBRARY_PATH"];
    for var in watched.iter().chain(&ROOT_VARS) {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let dynamic = env::var_os("CARGO_FEATURE_DYNAMIC_LOADING").is_some();
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let roots: Vec<PathBuf> = ROOT_VARS
        .iter()
        .filter_map(env::var_os)
        .map(PathBuf::from)
        .collect();

    let mut searched = Vec::new();
    let found = find_library(&target_os, &arch, &roots, &mut searched);
    match &found {
        // Dynamic loading: nothing to link; the directory is still metadata for dependents.
        Some(lib) if dynamic => println!("cargo:lib_dir={}", lib.dir.display()),
        None if dynamic => {}
        Some(lib) => {
            println!("cargo:rustc-link-search=native={}", lib.dir.display());
            println!("cargo:rustc-link-lib=dylib{}", lib.link_arg);
            println!("cargo:lib_dir={}", lib.dir.display());
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
    if let Some(include) = include_dir(&roots) {
        println!("cargo:include_dir={}", include.display());
    }
    let Some(version) = select_version(&roots) else {
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
    generate(&roots);
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

/// The header version to build for: with `bindgen` or `cuda-version-from-header`, the
/// `CUDA_VERSION` of the `cuda.h` found; else the newest `cuda-<V>` feature (12000 when none is
/// on). `None` after a
/// `cargo::error` saying what to do.
fn select_version(roots: &[PathBuf]) -> Option<u32> {
    let from_header = cfg!(feature = "bindgen") || cfg!(feature = "cuda-version-from-header");
    if !from_header {
        let selected = VERSIONS
            .iter()
            .rev()
            .find(|v| env::var_os(format!("CARGO_FEATURE_CUDA_{v}")).is_some());
        // None on: CUDA 12.0, the default minimum driver.
        return Some(selected.copied().unwrap_or(12000));
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
    let text = std::fs::read_to_string(&cuda_h).unwrap_or_default();
    let header = text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("#define")?.trim_start();
        rest.strip_prefix("CUDA_VERSION")?
            .trim()
            .parse::<u32>()
            .ok()
    });
    let Some(header) = header else {
        println!(
            "cargo::error=cuda-driver-sys: {} defines no CUDA_VERSION: point CUDA_INCLUDE_PATH \
             at a CUDA toolkit's include directory",
            cuda_h.display()
        );
        return None;
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
            println!(
                "cargo::error=cuda-driver-sys: {} is CUDA_VERSION {header}, older than the oldest \
                 supported (11070); use a CUDA 11.7 or newer toolkit",
                cuda_h.display()
            );
            None
        }
    }
}

struct Found {
    dir: PathBuf,
    /// What follows `rustc-link-lib=dylib`: `=cuda`, or `:+verbatim=libcuda.so.1`.
    link_arg: &'static str,
}

fn find_library(
    os: &str,
    arch: &str,
    roots: &[PathBuf],
    searched: &mut Vec<String>,
) -> Option<Found> {
    let arch_dir = if arch == "aarch64" {
        "sbsa-linux"
    } else {
        "x86_64-linux"
    };
    let try_dir = |dir: &Path, searched: &mut Vec<String>| -> Option<Found> {
        searched.push(dir.display().to_string());
        let link_arg = if os == "windows" {
            dir.join("cuda.lib").is_file().then_some("=cuda")
        } else if dir.join("libcuda.so").exists() {
            Some("=cuda")
        } else if dir.join("libcuda.so.1").exists() {
            Some(":+verbatim=libcuda.so.1")
        } else {
            None
        }?;
        Some(Found {
            dir: dir.to_path_buf(),
            link_arg,
        })
    };
    // 1. An explicit directory.
    if let Some(dir) = env::var_os("CUDA_LIBRARY_PATH") {
        if let Some(f) = try_dir(Path::new(&dir), searched) {
            return Some(f);
        }
    }
    // 2. Toolkit roots.
    for root in roots {
        let subdirs: &[&str] = if os == "windows" {
            &["lib/x64"]
        } else {
            &["lib64", "lib"]
        };
        for sub in subdirs
            .iter()
            .map(|s| root.join(s))
            .chain([root.join("targets").join(arch_dir).join("lib")])
        {
            if let Some(f) = try_dir(&sub, searched) {
                return Some(f);
            }
        }
    }
    // 3. pkg-config: the toolkit ships one `cuda-<major>.<minor>.pc` per version.
    // Every minor version of each major version of VERSIONS, newest first.
    let mut majors: Vec<u32> = VERSIONS.iter().rev().map(|v| v / 1000).collect();
    majors.dedup();
    let names = majors.iter().flat_map(|major| {
        (0..=9)
            .rev()
            .map(move |minor| format!("cuda-{major}.{minor}"))
    });
    for name in names {
        for dir in pkg_config_lib_dirs(&name) {
            for dir in [dir.clone(), dir.join("stubs")] {
                if let Some(f) = try_dir(&dir, searched) {
                    return Some(f);
                }
            }
        }
    }
    searched.push(format!(
        "pkg-config cuda-{}.9 .. cuda-{}.0",
        majors[0],
        majors[majors.len() - 1]
    ));
    // 4. The usual places: where the dynamic loader will look (LD_LIBRARY_PATH), the system
    // directories; stubs last.
    let mut usual: Vec<PathBuf> = if os == "windows" {
        vec![]
    } else {
        let multiarch = format!("/usr/lib/{arch}-linux-gnu");
        let loader_path = env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
        env::split_paths(&loader_path)
            .filter(|d| d.is_absolute())
            .chain(
                [
                    multiarch.as_str(),
                    "/usr/lib64",
                    "/usr/lib",
                    "/usr/local/nvidia/lib64",
                    "/usr/lib/wsl/lib",
                ]
                .iter()
                .map(PathBuf::from),
            )
            .collect()
    };
    for root in roots
        .iter()
        .cloned()
        .chain([PathBuf::from("/usr/local/cuda")])
    {
        usual.push(root.join("lib64").join("stubs"));
        usual.push(
            root.join("targets")
                .join(arch_dir)
                .join("lib")
                .join("stubs"),
        );
    }
    usual.iter().find_map(|d| try_dir(d, searched))
}

/// The `-L` directories `pkg-config` gives for `name`; none where it has no such package, or
/// is not to be used (cross-compiling without `PKG_CONFIG_ALLOW_CROSS` or a configured
/// `PKG_CONFIG`/`PKG_CONFIG_SYSROOT_DIR`, or `<NAME>_NO_PKG_CONFIG` set), as the crate decides.
fn pkg_config_lib_dirs(name: &str) -> Vec<PathBuf> {
    pkg_config::Config::new()
        .cargo_metadata(false)
        .probe_cflags(false)
        .probe(name)
        .map(|lib| lib.link_paths)
        .unwrap_or_default()
}

fn include_dir(roots: &[PathBuf]) -> Option<PathBuf> {
    env::var_os("CUDA_INCLUDE_PATH")
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
    // The interop modules need the OpenGL, EGL and VDPAU headers their CUDA headers include:
    // CUDA_INTEROP_INCLUDE, else the system's (libgl-dev, libegl-dev, libvdpau-dev).
    let modules = ["PROFILER", "GL", "EGL", "VDPAU"]
        .iter()
        .any(|m| env::var_os(format!("CARGO_FEATURE_{m}")).is_some());
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
    };
    if let Err(e) = cuda_driver_sys_generator::generate(&opts) {
        let e = e.replace('\n', " ");
        println!("cargo::error=cuda-driver-sys (feature bindgen): {e}");
    }
}
