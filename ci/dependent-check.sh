#!/usr/bin/env bash
# A crate that depends on cuda-driver-sys builds with no CUDA and no libclang: a throwaway crate
# under target/ depends on it by path, with every CUDA and libclang variable cleared, and its build
# script checks the DEP_CUDA_* metadata cuda-driver-sys exports to dependents.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/target/dependent-check"
rm -rf "$dir" && mkdir -p "$dir/src"
cat >"$dir/Cargo.toml" <<TOML
[package]
name = "dependent-check"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cuda-driver-sys = { path = "$root/cuda-driver-sys", features = ["cuda-12090"] }
[workspace]
TOML
cat >"$dir/build.rs" <<'RS'
fn main() {
    let version = std::env::var("DEP_CUDA_VERSION").expect("DEP_CUDA_VERSION from cuda-driver-sys");
    assert_eq!(version, "12090", "the newest enabled version feature");
    println!("cargo:warning=DEP_CUDA_VERSION={version}, DEP_CUDA_LIB_DIR={:?}", std::env::var("DEP_CUDA_LIB_DIR").ok());
}
RS
cat >"$dir/src/lib.rs" <<'RS'
//! Uses the bindings without calling the driver.
pub fn success() -> cuda_driver_sys::CUresult {
    cuda_driver_sys::CUDA_SUCCESS
}
RS
env -u CUDA_LIBRARY_PATH -u CUDA_PATH -u CUDA_ROOT -u CUDA_TOOLKIT_ROOT_DIR -u CUDA_HOME \
    -u CUDA_INCLUDE_PATH -u LIBCLANG_PATH -u LD_LIBRARY_PATH \
    cargo build --manifest-path "$dir/Cargo.toml" --target-dir "$dir/target" 2>&1
echo "dependent-check: a dependent crate built with no CUDA and no libclang in the environment"
