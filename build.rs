//! Build script of the root package (the examples). It never fails: it only looks for the CUDA
//! runtime library that the one example using the runtime, `runtime_interop`, links
//! (`libcudart.so.12`, the CUDA 12 runtime its declarations in `examples/common/cudart.rs` are
//! for). Where it is found, the folder goes on the link search path and, as a run-time search
//! path, into the examples (`-Wl,-rpath`; it only adds a folder to look in, and examples that do
//! not link the runtime do not load it), and the cfg `has_cudart` is set. Where it is not,
//! `runtime_interop` stops with a compile error saying how to get it; every other example needs
//! nothing but the driver and builds as before.
//!
//! Looked for, in this order: `$CUDART_LIBRARY_PATH`, `target/ci-deps/cudart/lib` (what
//! `ci/fetch-deps.sh` extracts from the pinned wheel `nvidia-cuda-runtime-cu12==12.0.146`), then a
//! toolkit: `$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda`, each under `lib64` and
//! `targets/x86_64-linux/lib`.

use std::env;
use std::path::PathBuf;

const LIBRARY: &str = "libcudart.so.12";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_cudart)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in ["CUDART_LIBRARY_PATH", "CUDA_PATH", "CUDA_HOME"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());

    let explicit = env::var_os("CUDART_LIBRARY_PATH").map(PathBuf::from);
    let mut candidates: Vec<PathBuf> = explicit.iter().cloned().collect();
    candidates.push(manifest.join("target/ci-deps/cudart/lib"));
    let roots = ["CUDA_PATH", "CUDA_HOME"]
        .into_iter()
        .filter_map(|var| env::var_os(var).map(PathBuf::from))
        .chain([PathBuf::from("/usr/local/cuda")]);
    for root in roots {
        candidates.push(root.join("lib64"));
        candidates.push(root.join("targets/x86_64-linux/lib"));
    }

    if let Some(dir) = &explicit {
        if !dir.join(LIBRARY).is_file() {
            println!(
                "cargo::warning=CUDART_LIBRARY_PATH={} holds no {LIBRARY}; looking further",
                dir.display()
            );
        }
    }
    match candidates.iter().find(|dir| dir.join(LIBRARY).is_file()) {
        Some(dir) => {
            println!("cargo::rerun-if-changed={}", dir.join(LIBRARY).display());
            println!("cargo::rustc-link-search=native={}", dir.display());
            println!(
                "cargo::rustc-link-arg-examples=-Wl,-rpath,{}",
                dir.display()
            );
            println!("cargo::rustc-cfg=has_cudart");
        }
        None => {
            // Looked for again on the next build: a path that does not exist always reruns.
            for dir in &candidates {
                println!("cargo::rerun-if-changed={}", dir.join(LIBRARY).display());
            }
        }
    }
}
