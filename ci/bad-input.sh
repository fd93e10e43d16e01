#!/usr/bin/env bash
# Bad input, called by ci/test.sh; runs alone too. Without a GPU:
# 1. every CUresult value 0..1100 and the extremes through cuda-check against the C helper
#    (tests/check_error_strings.rs) under dynamic-loading on the 535 library, and linked and
#    dynamic-loading on Debian bullseye's 470 library (the linked 535 run is ci/test.sh's);
# 2. 64 threads racing the first calls, 100 fresh processes, linked, table-only and
#    dynamic-loading (tests/first_call_race.rs);
# 3. faulty driver libraries under dynamic-loading (tests/faulty_library.rs);
# 4. the build script in bad environments: a pkg-config package whose -L path is not UTF-8, a
#    pkg-config that fails, and a cuda.h whose CUDA_VERSION is no version: no panic, a clear
#    line; the warning names no folder cargo added to LD_LIBRARY_PATH.
# 5. the examples given bad kernels folders (none, empty, garbage, truncated PTX, directories
#    named .ptx, a 5,000-byte path, a name that is not UTF-8) against their C twins
#    (tests/examples_parity.rs, bad_kernels_folders_behave_as_in_c).
# The feature sets are those ci/test.sh and ci/dynamic-check.sh build, so that little is rebuilt.
. "$(dirname "$0")/common.sh" "bad input" bad-input
export CUDA_DRIVER_EXPECT_VERSION=12020 CUDA_DRIVER_EXPECT_NO_DEVICE=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
started=$SECONDS

# The path of test binary NAME built with FEATURES.
test_binary() { # features name
  cargo test --no-default-features --features "$1" --test "$2" --no-run 2>&1 |
    sed -n "s/.*Executable \(tests\/\)\{0,1\}$2.rs (\(.*\))\$/\2/p"
}

step "clippy of the two test programs cargo's --all-targets leaves out (test = false)"
cargo clippy -p cuda-driver-tests --no-default-features --features cuda-12000,interop,dynamic-loading \
  --test faulty_library --test first_call_race -- -D warnings

step "every result code through cuda-check against C: dynamic-loading, the 535 library"
cargo test --no-default-features --features cuda-12000,interop,dynamic-loading --test check_error_strings -- --nocapture
for features in cuda-11080,interop cuda-11080,dynamic-loading; do
  step "every result code through cuda-check against C: $features, the 470 library (CUDA 11.4)"
  bin=$(test_binary "$features" check_error_strings)
  [ -x "$bin" ] || fail "check_error_strings ($features) was not built"
  LD_LIBRARY_PATH="$CUDA_DRIVER_470" CUDA_DRIVER_EXPECT_VERSION=11040 "$bin" --nocapture
done

for features in cuda-12000,interop cuda-12000,interop,table-only cuda-12000,interop,dynamic-loading; do
  step "64 threads racing the first calls: $features"
  cargo test --no-default-features --features "$features" --test first_call_race
done

step "faulty driver libraries: cuda-12000,interop,dynamic-loading"
cargo test --no-default-features --features cuda-12000,interop,dynamic-loading --test faulty_library

step "the examples given bad kernels folders, against their C twins"
cargo test --no-default-features --features cuda-12000,interop --test examples_parity -- \
  --ignored --exact bad_kernels_folders_behave_as_in_c --nocapture

# The build script alone, in its own target folder (the environment changes rerun it).
check() { # ok|error log [VAR=value...] [-- cargo check arguments...]
  local want=$1 log=$2 vars=() status=0; shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  env -u CUDA_LIBRARY_PATH LD_LIBRARY_PATH=/nonexistent-user-dir "${vars[@]}" \
    cargo check -p cuda-driver-sys --target-dir target/bad-input "$@" >"$log" 2>&1 || status=$?
  if grep -q 'panicked' "$log"; then cat "$log"; fail "the build script panicked"; fi
  if { [ "$want" = ok ] && [ $status != 0 ]; } || { [ "$want" = error ] && [ $status = 0 ]; }; then
    cat "$log"; fail "cargo check: exit $status, expected $want"
  fi
}
step "build script: a pkg-config package whose -L path is not UTF-8"
mkdir -p "$scratch/pc" "$scratch/include"
printf 'Name: cuda\nDescription: x\nVersion: 12.4\nLibs: -L/opt/cuda-\xff/lib64 -lcuda\n' >"$scratch/pc/cuda-12.4.pc"
check ok "$scratch/log" PKG_CONFIG_PATH="$scratch/pc"
grep 'libcuda not found' "$scratch/log"
grep -q 'pkg-config cuda-12.4 (skipped: its output is not UTF-8' "$scratch/log" ||
  fail "no skipped line for the pkg-config package whose output is not UTF-8"
grep -q 'Searched, in order: /nonexistent-user-dir, /usr/lib/' "$scratch/log" ||
  fail "the searched folders do not begin with the user's LD_LIBRARY_PATH (cargo's own entries listed?)"
! grep -q 'target/bad-input\|rustlib' "$scratch/log" || fail "the warning lists cargo's own folders"
check ok "$scratch/log" PKG_CONFIG_PATH="$scratch/pc" -- --features dynamic-loading
step "build script: a pkg-config that fails"
check ok "$scratch/log" PKG_CONFIG=false
grep -o 'pkg-config (skipped: [^,]*' "$scratch/log" || fail "no line for the failing pkg-config"
step "build script: #define CUDA_VERSION 99999999999999"
echo '#define CUDA_VERSION 99999999999999' >"$scratch/include/cuda.h"
check error "$scratch/log" CUDA_INCLUDE_PATH="$scratch/include" -- --features cuda-version-from-header
grep 'defines CUDA_VERSION as "99999999999999", which is not a CUDA version' "$scratch/log" ||
  { cat "$scratch/log"; fail "the CUDA_VERSION error does not say what is wrong"; }

echo
echo "bad-input: all passed in $((SECONDS - started)) s"
