//! Finds `libcuda` and tells Cargo how to link it. With the `dynamic-loading` feature nothing is
//! linked (the crate opens the library at run time); the search still runs, quietly, for
//! `DEP_CUDA_LIB_DIR`. The items and their version are the `cuda-driver-sys-items` crate's, which
//! compiles while this script is built; its version metadata is passed on as `DEP_CUDA_VERSION`,
//! `DEP_CUDA_VERSIONS` and `DEP_CUDA_INCLUDE_DIR`.
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
                 libcuda.so (or libcuda.so.1), or CUDA_PATH to a toolkit root; or turn on the \
                 feature `dynamic-loading`, which links no library (it opens the driver's at run \
                 time).",
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
    // The items crate chose the version (and found the cuda.h, where it looked for one); its
    // metadata goes on to this crate's dependents.
    for key in ["include_dir", "version", "versions"] {
        if let Some(value) = items_metadata(key) {
            println!("cargo:{key}={value}");
        }
    }
    // What rustdoc needs to compile the items' source here (`cfg(doc)` in src/lib.rs): the
    // version cfgs the items' build script set (and those it declares), the generated files and
    // the sources.
    let [known, set] = ["known_cfgs", "cfgs"].map(|key| items_metadata(key).unwrap_or_default());
    println!("cargo::rustc-check-cfg=cfg({})", known.replace(',', ", "));
    for name in set.split(',').filter(|name| !name.is_empty()) {
        println!("cargo:rustc-cfg={name}");
    }
    for (key, var) in [
        ("generated", "CUDA_DRIVER_SYS_GENERATED"),
        ("src", "CUDA_DRIVER_SYS_ITEMS_SRC"),
    ] {
        println!(
            "cargo:rustc-env={var}={}",
            items_metadata(key).unwrap_or_default()
        );
    }
}

/// A value the items crate's build script gave its dependents (`DEP_CUDA_DRIVER_SYS_ITEMS_<KEY>`).
fn items_metadata(key: &str) -> Option<String> {
    env::var(format!("DEP_CUDA_DRIVER_SYS_ITEMS_{}", key.to_uppercase())).ok()
}

/// The header versions the items crate knows, oldest first.
fn versions() -> Vec<u32> {
    items_metadata("versions")
        .unwrap_or_default()
        .split(',')
        .filter_map(|v| v.parse().ok())
        .collect()
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
    for v in versions().iter().rev() {
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
