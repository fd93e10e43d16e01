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
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
eval "$(ci/fetch-deps.sh)"
cargo build --quiet --release -p cuda-driver-sys-generator
gen="$root/target/release/cuda-driver-sys-generator"
committed="$root/cuda-driver-sys/src/generated"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ "${1:-}" = "--check" ]; then
  out="$scratch/merged"
else
  out="$committed"
fi
# One generator per version, as many at once as there are CPUs (bindgen is single-threaded); a
# failing one stops the script at its `wait`.
generate() { # version
  local var="CUDA_HEADERS_$1"
  "$gen" --include "${!var}" --interop "$CUDA_INTEROP_INCLUDE" --out "$scratch/v$1" --cc "${CC:-cc}" >/dev/null
}
jobs=$(nproc)
dirs=() pids=()
for v in $CUDA_VERSIONS; do
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
  generate "$v" &
  pids+=($!)
  dirs+=("$scratch/v$v")
done
for pid in "${pids[@]}"; do wait "$pid"; done
rm -rf "$out.new" && "$gen" merge --out "$out.new" "${dirs[@]}"
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
