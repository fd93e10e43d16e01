#!/usr/bin/env bash
# The publishable crates (cuda-driver-sys, cuda-check, cuda-driver-sys-generator) still build with
# the Rust of `rust-version` in the root Cargo.toml (docs/DESIGN.md, "Minimum Rust version"):
#   1. each declares `rust-version.workspace = true`;
#   2. clippy's `incompatible_msrv` finds no standard-library item newer than it, under two feature
#      sets that between them compile every hand-written line (forced on: cuda-driver-sys allows
#      `clippy::all` for its generated code);
#   3. they compile with the oldest Rust a package registry here offers at or above it: Debian
#      bookworm's rustc-web 1.85.0 (rustup cannot fetch toolchains here), unpacked into
#      target/ci-deps/rust-1.85, never installed; dependencies resolved for that Rust;
#   4. with an MSRV of 1.84, no syntax that 1.85 added: async closures,
#      `#[diagnostic::do_not_recommend]`, edition 2024 (what step 3 cannot see).
# Called by ci/test.sh; runs alone too. About 1-2 minutes, most of it step 3's first build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "msrv-check: $*" >&2; exit 1; }
crates=(cuda-driver-sys cuda-check cuda-driver-sys-generator)
manifests=(cuda-driver-sys/Cargo.toml cuda-check/Cargo.toml cuda-driver-sys/generator/Cargo.toml)
sources=(cuda-driver-sys/src cuda-driver-sys/build cuda-driver-sys/generator/src cuda-check/src)

msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$msrv" ] || fail "no rust-version in the root Cargo.toml's [workspace.package]"
echo "msrv-check: rust-version $msrv"

# 1. One value, inherited by every publishable crate.
for m in "${manifests[@]}"; do
  grep -qx 'rust-version.workspace = true' "$m" || fail "$m does not inherit rust-version (rust-version.workspace = true)"
done
echo "  1. ${#manifests[@]} crates inherit it"

# 2. No standard-library item newer than the MSRV.
eval "$(cargo xtask fetch-deps)"
lint_sets=("cuda-driver-sys/cuda-13050,cuda-driver-sys/dynamic-loading,cuda-driver-sys/profiler,cuda-driver-sys/gl,cuda-driver-sys/egl,cuda-driver-sys/vdpau"
           "cuda-driver-sys/cuda-11070,cuda-driver-sys/table-only,cuda-driver-sys/per-thread-default-stream")
for features in "${lint_sets[@]}"; do
  out=$(cargo clippy "${crates[@]/#/--package=}" --features "$features" -- --force-warn clippy::incompatible_msrv 2>&1) ||
    { echo "$out"; fail "clippy failed"; }
  newer=$(grep -c 'current MSRV (Minimum Supported Rust Version) is' <<<"$out" || true)
  if [ "$newer" != 0 ]; then
    grep -A4 'current MSRV' <<<"$out"
    fail "$newer uses of items newer than rust-version $msrv (features $features): raise rust-version or avoid them"
  fi
done
echo "  2. clippy incompatible_msrv: 0 items newer than $msrv, ${#lint_sets[@]} feature sets"

# Steps 3 and 4 vouch for 1.84 and 1.85 only: 1.85 compiles, and step 4 knows what 1.85 added.
case "$msrv" in
  1.84|1.84.*|1.85|1.85.*) ;;
  *) fail "rust-version $msrv: this check covers 1.84 and 1.85 (Debian's rustc-web 1.85 compiles, step 4 knows 1.85's additions); for another value change steps 3 and 4" ;;
esac

# 3. A real build with an older compiler: Debian's rustc-web and cargo-web 1.85, with the
#    libraries they load (libstd, LLVM 19, cargo's libpcre3 and libhttp-parser).
old=1.85.0
deb_version="$old+dfsg3-1~deb12u3"
toolchain="$root/target/ci-deps/rust-1.85"
pkgs=("rustc-web=$deb_version" "cargo-web=$deb_version" "libstd-rust-web-dev=$deb_version"
      "libstd-rust-web-1.85=$deb_version" libllvm19 libpcre3 libhttp-parser2.9)
if [ ! -x "$toolchain/usr/bin/cargo" ]; then
  echo "msrv-check: unpacking Debian bookworm's rustc-web $deb_version into $toolchain" >&2
  debs="$toolchain.debs"
  rm -rf "$debs" "$toolchain"
  mkdir -p "$debs"
  (cd "$debs" && { apt-get download "${pkgs[@]}" >&2 2>/dev/null || { apt-get update >&2 && apt-get download "${pkgs[@]}" >&2; }; }) ||
    fail "no rustc-web $deb_version from Debian bookworm main (apt-cache madison rustc-web lists what there is; change old/deb_version here to the oldest one at or above rust-version $msrv)"
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$toolchain"; done
  rm -rf "$debs"
fi
old_env=(env -u RUSTUP_TOOLCHAIN "LD_LIBRARY_PATH=$toolchain/usr/lib/x86_64-linux-gnu:$toolchain/lib/x86_64-linux-gnu:$toolchain/usr/lib/llvm-19/lib"
         "RUSTC=$toolchain/usr/bin/rustc" "RUSTDOC=$toolchain/usr/bin/rustdoc"
         CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback "CARGO_TARGET_DIR=$root/target/msrv")
got=$("${old_env[@]}" "$toolchain/usr/bin/rustc" --version)
[[ "$got" == "rustc $old "* ]] || fail "the unpacked compiler says '$got', not $old"
# A copy of the checkout without its Cargo.lock, so that cargo 1.85 picks dependencies that build
# with it (the workspace's lock is resolved by the newest cargo, for the tests too).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null |
  tar -xf - -C "$work"
rm -f "$work/Cargo.lock"
for features in "${lint_sets[@]}"; do
  (cd "$work" && "${old_env[@]}" "$toolchain/usr/bin/cargo" check -q "${crates[@]/#/--package=}" --features "$features") ||
    fail "the publishable crates do not build with Rust $old (features $features): see the errors above"
done
echo "  3. $got builds the ${#crates[@]} crates, ${#lint_sets[@]} feature sets"

# 4. What 1.85 added to the language, which step 3 accepts and step 2 does not look at.
if [[ "$msrv" == 1.84* ]]; then
  hits=$(grep -rnE 'async( move)? *\||diagnostic::do_not_recommend' "${sources[@]}" || true)
  hits+=$(grep -nH '^edition *= *"2024"' Cargo.toml "${manifests[@]}" || true)
  [ -z "$hits" ] || { echo "$hits"; fail "Rust 1.85 syntax in the publishable crates, above rust-version $msrv"; }
  echo "  4. no Rust 1.85 syntax (async closures, do_not_recommend, edition 2024) in ${#sources[@]} source folders"
fi
echo "msrv-check: the publishable crates build with Rust $msrv"
