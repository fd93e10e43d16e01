#!/usr/bin/env bash
# Regenerates every committed file of cuda-driver-sys/src/generated/ from the pinned headers:
# first one set of files per CUDA version (the generator, into a scratch folder), then the merge
# stage, which writes each item once under the cfg of the versions it exists in.
#   ci/regenerate.sh           rewrite the committed files
#   ci/regenerate.sh --check   regenerate into a temporary folder and fail on any difference
# The versions are those of cuda-driver-sys/versions.txt (through ci/fetch-deps.sh's
# CUDA_VERSIONS): adding a line there and running this script adds a version.
# Also the modules of the other driver-API headers (profiler, OpenGL, EGL, VDPAU; --interop names
# where the OpenGL, EGL and VDPAU headers are). The headers come from the pinned PyPI wheels and
# Debian packages, and libclang from Debian (ci/fetch-deps.sh), so the output is the same on every
# machine.
# The Windows pass: cudaGL.h declares cuWGLGetDevice (and its HGPUNV) only under _WIN32, so the
# OpenGL module is generated for x86_64-pc-windows-gnu too (--only gl; every other file is the same
# for Windows, which ci/platforms.sh checks), and the merge puts what only one target has under
# `cfg(windows)` or `cfg(not(windows))`. It needs no Windows headers: clang -ffreestanding with
# the few declarations GL/gl.h takes from windows.h (ci/platforms/msvc-shim/), which ci/platforms.sh
# shows gives the same files as the mingw-w64 headers.
#   ci/regenerate.sh --windows-pass DIR V...   only the Windows pass of these versions, into DIR/wV
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
eval "$(cargo xtask fetch-deps)"
cargo build --quiet --release -p cuda-driver-sys-generator
gen="$root/target/release/cuda-driver-sys-generator"
committed="$root/cuda-driver-sys/src/generated"
windows_args=(--target=x86_64-pc-windows-gnu -ffreestanding -isystem "$root/ci/platforms/msvc-shim" -Wno-ignored-attributes)
generate() { # version, output directory, [--windows]
  local var="CUDA_HEADERS_$1" clang_args=$BINDGEN_EXTRA_CLANG_ARGS only=()
  if [ "${3:-}" = --windows ]; then
    clang_args="$clang_args ${windows_args[*]}" only=(--only gl)
  fi
  BINDGEN_EXTRA_CLANG_ARGS=$clang_args "$gen" --include "${!var}" --interop "$CUDA_INTEROP_INCLUDE" \
    --out "$2" --cc "${CC:-cc}" "${only[@]}" >/dev/null
}
if [ "${1:-}" = "--windows-pass" ]; then
  dir=$2
  shift 2
  for v in "$@"; do generate "$v" "$dir/w$v" --windows; done
  exit 0
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ "${1:-}" = "--check" ]; then
  out="$scratch/merged"
else
  out="$committed"
fi
# One generator per version and target, as many at once as there are CPUs (bindgen is
# single-threaded); a failing one stops the script at its `wait`.
jobs=$(nproc)
dirs=() windows_dirs=() pids=()
for pass in "" --windows; do
  for v in $CUDA_VERSIONS; do
    if [ ${#pids[@]} -ge "$jobs" ]; then
      wait "${pids[0]}"
      pids=("${pids[@]:1}")
    fi
    if [ -z "$pass" ]; then
      generate "$v" "$scratch/v$v" &
      dirs+=("$scratch/v$v")
    else
      generate "$v" "$scratch/w$v" --windows &
      windows_dirs+=("$scratch/w$v")
    fi
    pids+=($!)
  done
done
for pid in "${pids[@]}"; do wait "$pid"; done
rm -rf "$out.new" && "$gen" merge --out "$out.new" "${dirs[@]}" --windows "${windows_dirs[@]}"
rm -rf "$out" && mv "$out.new" "$out"
if [ "${1:-}" = "--check" ]; then
  if ! diff -r "$committed" "$out" >"$scratch/regenerate.diff"; then
    echo "regenerate --check: the committed bindings differ from what the pinned headers give:" >&2
    head -n 40 "$scratch/regenerate.diff" >&2
    echo "Run ci/regenerate.sh and commit the result." >&2
    exit 1
  fi
  echo "regenerate --check: committed bindings identical to a fresh generation ($CUDA_VERSIONS)"
fi
