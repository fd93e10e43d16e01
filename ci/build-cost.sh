#!/usr/bin/env bash
# The build cost a dependent crate pays (docs/BUILD-COST.md): cold `cargo build --release` of a
# scratch crate depending on cuda-driver-sys (by path, one version feature, the driver library
# only: no CUDA toolkit, no libclang) against the same crate depending on cudarc 0.19.10 driver-only
# with `dynamic-linking` (its linked mode, the one comparable to ours), alternating, the order within
# each pair flipped from pair to pair. Prints each build's wall and CPU seconds, each pair's ratios
# (ours over cudarc) and their medians. A measurement, not a CI step.
#
#   ci/build-cost.sh [PAIRS] [FEATURE]     # default: 7 pairs, cuda-12000
#
# Sources are fetched once before the first pair; each build starts from an empty target folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pairs=${1:-7} feature=${2:-cuda-12000}
eval "$(cd "$root" && cargo xtask fetch-deps)"
dir="$root/target/build-cost"
rm -rf "$dir"
scratch() { # name dependency-line
  mkdir -p "$dir/$1/src"
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[dependencies]\n%s\n[workspace]\n' \
    "$1" "$2" >"$dir/$1/Cargo.toml"
  echo "extern crate $3;" >"$dir/$1/src/lib.rs"
}
scratch ours "cuda-driver-sys = { path = \"$root/cuda-driver-sys\", default-features = false, features = [\"$feature\"] }" cuda_driver_sys
scratch cudarc 'cudarc = { version = "=0.19.10", default-features = false, features = ["std", "driver", "cuda-12090", "dynamic-linking"] }' cudarc
# Only the driver library, as a user without a toolkit has it.
export LD_LIBRARY_PATH=$CUDA_LIBRARY_PATH
unset CUDA_LIBRARY_PATH LIBCLANG_PATH CUDA_PATH CUDA_HOME CUDA_ROOT
for c in ours cudarc; do
  cargo fetch --quiet --manifest-path "$dir/$c/Cargo.toml"
done
build() { # crate -> "wall cpu"
  rm -rf "$dir/$1/target"
  local TIMEFORMAT='%R %U %S' t
  t=$({ time cargo build --release --offline --quiet --manifest-path "$dir/$1/Cargo.toml" >/dev/null 2>&1; } 2>&1)
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' <<<"$t"
}
echo "pair  ours wall/cpu  cudarc wall/cpu  ratio wall/cpu   (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
results=()
for p in $(seq 1 "$pairs"); do
  if [ $((p % 2)) -eq 1 ]; then o=$(build ours); c=$(build cudarc); else c=$(build cudarc); o=$(build ours); fi
  read -r ow oc <<<"$o"; read -r cw cc <<<"$c"
  rw=$(awk -v a="$ow" -v b="$cw" 'BEGIN { printf "%.3f", a / b }')
  rc=$(awk -v a="$oc" -v b="$cc" 'BEGIN { printf "%.3f", a / b }')
  printf '%4d  %5.2f / %5.2f    %5.2f / %5.2f     %s / %s\n' "$p" "$ow" "$oc" "$cw" "$cc" "$rw" "$rc"
  results+=("$rw $rc")
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mw=$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | median)
mc=$(printf '%s\n' "${results[@]}" | cut -d' ' -f2 | median)
echo "build-cost: ${pairs} pairs, $feature: median ratio ours/cudarc wall ${mw}, CPU ${mc} (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
