//! Build script of the workspace's root package (examples and tests). It compiles, with the `cc`
//! crate and against the same `cuda.h` the selected bindings were generated from:
//! - every C twin `examples/<name>.cpp` into an executable `$OUT_DIR/c-twins/<name>`
//!   (`env!("C_TWIN_DIR")` in tests);
//! - the C helpers of the tests, `tests/support/c/*.c`, into one static library linked into every
//!   test and example;
//! - the layout and constant probes generated from the bindings (`tests/support/layout.rs`);
//! - the prototype probe (`tests/support/prototypes.rs`): every function, typedef and C spelling of
//!   the bindings against the header's, compiled with the C++ compiler; its report goes into
//!   `$OUT_DIR/prototypes_report.rs` for `tests/prototypes.rs`, which fails on any mismatch.
//!
//! The headers are those `ci/fetch-deps.sh` fetches: `$CUDA_HEADERS_<VERSION>`, else
//! `target/ci-deps/headers/<VERSION>`. Without them the build fails and says how to get them.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

mod c_header;
mod layout;
mod prototypes;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    // The header version cuda-driver-sys selected (its features, newest wins), as it tells
    // dependents: the C side compiles against the header the bindings came from.
    let version = env::var("DEP_CUDA_VERSION").expect("DEP_CUDA_VERSION from cuda-driver-sys");
    let version = version.as_str();
    let per_thread = env::var_os("CARGO_FEATURE_PER_THREAD_DEFAULT_STREAM").is_some();
    let headers = header_dir(&manifest, version);
    println!("cargo:rustc-env=CUDA_HEADER_DIR={}", headers.display());
    println!("cargo:rustc-env=CUDA_HEADER_VERSION={version}");

    // The C helpers of the tests, and the generated probes.
    let mut c_files: Vec<PathBuf> = list(&manifest.join("tests/support/c"), "c");
    c_files.extend(layout::generate(&manifest, &out, version, &headers));
    if !c_files.is_empty() {
        let mut build = cc::Build::new();
        build.include(&headers).warnings(false);
        if per_thread {
            build.define("CUDA_API_PER_THREAD_DEFAULT_STREAM", None);
        }
        for f in &c_files {
            build.file(f);
        }
        build.compile("cuda_driver_workspace_c");
    }

    prototype_probe(&manifest, &out, version, &headers);

    // The C twins of the examples: one executable each. The posts' programs are CUDA 12 code
    // (`cuCtxCreate` with three arguments, unversioned `PFN_*` macros), which the CUDA 13 header
    // no longer accepts, so the twins (and the examples) are built for the 12.x headers only.
    let twins = out.join("c-twins");
    std::fs::create_dir_all(&twins).unwrap();
    let twin_sources = if version == "13000" {
        Vec::new()
    } else {
        list(&manifest.join("examples"), "cpp")
    };
    let compiler = cc::Build::new().cpp(true).get_compiler();
    let lib_dir = env::var("DEP_CUDA_LIB_DIR").ok();
    for src in twin_sources {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = twins.join(&name);
        let mut cmd = compiler.to_command();
        cmd.arg("-O2")
            .arg("-std=c++17")
            .arg(format!("-I{}", headers.display()));
        if per_thread {
            cmd.arg("-DCUDA_API_PER_THREAD_DEFAULT_STREAM");
        }
        cmd.arg(&src).arg("-o").arg(&exe);
        match &lib_dir {
            Some(dir) => cmd.arg(format!("-L{dir}")).arg(format!("-Wl,-rpath,{dir}")),
            None => &mut cmd,
        };
        cmd.arg(link_cuda_arg(lib_dir.as_deref()))
            .arg("-ldl")
            .arg("-lpthread");
        run(&mut cmd, &format!("C twin {}", src.display()));
    }
    println!("cargo:rustc-env=C_TWIN_DIR={}", twins.display());
    println!("cargo:rerun-if-changed=examples");
    println!("cargo:rerun-if-changed=tests/support");
    println!("cargo:rerun-if-env-changed=CUDA_HEADERS_{version}");
}

/// Generates and compiles the prototype probe, and embeds its report (counts and problems) for
/// `tests/prototypes.rs`. A mismatch fails that test, not the build; the test of deliberate
/// mutations (same file) runs the probe again, with the compiler and headers exported here.
fn prototype_probe(manifest: &Path, out: &Path, version: &str, headers: &Path) {
    let sys = manifest.join("cuda-driver-sys");
    let cxx = prototypes::Cxx {
        compiler: cc::Build::new()
            .cpp(true)
            .get_compiler()
            .path()
            .to_path_buf(),
        headers: headers.to_path_buf(),
    };
    println!("cargo:rustc-env=PROTOTYPES_CXX={}", cxx.compiler.display());
    println!("cargo:rustc-env=CUDA_DRIVER_SYS_DIR={}", sys.display());
    for (_, rel) in prototypes::Inputs::files(version) {
        println!("cargo:rerun-if-changed={}", sys.join(rel).display());
    }
    let report = match prototypes::Inputs::read(&sys, version) {
        Ok(inputs) => prototypes::run(&inputs, &cxx, &out.join("prototypes"), &[]),
        Err(e) => prototypes::Report {
            problems: vec![e],
            ..Default::default()
        },
    };
    std::fs::write(
        out.join("prototypes_report.rs"),
        format!(
            "// @generated by tests/support/build.rs: the prototype probe of the bindings of CUDA {version}.
             fn built_report() -> Report {{
    {}
}}
",
            report.to_rust()
        ),
    )
    .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
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

fn header_dir(manifest: &Path, version: &str) -> PathBuf {
    let var = format!("CUDA_HEADERS_{version}");
    let candidates: Vec<PathBuf> = env::var_os(&var)
        .map(PathBuf::from)
        .into_iter()
        .chain([manifest.join("target/ci-deps/headers").join(version)])
        .collect();
    for c in &candidates {
        if c.join("cuda.h").is_file() && c.join("cudaTypedefs.h").is_file() {
            return c.clone();
        }
    }
    panic!(
        "the examples' C twins and the ABI tests compile against the CUDA {version} headers, and none \
         were found (looked in: {}). Run `ci/fetch-deps.sh` (it downloads the pinned header wheels \
         into target/ci-deps/), or set {var} to a directory holding cuda.h and cudaTypedefs.h.",
        candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
    );
}

fn list(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot run the C compiler: {e}"));
    assert!(
        status.success(),
        "{what}: the C compiler failed ({status}): {cmd:?}"
    );
}
