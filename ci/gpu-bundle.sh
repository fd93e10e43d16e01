#!/usr/bin/env bash
# Builds, on this machine (release, x86-64), everything the GPU pass runs, into one folder that a
# GPU machine with the NVIDIA driver and no Rust toolchain runs with one command:
#
#   ci/gpu-bundle.sh [DIR]          # default DIR: target/gpu-bundle
#   DIR/run.sh [OUT]                # on the GPU machine; logs go to OUT (default: DIR/out)
#   ci/gpu-bundle.sh --bench-only [DIR]   # only the benchmark's part (below): bin/, kernels/,
#                                         # run.sh; run it with GPU_RUN_PARTS=bench DIR/run.sh OUT
#
# The folder holds: the eleven examples and their C twins for each header version (examples-<tag>/,
# c-twins-<tag>/ with the parity test binary tests/examples_parity-<tag>), the PTX they load, the
# CUDA runtime library runtime_interop and its twin use (lib/libcudart.so.12, the pinned 12.0
# wheel's that the twins were linked against: run.sh puts lib/ on the loader path, so the GPU
# machine's own toolkit is not needed), the driver and table tests for every header version
# (every function linked directly, since the GPU machine's driver is newer than every header),
# the interop headers' tests (interop-<tag>: the profiler, OpenGL, EGL and VDPAU entry points;
# gl_interop-12000 and -12000-dyn: OpenGL interop through headless EGL, with the EGL/OpenGL loaders it needs as
# Debian packages in gl-debs/), the same for the 12.0 header built with `dynamic-loading` (tag
# 12000-dyn: examples, parity, driver, table and loader tests), and the benchmark twice: linked
# (bin/bench-driver) and dynamically loaded with cudarc 0.19 beside it (bin/bench-driver-dynamic,
# with bin/first-init-{linked,dynamic} for the start-time rows).
# run.sh prints one line per example (parity, results checked), runs every example and twin under
# compute-sanitizer, runs both benchmark programs, and exits non-zero on any failure.
. "$(dirname "$0")/common.sh" gpu-bundle gpu-bundle
bench_only=false
if [ "${1:-}" = --bench-only ]; then bench_only=true; shift; fi
out=${1:-target/gpu-bundle}
rm -rf "$out" && mkdir -p "$out"/{bin,tests,lib}
cp -r examples/kernels "$out/kernels"
# Everything but the benchmark (the part --bench-only skips).
if ! $bench_only; then
# The runtime the twins link (the tests' build script takes $CUDART_LIBRARY_PATH first, which
# fetch-deps set) and the examples load; the benchmark uses none.
cp "$CUDART_LIBRARY_PATH/libcudart.so.12" "$out/lib/"
# Test binaries of one feature set, into tests/<name>-<tag>.
build_tests() { # tag cargo-args...
  local tag=$1; shift
  cargo test --release --no-run --message-format=json "$@" 2>/dev/null | artifacts |
    while read -r kind name path; do
      [ "$kind" = test ] || continue
      cp "$path" "$out/tests/$name-$tag"
      echo "  test $name-$tag"
    done
}

# The examples (root package) and their C twins (built by the tests' build script) of one feature
# set, into examples-<tag>/ and c-twins-<tag>/, with the parity test binary of that feature set.
build_examples() { # tag cargo-args...
  local tag=$1; shift
  mkdir -p "$out/examples-$tag" "$out/c-twins-$tag"
  cargo build --release --examples --message-format=json "$@" 2>/dev/null | artifacts |
    while read -r kind name path; do
      [ "$kind" = example ] && cp "$path" "$out/examples-$tag/$name"
    done
  cargo test --release --no-run --test examples_parity --message-format=json "$@" 2>/dev/null |
    artifacts | while read -r kind name path; do
      case "$kind" in
        out-dir) cp "$path"/c-twins/* "$out/c-twins-$tag/" ;;
        test) cp "$path" "$out/tests/$name-$tag" ;;
      esac
    done
  echo "  examples-$tag: $(ls "$out/examples-$tag" | wc -l), c-twins-$tag: $(ls "$out/c-twins-$tag" | wc -l)"
}

# Linking every function of a header newer than Debian's 535 library needs a library with those
# symbols: a stub libcuda.so.1 made from the committed bindings, as the toolkit's stubs are. The
# GPU machine loads its real driver instead (nothing points the loader at the stub).
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
cargo xtask stub-libcuda "$stub"

echo "building the examples and C twins of every version feature (and 12.0 per-thread)"
build_examples 12000 --features link-every-function
build_examples 12000-pt --features per-thread-default-stream,link-every-function
build_examples 12000-dyn --no-default-features --features cuda-12000,interop,dynamic-loading
CUDA_LIBRARY_PATH="$stub" build_examples 12090 --no-default-features --features cuda-12090,interop,link-every-function
CUDA_LIBRARY_PATH="$stub" build_examples 13000 --no-default-features --features cuda-13000,interop,link-every-function
echo "building the driver and table tests of every header"
build_tests 12000 --test driver --test table --test interop --test gl_interop --features link-every-function
CUDA_LIBRARY_PATH="$stub" build_tests 12090 --test driver --test table --test interop --no-default-features --features cuda-12090,interop,link-every-function
CUDA_LIBRARY_PATH="$stub" build_tests 13000 --test driver --test table --test interop --no-default-features --features cuda-13000,interop,link-every-function
# Issue 13's versions on the GPU: an 11.x header (cuGetProcAddress v1), a 12.x one between the
# anchors, and 13.5 (functions newer than the driver reported as not found, with counts).
CUDA_LIBRARY_PATH="$stub" build_tests 11080 --test driver --test table --no-default-features --features cuda-11080,link-every-function
CUDA_LIBRARY_PATH="$stub" build_tests 12040 --test driver --test table --no-default-features --features cuda-12040,link-every-function
CUDA_LIBRARY_PATH="$stub" build_tests 13050 --test driver --test table --no-default-features --features cuda-13050
CUDA_LIBRARY_PATH="$stub" build_tests 13050-table-only --test table --no-default-features --features cuda-13050,table-only
CUDA_LIBRARY_PATH="$stub" build_tests 13000-table-only --test table --no-default-features --features cuda-13000,table-only
build_tests 12000-pt --test driver --test table --test interop --features per-thread-default-stream,link-every-function
# The GPU machine has no EGL/OpenGL loaders of its own (glvnd; the NVIDIA driver brings its EGL
# vendor library): run.sh unpacks these when ldconfig does not know libEGL.so.1.
echo "downloading the EGL/OpenGL loaders for gl_interop (bookworm amd64)"
mkdir -p "$out/gl-debs"
(cd "$out/gl-debs" && apt-get -oAPT::Architecture=amd64 download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >&2)
build_tests 12000-dyn --test driver --test table --test dynamic --test load_from --test interop --test gl_interop --no-default-features --features cuda-12000,interop,dynamic-loading
# dynamic-loading with an 11.x header: the loader bootstraps cuGetProcAddress (v1).
build_tests 11080-dyn --test driver --test table --test dynamic --no-default-features --features cuda-11080,dynamic-loading
fi

echo "building the benchmark: linked, and dynamically loaded with cudarc beside it"
# bench NAME DEST: the benchmark program NAME of the cargo-args build, into bin/DEST. Every loop of
# both twins starts on a 64-byte boundary (LLVM's -align-loops=64, gcc's -falign-loops=64; in a
# target folder of their own, so that the other builds keep theirs): where the linker put a loop
# moved identical loops by up to 8% (docs/BENCHMARKS.md), which the verdicts must not measure.
bench() { # name dest cargo-args...
  local name=$1 dest=$2; shift 2
  local path
  path=$(CARGO_TARGET_DIR=target/bench-aligned RUSTFLAGS="-C llvm-args=-align-loops=64" CFLAGS="-falign-loops=64" \
    cargo bench --no-run --bench "$name" --message-format=json "$@" 2>/dev/null | artifacts |
    awk -v n="$name" '$1 == "bench" && $2 == n { print $3 }')
  [ -x "$path" ] || fail "the $name benchmark ($*) was not built"
  cp "$path" "$out/bin/$dest"
  echo "  bin/$dest"
}
bench driver bench-driver
bench first_init first-init-linked
bench driver bench-driver-dynamic --no-default-features --features cuda-12000,dynamic-loading,bench-cudarc
bench first_init first-init-dynamic --no-default-features --features cuda-12000,dynamic-loading,bench-cudarc
# --- rustacuda 0.1.3 on this crate ----------------------------------------------------------
# Its unit and integration tests, doctests and example, built with cuda-12000 and cuda-13000, in
# rustacuda/ours-<tag>/ with their runner (rustacuda/run.sh: ci/rustacuda-run.sh) and the one
# test allowed to fail (rustacuda/expected-differences); run.sh's `rustacuda` part runs them.
if ! $bench_only; then
  echo "building rustacuda 0.1.3's tests, doctests and example on this crate (ci/rustacuda-check.sh --bundle)"
  ci/rustacuda-check.sh --bundle "$out/rustacuda"
fi
# --- end of rustacuda ---------------------------------------------------------------------------
cp ci/gpu-run.sh "$out/run.sh"
du -sh "$out"
