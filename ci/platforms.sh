#!/usr/bin/env bash
# aarch64 Linux and x86-64 Windows, checked by cross-compiled probes (sections 1 to 3) and by the
# workspace's tests built for each target with Debian's rustc-web (section 4: aarch64 under
# qemu-aarch64; section 5: Windows under wine):
# 1. bindings: the generator run for aarch64-unknown-linux-gnu, x86_64-pc-windows-gnu (mingw-w64
#    headers) and x86_64-pc-windows-msvc (no MSVC headers: clang -ffreestanding with the
#    declarations GL/EGL take from windows.h, ci/platforms/msvc-shim/), each compared with the
#    x86-64 Linux output of the same header version (which ci/regenerate.sh --check compares with
#    the committed files): ci/platforms/compare_bindings.py says what may differ and why. Windows
#    differs by cudaGL.h's cuWGLGetDevice (declared under _WIN32), which the committed gl_*.rs carry
#    under cfg(windows): ci/regenerate.sh's Windows pass (the gl module for x86_64-pc-windows-gnu,
#    merged under that cfg) is compared with the mingw-w64 output, file for file; and the crate's
#    Windows view of the gl module (its files projected for Windows by the generator) is
#    type-checked on Linux (cargo check of a copy of the crate), with a control that must fail;
# 2. the layout and constant probes (tests/support/c/*_probe.c with the tables the tests' build
#    script writes from the committed bindings) compiled by each target's C compiler: their tables, as that compiler evaluates them
#    (ci/platforms/asm_data.py reads them from its assembly, nothing is run: no wine), equal to
#    x86-64 Linux's, which the ABI tests compare with the bindings; and the bindings use no Rust
#    type whose size or alignment differs between these targets, so their Rust layout is the same
#    on each;
# 3. Debian's arm64 libcuda.so.1 (535, as the amd64 one) loaded under qemu-aarch64 by a
#    cross-compiled C program (ci/platforms/driver_probe.c): cuInit, cuDriverGetVersion,
#    cuGetErrorName, cuGetProcAddress and the symbol of every function of the bindings answer as
#    the amd64 library does here;
# 4. the workspace's tests that need no GPU, built for aarch64-unknown-linux-gnu with Debian's
#    rustc-web and its aarch64 standard library (ci/fetch-deps.sh --cross-rust) and run under
#    qemu-aarch64 against that arm64 libcuda.so.1, for the 12.9 and 13.5 headers
#    (ci/platforms/aarch64.sh says which and why);
# 5. x86-64 Windows: the crate, cuda-check and the tests that need no GPU built for the target and
#    run under wine against a test stub nvcuda.dll (ci/platforms/windows.sh, which says how).
#   ci/platforms.sh                 the anchor header versions
#   ci/platforms.sh --all-versions  every pinned header version
#   ci/platforms.sh 12000 13050     these
# Installs the cross compilers, qemu-user and wine64 with apt-get when missing (as root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
here=ci/platforms

packages=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user gcc-mingw-w64-x86-64 g++-aarch64-linux-gnu g++-mingw-w64-x86-64 wine64)
tools=(aarch64-linux-gnu-gcc /usr/aarch64-linux-gnu/include/stdio.h qemu-aarch64 x86_64-w64-mingw32-gcc aarch64-linux-gnu-g++ x86_64-w64-mingw32-g++ /usr/lib/wine/wine64)
missing=()
for i in "${!tools[@]}"; do
  [ -e "${tools[$i]}" ] || command -v "${tools[$i]}" >/dev/null || missing+=("${packages[$i]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "platforms: missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root"
    exit 1
  fi
  echo "platforms: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
eval "$(cargo xtask fetch-deps --arm64-driver)"
versions=(11080 12000 12090 13000 13050)
if [ "${1:-}" = "--all-versions" ]; then
  read -r -a versions <<<"$CUDA_VERSIONS"
elif [ $# -gt 0 ]; then
  versions=("$@")
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Each section says how long the one before it took (wall time), for CI's time budget.
section() {
  [ -z "${section_start:-}" ] || echo "($((SECONDS - section_start)) s)"
  section_start=$SECONDS
  echo "--- $*"
}

section "bindings per target (header versions ${versions[*]})"
cargo build --quiet --release -p cuda-driver-sys-generator
gen="$root/target/release/cuda-driver-sys-generator"
clang_args=$BINDGEN_EXTRA_CLANG_ARGS
generate() { # target C-preprocessor version [clang args]: the generator's output for that target
  local target=$1 cc=$2 v=$3 headers="CUDA_HEADERS_$3"; shift 3
  BINDGEN_EXTRA_CLANG_ARGS="$clang_args --target=$target $*" "$gen" --include "${!headers}" \
    --interop "$CUDA_INTEROP_INCLUDE" --out "$scratch/$target/$v" --cc "$cc" >/dev/null
}
for v in "${versions[@]}"; do
  # The four targets at once (bindgen is single-threaded), each failure reported by `wait`.
  generate x86_64-unknown-linux-gnu cc "$v" & pids=($!)
  generate aarch64-unknown-linux-gnu aarch64-linux-gnu-gcc "$v" \
    --sysroot=/usr/aarch64-linux-gnu -isystem /usr/aarch64-linux-gnu/include & pids+=($!)
  generate x86_64-pc-windows-gnu x86_64-w64-mingw32-gcc "$v" -isystem /usr/x86_64-w64-mingw32/include & pids+=($!)
  # (The C preprocessor only resolves cuda.h's renaming macros, the same under MSVC.)
  generate x86_64-pc-windows-msvc x86_64-w64-mingw32-gcc "$v" -ffreestanding -isystem "$root/$here/msvc-shim" \
    -Wno-ignored-attributes & pids+=($!)
  cargo xtask regenerate --windows-pass "$scratch/windows-pass" "$v" & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid"; done
  linux="$scratch/x86_64-unknown-linux-gnu/$v"
  echo "aarch64-unknown-linux-gnu, CUDA $v: $(python3 $here/compare_bindings.py same "$linux" "$scratch/aarch64-unknown-linux-gnu/$v")"
  echo "x86_64-pc-windows-gnu, CUDA $v: $(python3 $here/compare_bindings.py windows "$linux" "$scratch/x86_64-pc-windows-gnu/$v")"
  echo "ci/regenerate.sh's Windows pass (cfg(windows) of the committed files) against x86_64-pc-windows-gnu, CUDA $v: $(python3 $here/compare_bindings.py subset "$scratch/windows-pass/w$v" "$scratch/x86_64-pc-windows-gnu/$v")"
  echo "x86_64-pc-windows-msvc against windows-gnu, CUDA $v: $(python3 $here/compare_bindings.py msvc "$scratch/x86_64-pc-windows-gnu/$v" "$scratch/x86_64-pc-windows-msvc/$v")"
done

ends=("${versions[0]}")
[ "${versions[-1]}" = "${versions[0]}" ] || ends+=("${versions[-1]}")
section "the crate's Windows view of the gl module, type-checked on Linux (header versions ${ends[*]})"
# Before the build for the target (section 4): with the host's toolchain, which has no standard
# library for Windows (`windows` is a built-in cfg), a copy of the crate whose gl_*.rs are the committed ones as Windows compiles them
# (the generator's projection: cfg(windows) items kept, cfg(not(windows)) ones dropped) is
# checked for x86-64 Linux, with the linked functions and with the table and dynamic loading.
copy="$scratch/windows-view"
mkdir -p "$copy"
tar -C "$root" --exclude=./target --exclude=./.git -cf - . | tar -C "$copy" -xf -
generated=cuda-driver-sys/src/generated
echo "committed gl_*.rs: $(cat $generated/gl_*.rs | grep -c '^ *#\[cfg(.*windows' || true) items or elements under a cfg of the target"
windows_check() { # version feature-list: cargo check of the copy
  (cd "$copy" && CARGO_TARGET_DIR="$scratch/windows-target" RUSTFLAGS=-Dwarnings cargo check --quiet \
    -p cuda-driver-sys --no-default-features --features "cuda-$1,$2" 2>"$scratch/windows-check.err")
}
for v in "${ends[@]}"; do
  cp $generated/gl_*.rs "$copy/$generated/"
  "$gen" project --version "$v" --windows "$copy"/$generated/gl_*.rs
  mentions=$(cat "$copy"/$generated/gl_*.rs | grep -c 'cuWGLGetDevice\|HGPUNV' || true)
  [ "$mentions" -gt 0 ] || { echo "the Windows view of CUDA $v has no cuWGLGetDevice"; exit 1; }
  for features in gl gl,table,dynamic-loading; do
    windows_check "$v" "$features" || { cat "$scratch/windows-check.err"; echo "the Windows view of CUDA $v does not compile ($features)"; exit 1; }
  done
  echo "CUDA $v: the Windows view of the gl module ($mentions lines naming cuWGLGetDevice or HGPUNV) compiles with features gl and gl,table,dynamic-loading"
done
# The control: without HGPUNV, the Windows view does not compile.
sed -i '/^pub type HGPUNV = /d' "$copy/$generated/gl_bindings.rs"
if windows_check "${versions[-1]}" gl; then
  echo "the Windows view compiled without HGPUNV: the check checks nothing"
  exit 1
fi
echo "control: without HGPUNV the Windows view fails: $(grep -c '^error\[' "$scratch/windows-check.err") errors"

section "layout and constant probes per target (header versions ${versions[*]})"
# The Rust types of the bindings: each has the same size and alignment on x86-64 Linux, aarch64
# Linux and x86-64 Windows (c_char is C's char on each: signed on x86-64, unsigned on aarch64).
# `c_long`/`c_ulong` (32 bits on Windows), `u128`/`i128` and `c_longdouble` would not be.
types=$(grep -ohE '::core::ffi::c_[a-z]+|\b[iuf](8|16|32|64|128|size)\b' cuda-driver-sys/src/generated/*.rs | sed 's/::core::ffi:://' | sort -u | tr '\n' ' ')
echo "primitive types of the bindings: $types"
for t in $types; do
  case $t in
    c_long|c_ulong|c_longdouble|u128|i128) echo "the bindings use $t, whose size differs between these targets"; exit 1 ;;
  esac
done
# The probes' C sources, as the tests' build script writes them for the version (its OUT_DIR).
# Headers newer than 12.2 link against a stub; ci/test.sh passes its own, and builds the same
# configuration first (the tests of the anchor versions), so nothing is built again here.
stub=${CUDA_STUB_LIBRARY_PATH:-$scratch/stub}
[ -d "$stub" ] || cargo xtask stub-libcuda "$stub" 2>/dev/null
out_dir() { # version: the tests' build script's OUT_DIR for it, with the interop modules
  local link=$CUDA_LIBRARY_PATH
  if [ "$1" -ge 12030 ]; then link=$stub; fi
  CUDA_LIBRARY_PATH=$link cargo test --quiet --no-default-features --features "cuda-$1,interop" \
    --all-targets --no-run --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "build-script-executed" and "/tests#" in m["package_id"]:
        print(m["out_dir"])'
}
# What the probes are compiled with (the tests' build script: c_header::FOREIGN_DEFINES, the
# interop headers, OUT_DIR). -S: the tables are read from the assembly (-O1 folds the constants'
# table into one block of data).
base_flags=(-S -O1 -DEGL_NO_X11 -I"$CUDA_INTEROP_INCLUDE" -Itests/support/c)
tables() { # target file version [flags]: the probe's tables as that target's compiler evaluates them
  local target=$1 file=$2 headers="CUDA_HEADERS_$3" compiler=gcc prefix dialect; shift 3
  case $target in
    x86_64-unknown-linux-gnu) prefix="" dialect=x86_64 ;;
    aarch64-unknown-linux-gnu) prefix=aarch64-linux-gnu- dialect=aarch64 ;;
    x86_64-pc-windows-gnu) prefix=x86_64-w64-mingw32- dialect=mingw ;;
  esac
  case $file in *.cpp) compiler=g++ ;; esac
  local asm="$scratch/$target-$(basename "$file").s"
  "$prefix$compiler" -I"${!headers}" "${probe_flags[@]}" "$@" -o "$asm" "$file"
  python3 $here/asm_data.py "$dialect" "$asm" >"$asm.txt"
}
targets=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-pc-windows-gnu)
for v in "${versions[@]}"; do
  dir=$(out_dir "$v")
  [ -d "$dir" ] || { echo "no OUT_DIR of the tests' build script for cuda-$v"; exit 1; }
  # The probes' generic C halves (tests/support/c/*, those that include probe.h), each with the
  # tables the build script wrote into OUT_DIR; in place of one, the file of ci/platforms that
  # includes it (constants_table.c: the constants probe's table in static storage).
  probes=()
  for f in tests/support/c/*.c tests/support/c/*.cpp; do
    [ -f "$f" ] && grep -q '^#include "probe.h"' "$f" || continue
    wrapper=$(grep -l "^#include \"$(basename "$f")\"" $here/*.c || true)
    probes+=("${wrapper:-$f}")
  done
  [ ${#probes[@]} -gt 0 ] || { echo "no probe source (#include \"probe.h\") in tests/support/c"; exit 1; }
  probe_flags=("${base_flags[@]}" -I"$dir")
  compared=0
  for f in "${probes[@]}"; do
    pids=()
    for target in "${targets[@]}"; do tables "$target" "$f" "$v" & pids+=($!); done
    for pid in "${pids[@]}"; do wait "$pid"; done
    name=$(basename "$f")
    host="$scratch/x86_64-unknown-linux-gnu-$name.s.txt"
    values=$(wc -l <"$host")
    [ "$values" -gt 0 ] || continue # no table (a header-scan helper)
    compared=$((compared + 1))
    for target in "${targets[@]:1}"; do
      other="$scratch/$target-$name.s.txt"
      differing=$(diff "$host" "$other" | grep -c '^>' || true)
      echo "$target, CUDA $v, $name: $values values, $((values - differing)) equal to x86-64 Linux's, $differing differ"
      if [ "$differing" -ne 0 ]; then
        diff "$host" "$other" | head -n 20
        exit 1
      fi
    done
  done
  # Every constant of the table is in the data read (none filled by code).
  constants=$(grep -c '^[KP](' "$dir/constants.inc")
  read_back=$(grep -c '^cdsys_platform_constants\[[0-9]*\] .*: string ' "$scratch/x86_64-unknown-linux-gnu-constants_table.c.s.txt" || true)
  echo "CUDA $v: $read_back of the $constants constants of constants.inc read from the tables"
  [ "$read_back" -eq "$constants" ] || { echo "constants missing from the tables read"; exit 1; }
  [ "$compared" -gt 0 ] || { echo "no probe holds a table of values: ci/platforms/asm_data.py reads none"; exit 1; }
done
# The comparison sees a difference where there is one: enums of one byte (-fshort-enums).
seen=0
for f in "${probes[@]}"; do
  name=$(basename "$f")
  tables aarch64-unknown-linux-gnu "$f" "${versions[-1]}" -fshort-enums
  seen=$((seen + $(diff "$scratch/x86_64-unknown-linux-gnu-$name.s.txt" \
    "$scratch/aarch64-unknown-linux-gnu-$name.s.txt" | grep -c '^>' || true)))
done
echo "self-check: with -fshort-enums, $seen values of the aarch64 probes differ"
[ "$seen" -gt 0 ] || { echo "the probe comparison saw no difference with -fshort-enums"; exit 1; }

section "the arm64 driver library under qemu-aarch64"
sed -n 's/^ *pub fn \([A-Za-z0-9_]*\)(.*/\1/p' cuda-driver-sys/src/generated/*functions.rs | sort -u >"$scratch/symbols"
gcc -O1 -I"$CUDA_HEADERS_12020" -o "$scratch/probe-x86_64" $here/driver_probe.c -ldl
aarch64-linux-gnu-gcc -O1 -I"$CUDA_HEADERS_12020" -o "$scratch/probe-aarch64" $here/driver_probe.c -ldl
"$scratch/probe-x86_64" "$CUDA_LIBRARY_PATH/libcuda.so.1" <"$scratch/symbols" >"$scratch/x86_64.txt"
qemu-aarch64 -L /usr/aarch64-linux-gnu "$scratch/probe-aarch64" "$CUDA_DRIVER_ARM64/libcuda.so.1" \
  <"$scratch/symbols" >"$scratch/aarch64.txt"
grep -v '^absent: ' "$scratch/aarch64.txt"
grep -q '^cuInit(0) = 100 (CUDA_ERROR_NO_DEVICE' "$scratch/aarch64.txt" || { echo "cuInit did not answer CUDA_ERROR_NO_DEVICE"; exit 1; }
grep -q '^cuDriverGetVersion = 0, version 12020$' "$scratch/aarch64.txt" || { echo "cuDriverGetVersion did not answer 12020"; exit 1; }
# The one difference: the arm64 build exports cuEventCreateFromEGLSync (cudaEGL.h), which the
# amd64 535 library lacks (tests/common's may_be_absent).
if ! diff <(grep -vx 'absent: cuEventCreateFromEGLSync' "$scratch/x86_64.txt" | grep -v '^symbols: ') \
          <(grep -v '^symbols: ' "$scratch/aarch64.txt"); then
  echo "the arm64 library answers otherwise than the amd64 one (above: < amd64, > arm64)"
  exit 1
fi
grep -qx 'absent: cuEventCreateFromEGLSync' "$scratch/x86_64.txt" && echo "amd64 $(grep '^symbols: ' "$scratch/x86_64.txt"): the arm64 library has cuEventCreateFromEGLSync too"
echo "the arm64 library answers as the amd64 one, over $(wc -l <"$scratch/symbols") function symbols of the bindings"

section "the workspace's tests built for aarch64 Linux, under qemu-aarch64 with the arm64 driver library (ci/platforms/aarch64.sh)"
ci/platforms/aarch64.sh

section "x86-64 Windows: built with -Zbuild-std, run under wine (ci/platforms/windows.sh)"
ci/platforms/windows.sh
echo "($((SECONDS - section_start)) s)"
