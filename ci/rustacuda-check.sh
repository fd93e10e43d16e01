#!/usr/bin/env bash
# rustacuda 0.1.3, a real dependent written for the registry's cuda-driver-sys 0.3.0, built on this
# workspace's crate. ci/test.sh calls it; `cargo xtask gpu-bundle` calls it with --bundle.
#
#   ci/rustacuda-check.sh                 # CI: build, run on Debian's 535 library, compare
#   ci/rustacuda-check.sh --bundle DIR    # the GPU bundle's part: the 12.0 and 13.0 builds in DIR
#
# rustacuda comes from the package registry through cargo, pinned with its checksum by
# ci/rustacuda/Cargo.lock (`cargo fetch --locked`), and is unpacked from cargo's cache twice under
# target/rustacuda-check/: as published (on cuda-driver-sys 0.3.0, which links libcuda), and with
# ci/rustacuda/migration.patch applied (docs/MIGRATING.md gives each edit's reason), on this
# workspace's cuda-driver-sys through `[patch.crates-io]`. Each build (0.3.0; ours with
# cuda-12000, cuda-12090, cuda-13000; >= 12.3 links the stub library of ci/stub-libcuda.sh)
# compiles the library, the unit and integration tests, the example and every doctest, into a
# folder `cargo xtask rustacuda-run` runs. In CI, the 0.3.0, 12.0 and 12.9 builds run on the 535 library
# (no GPU: what needs a device fails alike), and every outcome of ours must equal 0.3.0's but
# those ci/rustacuda/expected-differences lists. (The 13.0 build links cuCtxCreate_v4, which the
# 535 driver lacks: built here, run on the GPU.) One target folder serves every build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "rustacuda-check: $*" >&2; exit 1; }
bundle=
if [ "${1:-}" = --bundle ]; then bundle=${2:?usage: ci/rustacuda-check.sh [--bundle DIR]}; fi
eval "$(cargo xtask fetch-deps)"
work=$root/target/rustacuda-check
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
# rustacuda's own warnings (42, the same on both crates) are not this check's business.
export RUSTFLAGS="--cap-lints allow"

# The pinned crates into cargo's cache (checksums verified), then the two source trees.
crate=$(env -u CARGO_TARGET_DIR -u RUSTFLAGS cargo xtask pinned-crate rustacuda 0.1.3)
unpack() { # dir: rustacuda 0.1.3 as published, its own workspace, with the pinned lock
  rm -rf "$1" && mkdir -p "$1"
  tar xzf "$crate" -C "$1" --strip-components 1
  printf '\n[workspace]\n' >>"$1/Cargo.toml"
  cp ci/rustacuda/Cargo.lock "$1/Cargo.lock"
}
unpack "$work/published"
unpack "$work/migrated"
patch -d "$work/migrated" -p1 --forward --fuzz 0 --no-backup-if-mismatch <ci/rustacuda/migration.patch ||
  fail "ci/rustacuda/migration.patch does not apply to rustacuda 0.1.3"

# Link folders: cuda-driver-sys 0.3.0 (its cuda-config) takes <dir>/lib64 from CUDA_LIBRARY_PATH;
# ours takes the folder itself: the 535 library up to 12.2, from 12.3 the stub library.
mkdir -p "$work/cuda-0.3"
ln -sfn "$CUDA_LIBRARY_PATH" "$work/cuda-0.3/lib64"
# (A fixed folder, outside the target folder: a new path would rebuild cuda-driver-sys each run.)
stub=$work/stub
env -u CARGO_TARGET_DIR -u RUSTFLAGS cargo xtask stub-libcuda "$stub"
# rustdoc keeps each doctest's binary (--persist-doctests) without running it (--no-run): both
# unstable, so RUSTC_BOOTSTRAP for rustdoc alone (for rustc it would rebuild proc-macro2).
printf '#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec rustdoc "$@"\n' >"$work/rustdoc"
chmod +x "$work/rustdoc"
host=$(rustc -vV | sed -n 's/^host: //p')
libstd=$(ls "$(rustc --print sysroot)/lib/rustlib/$host/lib"/libstd-*.so)

# build TAG SRC DEST CARGO-ARGS...: everything rustacuda's `cargo test` builds, into DEST.
build() {
  local tag=$1 src=$2 dest=$3; shift 3
  rm -rf "$dest" && mkdir -p "$dest"/{tests,examples,doctests,lib}
  cp -r "$src/resources" "$dest/"
  strip --strip-debug -o "$dest/lib/$(basename "$libstd")" "$libstd"
  echo "rustacuda-check: building rustacuda 0.1.3 ($tag): library, tests, example"
  (cd "$src" && cargo test --offline --no-run --message-format=json-render-diagnostics "$@") |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        kind = m["target"]["kind"][0]
        print(kind, "unit" if kind == "lib" else m["target"]["name"], m["executable"])
' | while read -r kind name path; do
      case "$kind" in
        lib | test) strip --strip-debug -o "$dest/tests/$name" "$path" ;;
        example) strip --strip-debug -o "$dest/examples/$name" "$path" ;;
      esac
    done || fail "$tag: the build failed (the compiler's errors are above)"
  [ -x "$dest/tests/unit" ] && [ -x "$dest/examples/launch" ] || fail "$tag: the tests or the example were not built"
  echo "rustacuda-check: building rustacuda 0.1.3 ($tag): doctests"
  rm -rf "$work/doctests"
  # The doctests link the standard library dynamically (lib/): 30 KB each instead of 5 MB.
  (cd "$src" && RUSTDOC="$work/rustdoc" RUSTDOCFLAGS="-Zunstable-options --persist-doctests \
    $work/doctests --no-run -C prefer-dynamic -C strip=symbols" cargo test --offline --doc "$@") |
    grep '^test result' | sed "s/^/  $tag doctests compiled: /" || fail "$tag: the doctests did not build"
  # <file>-<rank>, rank by line within the file: the same names on both crates (the patch moves lines).
  python3 - "$work/doctests" "$dest/doctests" <<'PY'
import os, re, shutil, sys
src, dest = sys.argv[1:]
found = {}
for d in os.listdir(src):
    m = re.fullmatch(r"(.*)_(\d+)_(\d+)", d)
    if m and os.path.exists(os.path.join(src, d, "rust_out")):
        found.setdefault(m[1], []).append((int(m[2]), int(m[3]), d))
with open(os.path.join(dest, "index"), "w") as index:
    for prefix, tests in sorted(found.items()):
        for rank, (_, _, d) in enumerate(sorted(tests), 1):
            shutil.copy2(os.path.join(src, d, "rust_out"), os.path.join(dest, f"{prefix}-{rank}"))
            index.write(f"{prefix}-{rank} {d}\n")
PY
  echo "  $tag: $(ls "$dest/tests" | wc -l) test binaries, $(ls "$dest/examples" | wc -l) example," \
    "$(($(ls "$dest/doctests" | wc -l) - 1)) doctest binaries in $dest"
}
ours() { # tag dest: our crate with feature cuda-<tag>
  local link=$stub
  [ "$1" -le 12020 ] && link=$CUDA_LIBRARY_PATH
  CUDA_LIBRARY_PATH=$link build "ours-$1" "$work/migrated" "$2" \
    --config "patch.crates-io.cuda-driver-sys.path='$root/cuda-driver-sys'" --features "cuda-driver-sys/cuda-$1"
}

if [ -n "$bundle" ]; then
  mkdir -p "$bundle"
  for v in 12000 13000; do ours "$v" "$bundle/ours-$v"; done
  cp ci/rustacuda/expected-differences "$bundle/"
  exit 0
fi

# Ours first: a migration edit missing stops the check at once, with the compiler's error.
for v in 12000 12090 13000; do ours "$v" "$work/run-ours-$v"; done
CUDA_LIBRARY_PATH=$work/cuda-0.3 build 0.3.0 "$work/published" "$work/run-0.3.0"
built=$(($(ls "$work"/run-*/tests/* "$work"/run-*/examples/* | wc -l) + $(ls "$work"/run-*/doctests/* | grep -vc '/index$')))
echo "rustacuda-check: built 4 times (0.3.0; ours with cuda-12000, cuda-12090, cuda-13000): $built binaries"

# Run on the 535 library and compare, test by test.
expected=$(grep -v '^#' ci/rustacuda/expected-differences | sort)
for tag in 0.3.0 ours-12000 ours-12090; do
  env -u CARGO_TARGET_DIR -u RUSTFLAGS cargo xtask rustacuda-run "$work/run-$tag" "$work/outcomes-$tag"
done
for tag in ours-12000 ours-12090; do
  # The tests whose outcome differs from 0.3.0's, or that only one build has.
  differ=$(sort "$work/outcomes-0.3.0" "$work/outcomes-$tag" | uniq -u | sed 's/ [a-zA-Z]*$//' | sort -u)
  if [ "$differ" != "$expected" ]; then
    echo "rustacuda-check: $tag: the outcomes that differ from 0.3.0's are not those listed:"
    diff <(echo "$expected") <(echo "$differ") | sed -n 's/^< /  listed, same outcome: /p; s/^> /  differs: /p'
    grep -F -f <(echo "$differ") "$work/outcomes-0.3.0" "$work/outcomes-$tag" | sed 's/^/  /'
    exit 1
  fi
done
run=$(wc -l <"$work/outcomes-0.3.0")
passed() { grep -c ' ok$' "$work/outcomes-$1"; }
echo "rustacuda-check: built $built binaries; run $run tests per build on the 535 library, passed:" \
  "0.3.0 $(passed 0.3.0), ours-12000 $(passed ours-12000), ours-12090 $(passed ours-12090);" \
  "expected difference: $(wc -l <<<"$expected") ($(tr '\n' ' ' <<<"$expected"| sed 's/ $//')); ${SECONDS}s"
