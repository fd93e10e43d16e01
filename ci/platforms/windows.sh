#!/usr/bin/env bash
# x86-64 Windows (GNU): cuda-driver-sys, cuda-check and the tests that need no GPU, compiled for
# x86_64-pc-windows-gnu (Debian's rustc-web with -Zbuild-std, ci/fetch-deps.sh --cross-rust;
# mingw-w64 links) and run under wine64 (Debian's wine 8.0), in a prefix under target/windows:
# 1. with the test stub nvcuda.dll (windows/nvcuda_stub.c: the 535 library's answers without a
#    GPU), linked through its import library cuda.lib, found by the build script's Windows
#    search (CUDA_LIBRARY_PATH holding cuda.lib), and with dynamic-loading: the crate's unit tests,
#    cuda-check's tests, the tests package's driver, table, dynamic and load_from;
# 2. with no nvcuda.dll: dynamic-loading binaries start and say in one line that the library
#    could not be loaded; a linked binary does not start (the Windows loader's error);
# 3. the examples on the no-device path: stdout and exit status equal to the Linux build's with
#    Debian's 535 library;
# 4. the cfg(windows) items (the gl module's cuWGLGetDevice) compiled for the target, linked and
#    with dynamic-loading;
# 5. x86_64-pc-windows-msvc: the crate, cuda-check's tests and the examples type-checked
#    (cargo check, build-std), neither linked nor run: lld-link with mingw-w64's import libraries
#    lacks the MSVC C runtime's startup objects (mainCRTStartup, _tls_used, __chkstk,
#    __CxxFrameHandler3, _fltused), which only Microsoft's toolchain ships.
# The tests package is built without the interop modules: its build script parses the headers the
# GL/EGL headers include, which for Windows are mingw-w64's windows.h and its intrinsics (lang-c
# cannot parse those). Wine's own DLLs lack bcryptprimitives.dll, which Rust's standard library
# imports: windows/bcryptprimitives.c is a test DLL giving it (its randomness checked here).
#   ci/platforms/windows.sh
# Needs x86_64-w64-mingw32-gcc, -g++, -dlltool and wine64 (ci/platforms.sh installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
here=ci/platforms/windows
for tool in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-g++ x86_64-w64-mingw32-dlltool /usr/lib/wine/wine64; do
  command -v "$tool" >/dev/null || {
    echo "windows: no $tool: apt-get install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 wine64"
    exit 1
  }
done
eval "$(cargo xtask fetch-deps --cross-rust)"
linux_driver=$CUDA_LIBRARY_PATH
target=x86_64-pc-windows-gnu
out=$root/target/windows
equipment=$out/equipment
export CARGO_TARGET_DIR=$out RUSTC=$RUST_CROSS_RUSTC RUSTC_BOOTSTRAP=1 CARGO_TERM_COLOR=never
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64
# The stub's answers (tests/driver.rs, tests/dynamic.rs read them).
export CUDA_DRIVER_EXPECT_VERSION=12020 CUDA_DRIVER_EXPECT_NO_DEVICE=1
# A prefix of its own, no display, no prompts (no Mono or Gecko installer), no debug channels.
export WINEPREFIX=$out/wine-prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
scratch=$(mktemp -d)
trap '/usr/lib/wine/wineserver -k 2>/dev/null || true; rm -rf "$scratch"' EXIT
section() {
  [ -z "${section_start:-}" ] || echo "($((SECONDS - section_start)) s)"
  section_start=$SECONDS
  echo "--- windows: $*"
}
wine_path() { # folders...: the DLL search path of the wine processes (WINEPATH)
  local IFS=';'
  export WINEPATH="$*"
}
cargo_windows() { # cargo subcommand and arguments, for $target; a warning fails
  local command=$1 status=0; shift
  # Without LD_LIBRARY_PATH (callers prefix it differently; the build scripts would run again).
  env -u LD_LIBRARY_PATH cargo "$command" --quiet -Zbuild-std=std,panic_abort --target "$target" "$@" 2>"$scratch/cargo.err" || status=$?
  cat "$scratch/cargo.err" >&2
  [ "$status" -eq 0 ] || exit "$status"
  if grep -q '^warning' "$scratch/cargo.err"; then
    echo "windows: cargo $command warned (above)"
    exit 1
  fi
}

section "test equipment: bcryptprimitives.dll, the stub nvcuda.dll and its import library cuda.lib"
mkdir -p "$equipment/nvcuda"
x86_64-w64-mingw32-gcc -shared -O2 -Wall -Werror -o "$equipment/bcryptprimitives.dll" $here/bcryptprimitives.c -lbcrypt
x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o "$equipment/prng_check.exe" $here/prng_check.c
python3 $here/nvcuda_table.py cuda-driver-sys/src/generated "$linux_driver/libcuda.so.1" $here/nvcuda_stub.c "$equipment"
x86_64-w64-mingw32-gcc -shared -O1 -Wall -Wextra -Werror -I"$equipment" -o "$equipment/nvcuda/nvcuda.dll" \
  $here/nvcuda_stub.c "$equipment/nvcuda.def"
x86_64-w64-mingw32-dlltool -d "$equipment/nvcuda.def" -l "$equipment/nvcuda/cuda.lib"
# Linked builds find cuda.lib as the build script finds a toolkit's lib\x64.
export CUDA_LIBRARY_PATH=$equipment/nvcuda

section "wine: the prefix and a server kept for the step"
# The server and the services wineboot starts outlive the commands: their output goes nowhere,
# so that no pipe of this script waits on them.
mkdir -p "$WINEPREFIX"
/usr/lib/wine/wineserver -p </dev/null >/dev/null 2>&1 || { echo "windows: wineserver did not start"; exit 1; }
start=$SECONDS
/usr/lib/wine/wine64 wineboot --init </dev/null >"$scratch/wineboot.log" 2>&1 ||
  { cat "$scratch/wineboot.log"; echo "windows: wineboot failed (above)"; exit 1; }
echo "wineboot: $((SECONDS - start)) s"
wine_path "$equipment"
for run in 1 2; do
  /usr/lib/wine/wine64 "$equipment/prng_check.exe" >>"$scratch/draws" || { echo "prng_check failed under wine"; exit 1; }
done
draws=$(tr -d '\r' <"$scratch/draws")
distinct=$(echo "$draws" | grep -v '^0*$' | sort -u | wc -l)
echo "ProcessPrng of the test bcryptprimitives.dll: $distinct of 4 draws distinct and not all zeros"
[ "$distinct" -eq 4 ] || { echo "ProcessPrng gives no random bytes:"; echo "$draws"; exit 1; }

section "build (build-std), linked against cuda.lib and with dynamic-loading"
# The two modes, as features of the tests package and of cuda-driver-sys (cuda-check's too).
modes=(cuda-12000 cuda-12000,dynamic-loading)
sys_features=(cuda-driver-sys/cuda-12000 cuda-driver-sys/cuda-12000,cuda-driver-sys/dynamic-loading)
tests=(--test driver --test table --test dynamic --test load_from)
for i in "${!modes[@]}"; do
  cargo_windows test --no-run -p cuda-driver-sys --lib --features "${sys_features[$i]}"
  cargo_windows test --no-run -p cuda-check --tests --features "${sys_features[$i]}"
  cargo_windows test --no-run -p cuda-driver-tests --no-default-features --features "${modes[$i]}" "${tests[@]}"
done
# The examples but runtime_interop, which also loads the CUDA runtime (examples/common/cudart.rs:
# libcudart.so.12 through dlopen, Linux only).
examples=()
for f in examples/*.rs; do
  [ "$f" = examples/runtime_interop.rs ] || examples+=(--example "$(basename "$f" .rs)")
done
examples_dir=$out/$target/debug/examples
# One example with dynamic-loading, kept apart (the linked build replaces it).
cargo_windows build -p cuda-driver-workspace --example check_driver --features cuda-12000,dynamic-loading
mkdir -p "$examples_dir/dynamic-loading"
cp "$examples_dir/check_driver.exe" "$examples_dir/dynamic-loading/"
cargo_windows build -p cuda-driver-workspace "${examples[@]}" --features cuda-12000
# The cfg(windows) items: cuWGLGetDevice and HGPUNV of the gl module, linked and loaded.
for v in 12000 13050; do
  cargo_windows build -p cuda-driver-sys --no-default-features --features "cuda-$v,gl,table"
  cargo_windows build -p cuda-driver-sys --no-default-features --features "cuda-$v,gl,table,dynamic-loading"
done

section "run under wine with the stub nvcuda.dll"
wine_path "$equipment" "$equipment/nvcuda"
for i in "${!modes[@]}"; do
  echo "features ${modes[$i]}:"
  cargo_windows test -p cuda-driver-sys --lib --features "${sys_features[$i]}"
  cargo_windows test -p cuda-check --tests --features "${sys_features[$i]}"
  cargo_windows test -p cuda-driver-tests --no-default-features --features "${modes[$i]}" "${tests[@]}"
done

section "run under wine without nvcuda.dll"
wine_path "$equipment"
# dynamic-loading: the process starts; every call answers 303 and the loader says why, in one line.
cargo_windows test -p cuda-driver-tests --no-default-features --features cuda-12000,dynamic-loading \
  --test dynamic -- --ignored
cargo_windows test -p cuda-driver-tests --no-default-features --features cuda-12000,dynamic-loading \
  --test load_from
report=$(/usr/lib/wine/wine64 "$examples_dir/dynamic-loading/check_driver.exe" 2>&1 | tr -d '\r' || true)
echo "check_driver (dynamic-loading), no nvcuda.dll: $report"
[[ "$report" == *"the CUDA driver library could not be loaded: tried nvcuda.dll ("* ]] ||
  { echo "the example did not say that nvcuda.dll is missing"; exit 1; }
# Linked: Windows' loader refuses to start the program (STATUS_DLL_NOT_FOUND, 0xc0000135).
status=0
loader=$(WINEDEBUG=err+module /usr/lib/wine/wine64 "$examples_dir/check_driver.exe" 2>&1) || status=$?
echo "check_driver (linked), no nvcuda.dll: exit status $status; $(echo "$loader" | grep -m1 'nvcuda.dll')"
[ "$status" -ne 0 ] && [[ "$loader" == *"nvcuda.dll"*"not found"* ]] ||
  { echo "the linked example started without nvcuda.dll:"; echo "$loader"; exit 1; }

section "the examples on the no-device path: Windows (wine, stub) against Linux (Debian's 535)"
wine_path "$equipment" "$equipment/nvcuda"
# The Linux build: the host's cargo and rustc, the usual target folder.
linux_examples=$(env -u RUSTC -u CARGO_TARGET_DIR -u RUSTC_BOOTSTRAP CUDA_LIBRARY_PATH="$linux_driver" \
  cargo build --quiet -p cuda-driver-workspace "${examples[@]}" --features cuda-12000 --message-format=json |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and "example" in m["target"]["kind"]:
        print(m["executable"])')
# Pointers differ between processes: each 0x<hex> is 0xPTR (tests/examples_parity.rs's rule).
pointers='s/0x[0-9a-f]\+/0xPTR/g'
compared=0 differing=()
for linux in $linux_examples; do
  name=$(basename "$linux")
  linux_status=0 windows_status=0
  LD_LIBRARY_PATH="$linux_driver" "$linux" examples/kernels 2>/dev/null >"$scratch/$name.raw" || linux_status=$?
  sed "$pointers" "$scratch/$name.raw" >"$scratch/$name.linux"
  /usr/lib/wine/wine64 "$examples_dir/$name.exe" examples/kernels >"$scratch/$name.raw" \
    2>/dev/null || windows_status=$?
  tr -d '\r' <"$scratch/$name.raw" | sed "$pointers" >"$scratch/$name.windows"
  if [ "$linux_status" != "$windows_status" ] || ! diff -u "$scratch/$name.linux" "$scratch/$name.windows"; then
    echo "$name: Linux exit $linux_status, Windows exit $windows_status (diff above: - Linux, + Windows)"
    differing+=("$name")
    continue
  fi
  compared=$((compared + 1))
  echo "$name: exit $linux_status, $(wc -l <"$scratch/$name.linux") lines, the same on both"
done
[ ${#differing[@]} -eq 0 ] || { echo "the examples differ between Windows and Linux: ${differing[*]}"; exit 1; }
[ "$compared" -gt 5 ] || { echo "only $compared examples compared"; exit 1; }

section "x86_64-pc-windows-msvc: type-checked (no MSVC C runtime to link with)"
target=x86_64-pc-windows-msvc
cargo_windows check -p cuda-driver-sys --features cuda-12000,gl,table
cargo_windows check -p cuda-driver-sys --features cuda-12000,gl,table,dynamic-loading
cargo_windows check -p cuda-check --tests
cargo_windows check -p cuda-driver-workspace "${examples[@]}" --features cuda-12000
echo "cuda-driver-sys (gl, table; linked and dynamic-loading), cuda-check's tests and $((${#examples[@]} / 2)) examples compile for $target"
echo "($((SECONDS - section_start)) s)"
