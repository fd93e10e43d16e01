#!/usr/bin/env bash
# The test command of the workspace (README: "the tests"); `.ci/run` calls it. It runs on a machine
# with no GPU and no CUDA: what it needs it fetches into target/ci-deps/ (ci/fetch-deps.sh): the
# pinned CUDA header wheels, Debian's real NVIDIA driver library (535, CUDA 12.2: cuInit answers
# CUDA_ERROR_NO_DEVICE) and libclang for the regeneration check.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says how long the one before it took, for CI's time budget.
step() {
  [ -z "${step_start:-}" ] || echo "--- $((SECONDS - step_start)) s"
  step_start=$SECONDS
  printf '\n=== %s\n' "$*"
}
# Everything is also logged, to total the tests at the end.
mkdir -p target
log=target/ci-test.log
exec > >(tee "$log") 2>&1

step "fetch headers, driver library and libclang into target/ci-deps"
eval "$(cargo xtask fetch-deps)"
# What the tests require of Debian's driver library without a GPU (tests/driver.rs).
export CUDA_DRIVER_EXPECT_VERSION=12020 CUDA_DRIVER_EXPECT_NO_DEVICE=1
export CARGO_TERM_COLOR=never RUST_BACKTRACE=1
# Every build here starts from an empty target folder and runs once: incremental compilation's
# caches would only cost time and several gigabytes of disk (7 GB of the 23 GB a full run left).
export CARGO_INCREMENTAL=0

# Builds for headers newer than 12.2 link against a stub library: Debian's 535 driver (CUDA 12.2)
# lacks functions they bind (cuCtxCreate_v4). At run time the real 535 library is loaded.
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
ci/stub-libcuda.sh "$stub"
link_dir() { if [ "$1" -ge 12030 ]; then echo "$stub"; else echo "$CUDA_LIBRARY_PATH"; fi; }

step "cargo fmt --check"
cargo fmt --all -- --check

# The full suite for the anchor versions; clippy, the layout and constant probes (C compiler
# against the bindings) and the C spellings against the driver for every other version.
anchors=(11080 12000 12090 13000 13050)
for v in $CUDA_VERSIONS; do
  features=(--no-default-features --features "cuda-$v")
  if [[ " ${anchors[*]} " == *" $v "* ]]; then
    # With the interop modules (profiler, gl, egl, vdpau): their probes, interop.rs, the
    # profiler example's parity.
    features=(--no-default-features --features "cuda-$v,interop")
    step "clippy, cuda-$v"
    CUDA_LIBRARY_PATH=$(link_dir $v) cargo clippy --workspace --all-targets "${features[@]}" -- -D warnings
    step "tests, cuda-$v"
    # cuda-driver-sys names the modules' features itself.
    CUDA_LIBRARY_PATH=$(link_dir $v) cargo test -p cuda-driver-sys --no-default-features \
      --features "cuda-$v,profiler,gl,egl,vdpau" --tests
    # --nocapture: the ABI tests print what they compared (counts per version) into the CI log.
    CUDA_LIBRARY_PATH=$(link_dir $v) cargo test "${features[@]}" --all-targets -- --nocapture
  else
    # The interop modules too: their layout, constants and prototypes with cuda.h's, interop.rs.
    features=(--no-default-features --features "cuda-$v,interop")
    step "clippy (cuda-driver-sys), layout, constants, prototypes, C spellings and table, cuda-$v with the interop modules"
    CUDA_LIBRARY_PATH=$(link_dir $v) cargo clippy -p cuda-driver-sys --no-default-features \
      --features "cuda-$v,profiler,gl,egl,vdpau" -- -D warnings
    CUDA_LIBRARY_PATH=$(link_dir $v) cargo test -p cuda-driver-tests "${features[@]}" \
      --test layout --test constants --test prototypes --test driver --test table --test interop -- --nocapture
  fi
done
step "clippy and tests, cuda-12000 with per-thread-default-stream"
cargo clippy --workspace --all-targets --features per-thread-default-stream -- -D warnings
cargo test --features per-thread-default-stream --all-targets -- --nocapture
cargo test -p cuda-driver-sys --features per-thread-default-stream --tests

step "table-only: a cuda-13000 binary imports no driver symbol but the table's, and runs on the 535 driver"
# With the interop modules: their functions are table slots too (interop.rs).
table_only=(--no-default-features --features cuda-13000,table-only,interop --test table --test interop)
# (The C twins, which the tests' build script also builds, link the 13.0 header's symbols: the stub.)
CUDA_LIBRARY_PATH=$stub cargo clippy "${table_only[@]}" -- -D warnings
CUDA_LIBRARY_PATH=$stub cargo test "${table_only[@]}"
bin=$(CUDA_LIBRARY_PATH=$stub cargo test "${table_only[@]}" --no-run 2>&1 | sed -n 's/.*Executable \(tests\/\)\{0,1\}table.rs (\(.*\))$/\2/p')
[ -x "$bin" ] || { echo "table-only test binary not found"; exit 1; }
imports=$(nm -D --undefined-only "$bin" | awk '{print $NF}' | grep '^cu' | sort | tr '\n' ' ')
echo "driver symbols imported by $bin: $imports"
needed=$(readelf -d "$bin")
[[ "$needed" == *"[libcuda.so.1]"* ]] || { echo "the binary does not load libcuda.so.1"; exit 1; }
for s in $imports; do
  case "$s" in
    cuGetProcAddress_v2|cuDriverGetVersion|cuGetErrorName|cuGetErrorString) ;;
    *) echo "table-only binary imports $s"; exit 1 ;;
  esac
done
case " $imports" in *" cuGetProcAddress_v2 "*) ;; *) echo "no cuGetProcAddress_v2 import: the check saw nothing"; exit 1 ;; esac

step "an 11.x driver: a cuda-11080 table-only binary imports cuGetProcAddress (v1), starts on Debian bullseye's 470 driver (CUDA 11.4) and resolves what it has"
v1=(--no-default-features --features cuda-11080,table-only --test table)
cargo clippy "${v1[@]}" -- -D warnings
bin=$(cargo test "${v1[@]}" --no-run 2>&1 | sed -n 's/.*Executable \(tests\/\)\{0,1\}table.rs (\(.*\))$/\2/p')
[ -x "$bin" ] || { echo "cuda-11080 table-only test binary not found"; exit 1; }
imports=$(nm -D --undefined-only "$bin" | awk '{print $NF}' | grep '^cu' | sort | tr '\n' ' ')
echo "driver symbols imported by $bin: $imports"
case " $imports" in *" cuGetProcAddress "*) ;; *) echo "no cuGetProcAddress (v1) import"; exit 1 ;; esac
case " $imports" in *" cuGetProcAddress_v2 "*) echo "an 11.x build imports cuGetProcAddress_v2"; exit 1 ;; esac
LD_LIBRARY_PATH="$CUDA_DRIVER_470" "$bin" --exact table_resolves_what_the_driver_has_and_names_the_rest --nocapture

step "dynamic-loading: binaries that link no driver library, with the 535 library and with none (ci/dynamic-check.sh)"
ci/dynamic-check.sh

step "bad input: every result code against C on the 535 and 470 libraries, the first-call race, faulty libraries, bad build environments (ci/bad-input.sh)"
ci/bad-input.sh

step "first run: a fresh clone runs every example with only a driver, under every version feature"
CUDA_STUB_LIBRARY_PATH=$stub ci/first-run.sh

step "a crate depending on cuda-driver-sys builds with no CUDA and no libclang"
ci/dependent-check.sh

step "rustacuda 0.1.3 on this crate: builds with cuda-12000, -12090, -13000; its tests on the 535 library as on cuda-driver-sys 0.3.0 (ci/rustacuda-check.sh)"
ci/rustacuda-check.sh

step "a program written for cuda-driver-sys 0.3.0, patched: builds with cuda-12000, -12090, -13000 (compat-0-3, -D deprecated); prints on the 535 library what it prints on 0.3.0 (ci/dependent-0-3-check.sh)"
ci/dependent-0-3-check.sh

step "the publishable crates package and build from their .crate files (ci/package-check.sh)"
ci/package-check.sh

step "the publishable crates need no newer Rust than their rust-version (ci/msrv-check.sh)"
ci/msrv-check.sh

step "doc tests and cargo doc (warnings denied)"
cargo test --workspace --doc
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "docs as docs.rs builds them (no CUDA): 100% of public items documented, the facts of 9 generated items' pages (each line once, enumerator values), no negated-feature badge; cuda-check's docs without std (ci/doc-check.sh, about 40 s)"
ci/doc-check.sh

step "the committed bindings are what the pinned headers give"
ci/regenerate.sh --check

step "the change list from cuda-driver-sys 0.3 is what 0.3.0's bindings and the committed ones give (ci/migration-changes.sh --check)"
ci/migration-changes.sh --check

step "the committed PTX is what NVRTC 12.0 gives, and ptxas 12.0 accepts it"
cargo xtask gen-ptx --check

step "aarch64 Linux and x86-64 Windows: bindings, layout and constant probes per target; Debian's arm64 driver under qemu; the tests built for aarch64, under qemu (ci/platforms.sh)"
CUDA_STUB_LIBRARY_PATH=$stub ci/platforms.sh

echo "--- $((SECONDS - step_start)) s"
echo
passed=$(awk '/^test result: ok\./ { n += $4 } END { print n + 0 }' "$log")
echo "ci/test.sh: all checks passed"
echo "ci/test.sh: ${passed} passed, 0 failed, in $((SECONDS / 60)) min $((SECONDS % 60)) s"
