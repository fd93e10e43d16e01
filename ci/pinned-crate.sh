#!/usr/bin/env bash
# Prints the path of NAME-VERSION.crate in cargo's cache: fetched from the package registry with
# the crates ci/rustacuda/Cargo.lock pins (`cargo fetch --locked`), and checked against the
# checksum that lock gives it. rustacuda 0.1.3 and its cuda-driver-sys 0.3.0 are pinned there.
#
# usage: ci/pinned-crate.sh NAME VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: ci/pinned-crate.sh NAME VERSION} version=${2:?usage: ci/pinned-crate.sh NAME VERSION}
fail() { echo "pinned-crate: $*" >&2; exit 1; }
cargo fetch --quiet --locked --manifest-path ci/rustacuda/Cargo.toml
sum=$(sed -n "/^name = \"$name\"\$/,/^checksum/ s/^checksum = \"\(.*\)\"\$/\1/p" ci/rustacuda/Cargo.lock)
[ -n "$sum" ] || fail "ci/rustacuda/Cargo.lock pins no $name"
for c in "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$name-$version.crate"; do
  if [ -f "$c" ] && echo "$sum  $c" | sha256sum --check --status; then
    echo "$c"
    exit 0
  fi
done
fail "no $name-$version.crate with the checksum of ci/rustacuda/Cargo.lock in cargo's cache"
