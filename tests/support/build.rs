//! Build script of the tests package (`cuda-driver-tests`). It compiles, with the `cc` crate and
//! against the same `cuda.h` the selected bindings were generated from:
//! - every C twin `examples/<name>.cpp` into an executable `$OUT_DIR/c-twins/<name>`
//!   (`env!("C_TWIN_DIR")` in tests);
//! - the C helpers of the tests, `tests/support/c/*.c`, into one static library linked into every
//!   test and benchmark, the layout and constant probes among them, with their tables written from
//!   the bindings (`support/layout.rs`).
//!
//! The prototype probe (`support/prototypes.rs`) is run by `tests/prototypes.rs` itself, with the C++
//! compiler and headers found here (`PROTOTYPES_CXX`, `CUDA_HEADER_DIR`, `CUDA_INTEROP_DIR`).
//!
//! The examples themselves (the root package) need none of this: only the tests do.
//!
//! The headers of version `V` (`11070` ... `13050`) are looked for, in order, in:
//! 1. `$CUDA_HEADERS_<V>`, a directory holding `cuda.h` and `cudaTypedefs.h`;
//! 2. `target/ci-deps/headers/<V>`, where `ci/fetch-deps.sh` puts the pinned ones;
//! 3. a CUDA toolkit whose `cuda.h` defines exactly `CUDA_VERSION` `V`: `$CUDA_PATH`, `$CUDA_HOME`,
//!    `/usr/local/cuda`, `/usr/local/cuda-X.Y` (each's `include/`, then
//!    `targets/<arch>-linux/include/`).
//!
//! When none fits, the build stops with one line that says where it looked and what to run.
//!
//! A twin that includes the runtime's header (`<cuda_runtime.h>`, `<cuda_runtime_api.h>`; today
//! `runtime_interop.cpp`) also compiles against the CUDA 12 runtime headers and links
//! `libcudart.so.12` (with its folder as run-time search path), each looked for, in order, in:
//! 1. `$CUDART_INCLUDE_PATH` (headers), `$CUDART_LIBRARY_PATH` (library);
//! 2. `target/ci-deps/cudart/{include,lib}`, where `ci/fetch-deps.sh` puts those of the pinned
//!    12.0 wheels;
//! 3. a toolkit: `$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda` (`include/` or
//!    `targets/<arch>-linux/include/` with a `cuda_runtime_api.h` of `CUDART_VERSION` 12xxx;
//!    `lib64/` or `targets/<arch>-linux/lib/` with `libcudart.so.12`).
//!
//! The driver's `cuda.h` stays the selected version's: its folder comes first on the include path.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

// Shared with tests/prototypes.rs, which uses the prototype probe's part of it.
#[allow(dead_code)]
mod c_header;
mod layout;
// The generator's syn helpers over generated Rust (the projection of a merged file onto one
// version), shared rather than repeated; the build script uses part of them.
#[allow(dead_code)]
#[path = "../../cuda-driver-sys/generator/src/rust_syntax.rs"]
mod rust_syntax;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().expect("tests/ is inside the workspace");
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    // The header version cuda-driver-sys selected (its features, newest wins), as it tells
    // dependents: the C side compiles against the header the bindings came from.
    let version = env::var("DEP_CUDA_VERSION").expect("DEP_CUDA_VERSION from cuda-driver-sys");
    let version = version.as_str();
    // The same `cuda_ge_<V>` cfgs as cuda-driver-sys's (the generated linked.rs carries them).
    let known = env::var("DEP_CUDA_VERSIONS").expect("DEP_CUDA_VERSIONS from cuda-driver-sys");
    let known: Vec<u32> = known.split(',').filter_map(|v| v.parse().ok()).collect();
    let selected: u32 = version.parse().expect("DEP_CUDA_VERSION is a number");
    let names: Vec<String> = known.iter().map(|v| format!("cuda_ge_{v}")).collect();
    println!("cargo::rustc-check-cfg=cfg({})", names.join(", "));
    for (v, name) in known.iter().zip(&names) {
        if *v <= selected {
            println!("cargo:rustc-cfg={name}");
        }
    }
    let per_thread = env::var_os("CARGO_FEATURE_PER_THREAD_DEFAULT_STREAM").is_some();
    println!("cargo:rerun-if-changed=../examples");
    println!("cargo:rerun-if-changed=support");
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-env-changed=CUDA_HEADERS_{version}");
    for var in ["CUDART_INCLUDE_PATH", "CUDART_LIBRARY_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let headers = match header_dir(root, version) {
        Ok(dir) => dir,
        Err(message) => {
            println!("cargo::error={message}");
            return;
        }
    };
    println!("cargo:rerun-if-env-changed=CUDA_INTEROP_INCLUDE");
    let interop = match c_header::interop_dir(root) {
        Ok(dir) => dir,
        Err(message) => {
            println!("cargo::error={message}");
            return;
        }
    };
    println!("cargo:rustc-env=CUDA_HEADER_DIR={}", headers.display());
    println!("cargo:rustc-env=CUDA_INTEROP_DIR={}", interop.display());
    println!("cargo:rustc-env=CUDA_HEADER_VERSION={version}");
    // bindings.rs and names.rs of this version alone (layout::generate writes them), and the
    // headers they come from (tests/common/headers.rs).
    println!("cargo:rustc-env=CUDA_PROJECTED_DIR={}", out.display());
    let sets: Vec<String> = c_header::sets().map(|(p, h)| format!("{p}:{h}")).collect();
    println!("cargo:rustc-env=CUDA_PROJECTED_HEADERS={}", sets.join(","));

    // The C helpers of the tests, the probes among them, with their tables.
    let probe_compiler = |cpp: bool| c_header::Compiler {
        path: cc::Build::new()
            .cpp(cpp)
            .get_compiler()
            .path()
            .to_path_buf(),
        headers: headers.clone(),
        interop: interop.clone(),
    };
    layout::generate(root, &out, version, &probe_compiler(false), per_thread);
    let mut build = cc::Build::new();
    build
        .include(&headers)
        .include(&interop)
        .include(&out)
        .warnings(false);
    for d in c_header::FOREIGN_DEFINES {
        build.define(d, None);
    }
    if per_thread {
        build.define("CUDA_API_PER_THREAD_DEFAULT_STREAM", None);
    }
    build.files(list(&manifest.join("support/c"), "c"));
    build.compile("cuda_driver_tests_c");
    let lib_dir = env::var("DEP_CUDA_LIB_DIR").ok();
    // Under `dynamic-loading` cuda-driver-sys links nothing, but some C helpers call the driver
    // directly (the benchmark's C twin, the error-string probe): the library is linked for them.
    // rustc links with --as-needed, so a test binary that uses none of them (driver.rs, table.rs,
    // dynamic.rs) does not load it: ci/dynamic-check.sh checks that with readelf and nm.
    if env::var_os("CARGO_FEATURE_DYNAMIC_LOADING").is_some() {
        if let Some(dir) = &lib_dir {
            println!("cargo:rustc-link-search=native={dir}");
        }
        match link_cuda_arg(lib_dir.as_deref()).as_str() {
            "-lcuda" => println!("cargo:rustc-link-lib=dylib=cuda"),
            _ => println!("cargo:rustc-link-lib=dylib:+verbatim=libcuda.so.1"),
        }
    }

    let sys = root.join("cuda-driver-sys");
    println!(
        "cargo:rustc-env=PROTOTYPES_CXX={}",
        probe_compiler(true).path.display()
    );
    println!("cargo:rustc-env=CUDA_DRIVER_SYS_DIR={}", sys.display());

    // The C twins of the examples: one executable each, for every header version (the twins
    // port the posts to CUDA 13 where its header changed a function, as the examples do).
    let twins = out.join("c-twins");
    std::fs::create_dir_all(&twins).unwrap();
    let compiler = cc::Build::new().cpp(true).get_compiler();
    let mut cudart: Option<Cudart> = None;
    for src in list(&root.join("examples"), "cpp") {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        // CUDA 12.0 programs (cuLibraryLoad*, cuGetProcAddress's status, the CUDA 12 runtime),
        // as are their examples (see ../Cargo.toml).
        if [
            "context_independent_loading",
            "proc_address",
            "runtime_interop",
        ]
        .contains(&name.as_str())
            && selected < 12000
        {
            continue;
        }
        let exe = twins.join(&name);
        let mut cmd = compiler.to_command();
        cmd.arg("-O2")
            .arg("-std=c++17")
            .arg(format!("-I{}", headers.display()));
        if per_thread {
            cmd.arg("-DCUDA_API_PER_THREAD_DEFAULT_STREAM");
        }
        cmd.arg(&src).arg("-o").arg(&exe);
        if uses_runtime(&src) {
            if cudart.is_none() {
                match find_cudart(root) {
                    Ok(found) => cudart = Some(found),
                    Err(message) => {
                        println!("cargo::error={message}");
                        return;
                    }
                }
            }
            let Cudart { include, lib } = cudart.as_ref().unwrap();
            // After the driver's headers: cuda.h is the selected version's, whatever else is there.
            cmd.arg(format!("-I{}", include.display()))
                .arg(format!("-L{}", lib.display()))
                .arg(format!("-Wl,--enable-new-dtags,-rpath,{}", lib.display()))
                .arg("-l:libcudart.so.12");
        }
        match &lib_dir {
            // RUNPATH, not RPATH: LD_LIBRARY_PATH still wins, so a twin linked against a stub
            // library (a header newer than the machine's driver) runs with the real driver.
            Some(dir) => cmd
                .arg(format!("-L{dir}"))
                .arg(format!("-Wl,--enable-new-dtags,-rpath,{dir}")),
            None => &mut cmd,
        };
        cmd.arg(link_cuda_arg(lib_dir.as_deref()))
            .arg("-ldl")
            .arg("-lpthread");
        if let Err(message) = run(&mut cmd, &format!("C twin {}", src.display())) {
            println!("cargo::error={message}");
            return;
        }
    }
    println!("cargo:rustc-env=C_TWIN_DIR={}", twins.display());
}

/// Whether a C twin includes the CUDA runtime's header (and so needs the runtime).
fn uses_runtime(src: &Path) -> bool {
    std::fs::read_to_string(src).is_ok_and(|text| {
        text.lines().any(|line| {
            let line = line.trim_start();
            line.starts_with("#include <cuda_runtime.h>")
                || line.starts_with("#include <cuda_runtime_api.h>")
        })
    })
}

/// Where the CUDA 12 runtime's headers and `libcudart.so.12` are.
struct Cudart {
    include: PathBuf,
    lib: PathBuf,
}

/// The CUDA 12 runtime, searched in the order of the module documentation; or the one-line
/// message of what was searched.
fn find_cudart(root: &Path) -> Result<Cudart, String> {
    let fetched = root.join("target/ci-deps/cudart");
    let candidates = |var: &str, fetched: PathBuf, under: [&str; 2]| -> Vec<PathBuf> {
        let given = env::var_os(var).map(PathBuf::from);
        given
            .into_iter()
            .chain([fetched])
            .chain(toolkit_dirs(None, under))
            .collect()
    };
    let includes = candidates(
        "CUDART_INCLUDE_PATH",
        fetched.join("include"),
        ["include", "targets/{arch}/include"],
    );
    let libs = candidates(
        "CUDART_LIBRARY_PATH",
        fetched.join("lib"),
        ["lib64", "targets/{arch}/lib"],
    );
    let include = includes.iter().find(|dir| {
        dir.join("crt/host_defines.h").is_file()
            && define_value(&dir.join("cuda_runtime_api.h"), "CUDART_VERSION")
                .is_some_and(|v| v.len() == 5 && v.starts_with("12"))
    });
    let lib = libs
        .iter()
        .find(|dir| dir.join("libcudart.so.12").is_file());
    match (include, lib) {
        (Some(include), Some(lib)) => Ok(Cudart {
            include: include.clone(),
            lib: lib.clone(),
        }),
        _ => {
            let show = |dirs: &[PathBuf]| {
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            Err(format!(
                "the C twin of runtime_interop compiles against the CUDA 12 runtime \
                 (cuda_runtime_api.h with CUDART_VERSION 12xxx and its crt/ headers: {}; libcudart.so.12: {}); \
                 run `ci/fetch-deps.sh` (it extracts those of the pinned 12.0 wheels into target/ci-deps/cudart/) \
                 or set CUDART_INCLUDE_PATH and CUDART_LIBRARY_PATH. Looked for the headers in: {}; for the library in: {}",
                if include.is_some() { "found" } else { "not found" },
                if lib.is_some() { "found" } else { "not found" },
                show(&includes),
                show(&libs)
            ))
        }
    }
}

/// `-lcuda` where the development symlink exists, else the versioned file itself.
fn link_cuda_arg(lib_dir: Option<&str>) -> String {
    match lib_dir {
        Some(dir)
            if !Path::new(dir).join("libcuda.so").exists()
                && Path::new(dir).join("libcuda.so.1").exists() =>
        {
            "-l:libcuda.so.1".into()
        }
        _ => "-lcuda".into(),
    }
}

/// The directory holding `cuda.h` and `cudaTypedefs.h` of exactly `version`, searched in the
/// order of the module documentation; or the one-line message of what was searched.
fn header_dir(root: &Path, version: &str) -> Result<PathBuf, String> {
    let var = format!("CUDA_HEADERS_{version}");
    let major_minor = version
        .parse::<u32>()
        .map(|v| format!("{}.{}", v / 1000, v % 1000 / 10))
        .unwrap_or_default();
    let mut looked = Vec::new();
    // 1 and 2: taken as they are (the pinned headers of that version).
    let explicit = env::var_os(&var).map(PathBuf::from);
    if let Some(dir) = &explicit {
        looked.push(format!("${var}={}", dir.display()));
        if has_headers(dir) {
            return Ok(dir.clone());
        }
    } else {
        looked.push(format!("${var} (unset)"));
    }
    let fetched = root.join("target/ci-deps/headers").join(version);
    looked.push(fetched.display().to_string());
    if has_headers(&fetched) {
        return Ok(fetched);
    }
    // 3: a toolkit, only with exactly this CUDA_VERSION.
    let also = PathBuf::from(format!("/usr/local/cuda-{major_minor}"));
    for dir in toolkit_dirs(Some(also), ["include", "targets/{arch}/include"]) {
        match has_headers(&dir).then(|| define_value(&dir.join("cuda.h"), "CUDA_VERSION")) {
            Some(Some(found)) if found == version => return Ok(dir),
            Some(found) => looked.push(format!(
                "{} (CUDA_VERSION {})",
                dir.display(),
                found.as_deref().unwrap_or("unreadable")
            )),
            None => looked.push(format!("{} (no cuda.h)", dir.display())),
        }
    }
    Err(format!(
        "the tests compile C against the CUDA {version} headers (cuda.h and cudaTypedefs.h with \
         CUDA_VERSION {version}), and none were found; run `ci/fetch-deps.sh` (it downloads the pinned \
         headers into target/ci-deps/) or set {var} to a directory holding them. Looked in: {}",
        looked.join("; ")
    ))
}

fn has_headers(dir: &Path) -> bool {
    dir.join("cuda.h").is_file() && dir.join("cudaTypedefs.h").is_file()
}

/// The folders `under` (`{arch}`: the target's, as in `targets/x86_64-linux/include`) of every
/// toolkit looked in: `$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda`, then `also`.
fn toolkit_dirs(also: Option<PathBuf>, under: [&str; 2]) -> Vec<PathBuf> {
    let arch = match env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("aarch64") => "sbsa-linux",
        _ => "x86_64-linux",
    };
    let toolkits = ["CUDA_PATH", "CUDA_HOME"]
        .iter()
        .filter_map(env::var_os)
        .map(PathBuf::from);
    toolkits
        .chain([PathBuf::from("/usr/local/cuda")])
        .chain(also)
        .flat_map(|t| under.map(|u| t.join(u.replace("{arch}", arch))))
        .collect()
}

/// The value of `#define <name>` in `header`.
fn define_value(header: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(header).ok()?;
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("#define") && words.next() == Some(name))
            .then(|| words.next().map(str::to_owned))
            .flatten()
    })
}

fn list(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let line = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot run the C++ compiler ({e}): {line}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what}: the C++ compiler failed ({status}; its messages are above): {line}"
        ))
    }
}
