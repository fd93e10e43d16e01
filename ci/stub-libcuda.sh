#!/usr/bin/env bash
# Makes a stub libcuda.so.1 (and libcuda.so) in DIR that exports every function of every committed
# header version (the interop modules' too), as the toolkit's stubs/libcuda.so does: for LINKING
# builds of a header newer than the machine's driver (Debian's 535 library has no cuCtxCreate_v4, which the CUDA 13.0 header's
# cuCtxCreate binds). Nothing runs against it: the loader finds the real driver at run time.
# Keep DIR outside cargo's target folder (cargo puts link-search folders inside it on the loader
# path of `cargo run` and `cargo test`).
#
# usage: [CC=compiler] ci/stub-libcuda.sh DIR   (CC: the target's C compiler, cc by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: ci/stub-libcuda.sh DIR}
mkdir -p "$dir"
sed -n 's/^ *pub fn \(cu[A-Za-z0-9_]*\)(.*/void \1(void) {}/p' \
  "$root"/cuda-driver-sys/src/generated/*functions.rs | sort -u >"$dir/stub.c"
"${CC:-cc}" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$dir/libcuda.so.1" "$dir/stub.c"
ln -sf libcuda.so.1 "$dir/libcuda.so"
echo "stub libcuda.so.1 in $dir: $(wc -l <"$dir/stub.c") symbols" >&2
