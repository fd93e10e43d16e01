#!/usr/bin/env bash
# The workspace's tests that need no GPU, built for aarch64-unknown-linux-gnu with Debian's
# rustc-web (ci/fetch-deps.sh --cross-rust) and run under qemu-aarch64 against Debian's arm64 535
# libcuda.so.1 (ci/fetch-deps.sh --arm64-driver; cuInit answers CUDA_ERROR_NO_DEVICE), per header
# version: cuda-driver-sys's tests, cuda-check's, and the tests package's driver, table, dynamic,
# load_from, layout, constants, prototypes, interop, check_error_strings and examples_parity (the
# examples against their C twins, cross-compiled by the tests' build script with
# aarch64-linux-gnu-g++ and run under qemu too, the runtime twin with the aarch64
# libcudart.so.12). The layout and constant probes are C compiled by aarch64-linux-gnu-gcc, linked
# into the aarch64 test binaries: they compare that compiler's sizes, offsets and values with the
# aarch64 Rust compiler's; the prototype probe runs aarch64-linux-gnu-g++ (a host program, started
# from the emulated test). Under `dynamic-loading` (the newest version given) the loader finds and
# loads the arm64 library itself.
# Not run here: prototypes' mutations_are_rejected (the probe's control: mutated copies of the
# bindings' text, the same on every target; 90 s a version under qemu), compile_fail and versions
# (the bindings' and manifests' text, with cargo), gl_interop (needs a GL context), the
# benchmarks: they run on x86-64 Linux.
#   ci/platforms/aarch64.sh                 headers 12090 and 13050
#   ci/platforms/aarch64.sh 12000 13000     these
# Called by ci/platforms.sh, which installs the cross compilers and qemu-user.
set -euo pipefail
cd "$(dirname "$0")/../.."
eval "$(cargo xtask fetch-deps --arm64-driver --cross-rust)"
versions=(12090 13050)
[ $# -eq 0 ] || versions=("$@")
target=aarch64-unknown-linux-gnu

# Builds for headers newer than the 535 driver (CUDA 12.2) link an aarch64 stub library; what runs
# is the arm64 535 library, first on the loader's path (its RUNPATH entries come after). The stub's
# folder is always the same (the build scripts rerun when CUDA_LIBRARY_PATH changes), outside
# cargo's target folder.
stub=$PWD/target/aarch64-stub-libcuda
CC=aarch64-linux-gnu-gcc cargo xtask stub-libcuda "$stub"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
link_dir() { if [ "$1" -ge 12030 ]; then echo "$stub"; else echo "$CUDA_DRIVER_ARM64"; fi; }

# The loader's path, the same whoever calls this (ci/fetch-deps.sh adds to it; cuda-driver-sys's
# build script reruns when it changes): the arm64 library's folder, for cargo and for the runner,
# which cargo gives its own folders.
export LD_LIBRARY_PATH=$CUDA_DRIVER_ARM64
runner="env LD_LIBRARY_PATH=$CUDA_DRIVER_ARM64 qemu-aarch64 -L /usr/aarch64-linux-gnu"
export RUSTC=$RUST_CROSS_RUSTC CARGO_TARGET_DIR=$PWD/target/cross
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=$runner CUDA_TEST_RUNNER=$runner
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
export CUDART_LIBRARY_PATH=$CUDART_LIBRARY_PATH_ARM64
export CUDA_DRIVER_EXPECT_VERSION=12020 CUDA_DRIVER_EXPECT_NO_DEVICE=1 CARGO_TERM_COLOR=never

tests_package=(--test driver --test table --test dynamic --test load_from --test layout --test constants
  --test prototypes --test interop --test check_error_strings --test examples_parity)
cross_test() { # version cargo-test-arguments...: `cargo test` for the target, logged
  local v=$1; shift
  echo "cargo test --target $target $*" | tee -a "$log"
  CUDA_LIBRARY_PATH=$(link_dir "$v") cargo test --target $target "$@" 2>&1 | tee -a "$log"
}
# examples_parity runs the examples of CUDA_EXAMPLES_DIR, built here with the tests' features (as
# it would build them itself: its cargo, started under qemu, would see another LD_LIBRARY_PATH and
# build cuda-driver-sys again on each run).
export CUDA_EXAMPLES_DIR=$CARGO_TARGET_DIR/$target/debug/examples
for v in "${versions[@]}"; do
  cross_test "$v" -p cuda-driver-sys --no-default-features --features "cuda-$v,profiler,gl,egl,vdpau,table" --tests
  cross_test "$v" -p cuda-check --features "cuda-driver-sys/cuda-$v" --tests
  CUDA_LIBRARY_PATH=$(link_dir "$v") cargo build --target $target --examples --no-default-features --features "cuda-$v,interop"
  cross_test "$v" --no-default-features --features "cuda-$v,interop" "${tests_package[@]}" -- --nocapture \
    --skip mutations_are_rejected
done
v=${versions[-1]}
cross_test "$v" -p cuda-driver-sys --no-default-features --features "cuda-$v,dynamic-loading" --tests
cross_test "$v" --no-default-features --features "cuda-$v,interop,dynamic-loading" \
  --test driver --test table --test dynamic --test load_from -- --nocapture

echo "tests passed on $target (qemu-aarch64, Debian's arm64 535 libcuda.so.1), per test binary:"
python3 ci/platforms/test_counts.py "$log"
