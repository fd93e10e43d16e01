#!/usr/bin/env bash
# Builds, on this machine (release, x86-64), everything the GPU pass runs, into one folder that a
# GPU machine with the NVIDIA driver and no Rust toolchain runs with one command:
#
#   ci/gpu-bundle.sh [DIR]          # default DIR: target/gpu-bundle
#   DIR/run.sh [OUT]                # on the GPU machine; logs go to OUT (default: DIR/out)
#
# The folder holds: the ten examples and their C twins, the PTX they load, the test binaries
# (example parity, the driver and table tests for every header version, with every function
# linked directly since the GPU machine's driver is newer than every header), and the benchmark.
# run.sh prints one line per example (parity, results checked), runs every example and twin under
# compute-sanitizer, runs the benchmark twice, and exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-target/gpu-bundle}
eval "$(ci/fetch-deps.sh)"
rm -rf "$out" && mkdir -p "$out"/{bin,tests}
cp -r examples/kernels "$out/kernels"

# cargo's JSON messages on stdin, one line per artifact: `KIND NAME PATH` for each executable
# (KIND: test, example, bench), `out-dir cuda-driver-workspace DIR` for the root build script.
artifacts() {
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["kind"][0], m["target"]["name"], m["executable"])
    if m.get("reason") == "build-script-executed" and "cuda-driver-workspace" in m["package_id"]:
        print("out-dir", "cuda-driver-workspace", m["out_dir"])
'
}

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

# The examples and their C twins of one feature set, into examples$suffix/ and c-twins$suffix/.
build_examples() { # suffix cargo-args...
  local suffix=$1; shift
  mkdir -p "$out/examples$suffix" "$out/c-twins$suffix"
  cargo build --release --examples --message-format=json "$@" 2>/dev/null | artifacts |
    while read -r kind name path; do
      case "$kind" in
        example) cp "$path" "$out/examples$suffix/$name" ;;
        out-dir) cp "$path"/c-twins/* "$out/c-twins$suffix/" ;;
      esac
    done
  echo "  examples$suffix: $(ls "$out/examples$suffix" | wc -l), c-twins$suffix: $(ls "$out/c-twins$suffix" | wc -l)"
}

echo "building examples and C twins (cuda-12000; and with per-thread-default-stream)"
build_examples ""
build_examples -pt --features per-thread-default-stream
build_tests 12000 --test examples_parity --test driver --test table --features link-every-function
echo "building tests for the 12.9 and 13.0 headers"
# Linking every function of a header newer than Debian's 535 library needs a library with those
# symbols: a stub libcuda.so.1 made from the committed bindings, as the toolkit's stubs are. The
# GPU machine loads its real driver instead (nothing points the loader at the stub).
stub="$root/target/stub-libcuda"
mkdir -p "$stub"
sed -n 's/^ *pub fn \(cu[A-Za-z0-9_]*\)(.*/void \1(void) {}/p' \
  cuda-driver-sys/src/generated/v*/functions.rs | sort -u >"$stub/stub.c"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub/libcuda.so.1" "$stub/stub.c"
ln -sf libcuda.so.1 "$stub/libcuda.so"
echo "  stub libcuda.so.1: $(wc -l <"$stub/stub.c") symbols"
CUDA_LIBRARY_PATH="$stub" build_tests 12090 --test driver --test table --no-default-features --features cuda-12090,link-every-function
CUDA_LIBRARY_PATH="$stub" build_tests 13000 --test driver --test table --no-default-features --features cuda-13000,link-every-function
build_tests 13000-table-only --test table --no-default-features --features cuda-13000,table-only
build_tests 12000-pt --test driver --test table --test examples_parity --features per-thread-default-stream,link-every-function
echo "building the benchmark"
bench=$(cargo bench --no-run --bench driver --message-format=json 2>/dev/null | artifacts |
  awk '$1 == "bench" { print $3 }')
cp "$bench" "$out/bin/bench-driver"
cp ci/gpu-run.sh "$out/run.sh"
du -sh "$out"
