#!/usr/bin/env bash
# A second dependent of cuda-driver-sys 0.3 besides rustacuda: ci/dependent-0-3/, a program written
# for 0.3.0 that uses each kind of item docs/MIGRATING.md names (attributes by name, one renamed
# and two renumbered; a glob import through the enum type; `as` casts; the vector types; the
# profiler functions). Built as it is on 0.3.0 (pinned by its Cargo.lock; linked as rustacuda's
# check links it), then with ci/dependent-0-3/migration.patch on this workspace's crate with
# cuda-12000, cuda-12090 and cuda-13000, the last time with `compat-0-3` and deprecations denied.
# Every build runs on Debian's 535 library (no GPU: every call fails alike) and must print what
# the 0.3.0 build prints: the same attribute numbers, codes and layouts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "dependent-0-3-check: $*" >&2; exit 1; }
eval "$(cargo xtask fetch-deps)"
cargo xtask pinned-crate cuda-driver-sys 0.3.0 >/dev/null
work=$root/target/dependent-0-3-check
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
for tree in published migrated; do
  rm -rf "${work:?}/$tree" && mkdir -p "$work/$tree"
  cp -r ci/dependent-0-3/{Cargo.toml,Cargo.lock,src} "$work/$tree/"
done
patch -d "$work/migrated" -p1 --forward --fuzz 0 --no-backup-if-mismatch <ci/dependent-0-3/migration.patch ||
  fail "ci/dependent-0-3/migration.patch does not apply"
# 0.3.0 links <dir>/lib64 of CUDA_LIBRARY_PATH; ours the folder itself, from 12.3 the stub library.
mkdir -p "$work/cuda-0.3" && ln -sfn "$CUDA_LIBRARY_PATH" "$work/cuda-0.3/lib64"
env -u CARGO_TARGET_DIR cargo xtask stub-libcuda "$work/stub"

# run TAG: the program built last, on the 535 library; its output into $work/TAG.out.
run() {
  LD_LIBRARY_PATH=$CUDA_LIBRARY_PATH "$CARGO_TARGET_DIR/debug/dependent-0-3" >"$work/$1.out" ||
    fail "$1: the program failed"
}
(cd "$work/published" && CUDA_LIBRARY_PATH=$work/cuda-0.3 cargo build --quiet --offline --locked) ||
  fail "0.3.0: the build failed"
run 0.3.0
for v in 12000 12090 13000; do
  link=$work/stub
  [ "$v" -le 12020 ] && link=$CUDA_LIBRARY_PATH
  flags=() rustflags=
  if [ "$v" = 13000 ]; then flags=(--features cuda-driver-sys/compat-0-3) rustflags="-D deprecated"; fi
  (cd "$work/migrated" && CUDA_LIBRARY_PATH=$link RUSTFLAGS=$rustflags cargo build --quiet --offline \
    --config "patch.crates-io.cuda-driver-sys.path='$root/cuda-driver-sys'" \
    --features "cuda-driver-sys/cuda-$v" "${flags[@]}") || fail "ours-$v: the build failed (the compiler's errors are above)"
  run "ours-$v"
  diff -u "$work/0.3.0.out" "$work/ours-$v.out" >&2 || fail "ours-$v prints other than 0.3.0 (above)"
done
echo "dependent-0-3-check: built on 0.3.0 and on ours with cuda-12000, cuda-12090, cuda-13000" \
  "(compat-0-3, -D deprecated); each printed the same $(wc -l <"$work/0.3.0.out") lines on the 535 library"
sed 's/^/  /' "$work/0.3.0.out"
