#!/usr/bin/env bash
# Regenerates every committed file of cuda-driver-sys/src/generated/ from the pinned headers.
#   ci/regenerate.sh           rewrite the committed files
#   ci/regenerate.sh --check   regenerate into a temporary folder and fail on any difference
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
if [ "${1:-}" = "--check" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  out="$committed"
fi
for v in 12000 12090 13000; do
  var="CUDA_HEADERS_$v"
  "$gen" --include "${!var}" --interop "$CUDA_INTEROP_INCLUDE" --out "$out/v$v" --cc "${CC:-cc}"
done
if [ "${1:-}" = "--check" ]; then
  if ! diff -r "$committed" "$out" >/tmp/regenerate.diff; then
    echo "regenerate --check: the committed bindings differ from what the pinned headers give:" >&2
    head -n 40 /tmp/regenerate.diff >&2
    echo "Run ci/regenerate.sh and commit the result." >&2
    exit 1
  fi
  echo "regenerate --check: committed bindings identical to a fresh generation (12000, 12090, 13000)"
fi
