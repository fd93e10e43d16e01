#!/usr/bin/env bash
# First run, as a new user meets it: a fresh clone of this repository, an empty CARGO_TARGET_DIR,
# no CUDA headers (no CUDA_HEADERS_*, no target/ci-deps, no toolkit) and only the driver library
# on the loader path. Then:
#   1. `cargo run --example NAME` for every example, once per version feature; each output
#      (stdout, stderr, exit code) is recorded and compared with its C twin's by the parity test of
#      this checkout (tests/examples_parity.rs, CUDA_EXAMPLES_OUTPUT_DIR), the twins being those
#      the normal build of that version made;
#   2. `cargo test` in the fresh clone: it must stop with one line naming ci/fetch-deps.sh, and no
#      panic;
#   3. a toolkit root in CUDA_PATH (a folder with include/cuda.h of the pinned 12.9 header, and the
#      CUDA 12 runtime: include/cuda_runtime_api.h, lib64/libcudart.so.12) is enough for the 12.9
#      twins: the parity test builds and passes from it.
# runtime_interop also uses the CUDA runtime: step 1 runs it as a user who has one
# (CUDART_LIBRARY_PATH), and once without, where it must stop with one line naming
# ci/fetch-deps.sh.
#
# Needs, from ci/fetch-deps.sh: CUDA_LIBRARY_PATH (the driver library's folder), CUDA_HEADERS_12090,
# CUDART_LIBRARY_PATH and CUDART_INCLUDE_PATH (the CUDA 12 runtime); and CUDA_STUB_LIBRARY_PATH
# (ci/stub-libcuda.sh) to link the CUDA 13.0 builds, since the CI machine's driver (535, CUDA 12.2)
# lacks functions that header binds.
# Run from ci/test.sh, after the tests of every version were built in this checkout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
driver=${CUDA_LIBRARY_PATH:?the driver library folder (ci/fetch-deps.sh sets CUDA_LIBRARY_PATH)}
stub=${CUDA_STUB_LIBRARY_PATH:?a stub libcuda folder (cargo xtask stub-libcuda)}
headers_12090=${CUDA_HEADERS_12090:?the 12.9 headers (ci/fetch-deps.sh sets CUDA_HEADERS_12090)}
interop=${CUDA_INTEROP_INCLUDE:?the GL/EGL/VDPAU headers (ci/fetch-deps.sh sets CUDA_INTEROP_INCLUDE)}
cudart_lib=${CUDART_LIBRARY_PATH:?the CUDA runtime library folder (ci/fetch-deps.sh sets CUDART_LIBRARY_PATH)}
cudart_include=${CUDART_INCLUDE_PATH:?the CUDA runtime headers (ci/fetch-deps.sh sets CUDART_INCLUDE_PATH)}
# Every example, named by its C twin examples/NAME.cpp (tests/examples_parity.rs fails when its
# list differs from the twins).
examples=()
for f in examples/*.cpp; do examples+=("$(basename "$f" .cpp)"); done
# The examples that use the CUDA runtime besides the driver.
uses_runtime() { [ "$1" = runtime_interop ]; }
[ "${#examples[@]}" -gt 0 ] || { echo "first-run: no examples/*.cpp"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/repo"
[ ! -e "$work/repo/target" ] || { echo "first-run: the clone has a target folder"; exit 1; }

# A new user's environment: the toolchain, the driver library on the loader path, nothing else.
fresh_env=(env -i "PATH=$PATH" "HOME=$HOME" "CARGO_TARGET_DIR=$work/target" CARGO_TERM_COLOR=never
           "LD_LIBRARY_PATH=$driver")
for var in CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN; do
  [ -n "${!var:-}" ] && fresh_env+=("$var=${!var}")
done

for v in 12000 12090 13000; do
  features=(--no-default-features --features "cuda-$v,interop")
  link=()
  # The 13.0 header binds cuCtxCreate_v4, which the 535 library lacks: link against the stub, as
  # a toolkit's stubs/libcuda.so is for; the loader still loads the real driver.
  [ "$v" = 13000 ] && link=("CUDA_LIBRARY_PATH=$stub")
  out="$work/out/$v"
  mkdir -p "$out"
  echo "--- cuda-$v: cargo run --example NAME, in $work/repo"
  for e in "${examples[@]}"; do
    runtime=()
    uses_runtime "$e" && runtime=("CUDART_LIBRARY_PATH=$cudart_lib")
    set +e
    (cd "$work/repo" && "${fresh_env[@]}" "${link[@]}" "${runtime[@]}" cargo run -q --example "$e" "${features[@]}" \
      >"$out/$e.stdout" 2>"$out/$e.stderr")
    echo $? >"$out/$e.code"
    set -e
    stop=$(grep -o -m1 'undefined symbol: [A-Za-z0-9_]*' "$out/$e.stderr" || true)
    printf '  %-28s exit %s, %s lines%s\n' "$e" "$(cat "$out/$e.code")" "$(wc -l <"$out/$e.stdout")" \
      "${stop:+ ($stop)}"
  done
  [ "$v" = 12000 ] && { echo "  driver_init printed:"; sed 's/^/    /' "$out/driver_init.stdout"; }
  echo "--- cuda-$v: each output against its C twin (tests/examples_parity.rs)"
  twin_link=$driver; [ "$v" = 13000 ] && twin_link=$stub
  CUDA_LIBRARY_PATH=$twin_link CUDA_EXAMPLES_OUTPUT_DIR="$out" \
    cargo test -q "${features[@]}" --test examples_parity -- --nocapture --test-threads 1 2>&1 |
    grep -v '^$'
done

echo "--- runtime_interop without the CUDA runtime: one line naming ci/fetch-deps.sh, exit 1"
set +e
(cd "$work/repo" && "${fresh_env[@]}" cargo run -q --example runtime_interop >"$work/rt.stdout" 2>"$work/rt.stderr")
code=$?
set -e
grep -v '^\s*$' "$work/rt.stderr" | sed 's/^/  /'
[ "$code" = 1 ] || { echo "first-run: runtime_interop without the runtime exited $code, not 1"; exit 1; }
[ "$(grep -c . "$work/rt.stderr")" = 1 ] && grep -q 'libcudart.so.12.*run ci/fetch-deps.sh' "$work/rt.stderr" ||
  { echo "first-run: runtime_interop without the runtime did not say in one line how to get it"; exit 1; }
[ ! -s "$work/rt.stdout" ] || { echo "first-run: runtime_interop printed before finding no runtime"; exit 1; }

echo "--- cargo test in the fresh clone, without headers: one line naming ci/fetch-deps.sh"
set +e
(cd "$work/repo" && "${fresh_env[@]}" cargo test -q >"$work/cargo-test.log" 2>&1)
code=$?
set -e
grep -v '^\s*$' "$work/cargo-test.log" | grep -v '^warning' | sed 's/^/  /'
if [ "$code" = 0 ]; then echo "first-run: cargo test passed without headers"; exit 1; fi
grep -q 'error: cuda-driver-tests@.*run `ci/fetch-deps.sh`' "$work/cargo-test.log" ||
  { echo "first-run: no line naming ci/fetch-deps.sh"; exit 1; }
if grep -q 'panicked\|RUST_BACKTRACE' "$work/cargo-test.log"; then
  echo "first-run: a panic instead of one line"; exit 1
fi

echo "--- a toolkit root in CUDA_PATH (include/cuda.h of the 12.9 header, the 12 runtime) builds the 12.9 twins"
# A toolkit's include/ has the interop headers too (cudaGL.h, cudaProfiler.h, ...), which the
# tests compile; the GL/EGL/VDPAU headers they include are the system's (libgl-dev, ...), here
# through CUDA_INTEROP_INCLUDE.
# The runtime's headers first: the pinned runtime is 12.0's, whose folder holds 12.0's interop
# headers too; the 12.9 driver headers (cuda.h and the interop ones) then replace them, as one
# toolkit's headers are all of one version.
mkdir -p "$work/toolkit/include" "$work/toolkit/lib64"
cp -r "$cudart_include"/. "$work/toolkit/include/"
cp "$headers_12090"/cuda*.h "$work/toolkit/include/"
cp "$cudart_lib"/libcudart.so.12 "$work/toolkit/lib64/"
(cd "$work/repo" && "${fresh_env[@]}" "CUDA_PATH=$work/toolkit" "CUDA_INTEROP_INCLUDE=$interop" \
  cargo test -q --no-default-features --features cuda-12090,interop --test examples_parity -- \
  --test-threads 1 --nocapture 2>&1 | grep -v '^$')
find "$work/target" -path '*cuda-driver-tests*/out/c-twins/*' -type f | sed 's/^/  twin built: /' | head -3
echo "first-run: all passed"
