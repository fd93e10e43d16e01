#!/usr/bin/env bash
# Smoke check of the C twins of the examples (examples/<name>.cpp), with g++ and no Rust:
#   - builds each twin against the pinned CUDA 12.0 headers and links it with the driver library
#     that ci/fetch-deps.sh fetched (Debian's libcuda.so.1), into target/twins/<name>;
#   - compiles each against the 12.9 and 13.0 headers too (the twins port the posts to CUDA 13
#     under `#if CUDA_VERSION >= 13000`), and fails if one does not compile;
#   - runs each from the repository root (so that the default PTX folder examples/kernels is
#     found), under a time limit, and fails if one is killed by a signal or hangs. Without a GPU
#     every twin takes its error path; with one, each prints "Result = PASS" where it checks
#     results.
# Outputs go to target/twins/out/<name>.txt (stdout only; the exit code in <name>.rc), or to the
# folder given as $1.
#
# usage: ci/twins-smoke.sh [OUTPUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
eval "$(cargo xtask fetch-deps)"
# Every twin, examples/NAME.cpp.
names=()
for f in examples/*.cpp; do names+=("$(basename "$f" .cpp)"); done
[ "${#names[@]}" -gt 0 ] || { echo "twins-smoke: no examples/*.cpp" >&2; exit 1; }
bin="$root/target/twins"
out="${1:-$bin/out}"
mkdir -p "$bin" "$out"
CXX=${CXX:-g++}
CXXFLAGS=(-std=c++17 -O2 -Wall -Wextra)
fail=0
for n in "${names[@]}"; do
  # runtime_interop uses the CUDA 12 runtime too (its headers after the driver's; libcudart.so.12)
  rt=(); rt_link=()
  if [ "$n" = runtime_interop ]; then
    rt=(-I"$CUDART_INCLUDE_PATH")
    rt_link=(-L"$CUDART_LIBRARY_PATH" -Wl,-rpath,"$CUDART_LIBRARY_PATH" -l:libcudart.so.12)
  fi
  if ! "$CXX" "${CXXFLAGS[@]}" -I"$CUDA_HEADERS_12000" "${rt[@]}" "examples/$n.cpp" -o "$bin/$n" \
       -L"$CUDA_LIBRARY_PATH" -l:libcuda.so.1 "${rt_link[@]}"; then
    echo "twins-smoke: $n: does not build against the 12.0 headers" >&2; fail=1; continue
  fi
  if ! "$CXX" "${CXXFLAGS[@]}" -w -I"$CUDA_HEADERS_12090" "${rt[@]}" -c "examples/$n.cpp" -o /dev/null; then
    echo "twins-smoke: $n: does not compile against the 12.9 headers" >&2; fail=1
  fi
  if ! "$CXX" "${CXXFLAGS[@]}" -w -I"$CUDA_HEADERS_13000" "${rt[@]}" -c "examples/$n.cpp" -o /dev/null; then
    echo "twins-smoke: $n: does not compile against the 13.0 headers" >&2; fail=1
  fi
done
for n in "${names[@]}"; do
  [ -x "$bin/$n" ] || continue
  set +e
  timeout 120 "$bin/$n" >"$out/$n.txt" 2>"$out/$n.stderr"
  rc=$?
  set -e
  echo "$rc" >"$out/$n.rc"
  if [ "$rc" = 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; }; then
    echo "twins-smoke: $n: killed or hung (exit $rc)" >&2; fail=1
  fi
  [ -s "$out/$n.stderr" ] || rm -f "$out/$n.stderr"
  if [ -s "$out/$n.stderr" ]; then
    echo "twins-smoke: $n: wrote to stderr:" >&2; cat "$out/$n.stderr" >&2
  fi
  echo "===== $n (exit $rc)"
  cat "$out/$n.txt"
done
exit $fail
