#!/usr/bin/env bash
# The publishable crates (cuda-driver-sys-generator, cuda-driver-sys, cuda-check) as the registry
# would get them: `cargo package` packs the three together (cuda-driver-sys's optional `bindgen`
# feature names the generator by version, and cuda-check depends on cuda-driver-sys) and builds
# each from its .crate alone. Then each .crate must carry what a user needs: the committed
# bindings of every module, the build script, a README and both license texts; and nothing of the
# tests, the examples or the CI. Called by ci/test.sh; runs alone too.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "package-check: $*" >&2; exit 1; }
eval "$(cargo xtask fetch-deps)"
target=$(mktemp -d)
trap 'rm -rf "$target"' EXIT
CARGO_TARGET_DIR=$target cargo package -p cuda-driver-sys-generator -p cuda-driver-sys -p cuda-check

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
contents() { tar tzf "$target/package/$1-$version.crate" | sed "s|^$1-$version/||"; }
for crate in cuda-driver-sys-generator cuda-driver-sys cuda-check; do
  files=$(contents "$crate")
  kib=$(( ($(stat -c %s "$target/package/$crate-$version.crate") + 1023) / 1024 ))
  echo "  $crate-$version.crate: $(wc -l <<<"$files") files, $kib KiB"
  [ "$kib" -lt 1024 ] || fail "$crate's package is $kib KiB, over the 1 MiB this workspace allows itself"
  for f in Cargo.toml LICENSE-MIT LICENSE-APACHE; do
    grep -qx "$f" <<<"$files" || fail "$crate's package has no $f"
  done
  ! grep -q '^\(tests/support\|examples\|ci\)/' <<<"$files" || fail "$crate's package holds test, example or CI files"
done
grep -qx README.md <<<"$(contents cuda-driver-sys)" || fail "cuda-driver-sys's package has no README.md"
grep -qx README.md <<<"$(contents cuda-check)" || fail "cuda-check's package has no README.md"
# Every committed generated file (the modules' included), and the build script.
sys=$(contents cuda-driver-sys)
for f in cuda-driver-sys/src/generated/*.rs cuda-driver-sys/build/main.rs; do
  grep -qx "${f#cuda-driver-sys/}" <<<"$sys" || fail "cuda-driver-sys's package lacks ${f#cuda-driver-sys/}"
done
! grep -q '^generator/' <<<"$sys" || fail "cuda-driver-sys's package holds the generator (a crate of its own)"
echo "package-check: the three crates package and build from their .crate files"
