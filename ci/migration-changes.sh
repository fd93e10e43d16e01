#!/usr/bin/env bash
# The change list from cuda-driver-sys 0.3 (docs/MIGRATING-CHANGES.md) and the generator's list of
# the enumerators whose value changed (cuda-driver-sys/generator/src/renumbered_since_0_3.txt),
# from 0.3.0's bindings (src/cuda.rs of its .crate, pinned by checksum: ci/pinned-crate.sh) and
# the committed ones, by the generator's `migration_changes` bin.
#   ci/migration-changes.sh           rewrite both files
#   ci/migration-changes.sh --check   fail if either differs from what it would write
set -euo pipefail
cd "$(dirname "$0")/.."
crate=$(ci/pinned-crate.sh cuda-driver-sys 0.3.0)
work=target/migration-changes
rm -rf "$work" && mkdir -p "$work"
tar xzf "$crate" -C "$work" cuda-driver-sys-0.3.0/src/cuda.rs
cargo run --quiet --release -p cuda-driver-sys-generator --bin migration_changes -- \
  --bindings-0-3 "$work/cuda-driver-sys-0.3.0/src/cuda.rs" "$@"
