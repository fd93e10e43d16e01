#!/usr/bin/env bash
# Regenerates the PTX that the examples load (examples/kernels/*.ptx) from the CUDA C sources next
# to them (examples/kernels/*.cu), with the 12.0 tools from PyPI, and checks every PTX with ptxas.
#
#   ci/gen-ptx.sh           regenerate examples/kernels/*.ptx in place, then verify them
#   ci/gen-ptx.sh --check   regenerate into a temporary folder and fail on any byte of difference
#                           from the committed PTX (and verify the committed PTX)
#
# Why 12.0 tools: the PTX must load on every driver from CUDA 12.0 on, so its ISA must be one a
# 12.0 driver knows (.version 8.0). nvcc 12.x/13.x writes newer ISA versions that older drivers
# reject. NVRTC from the pinned wheel nvidia-cuda-nvrtc-cu12==12.0.140 writes .version 8.0, and
# ptxas from nvidia-cuda-nvcc-cu12==12.0.140 is the 12.0 assembler: a PTX it accepts for sm_52 and
# sm_90 is accepted by a 12.0 driver's JIT. Target: compute_52 (the oldest architecture CUDA 12 still
# supports), so the same PTX JIT-compiles for every GPU a 12.x or 13.x driver drives.
# The output is byte-for-byte deterministic: same wheel, same sources, same options, and NVRTC is
# given only each source's base name. --std=c++03 keeps NVRTC 12.0 from emitting the dozens of
# unused nv::target constants (<nv/target>, C++11 and later) into every PTX.
#
# Tools are fetched into target/ci-deps/ptx-tools-12.0.140/ (never into the system); needs python3
# with pip (for `pip download`), unzip not needed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kernels="$root/examples/kernels"
tools="$root/target/ci-deps/ptx-tools-12.0.140"
nvrtc_lib="$tools/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"
ptxas="$tools/nvidia/cuda_nvcc/bin/ptxas"
log() { echo "gen-ptx: $*" >&2; }

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# --- tools (pinned wheels) ----------------------------------------------------------------------
if [ ! -f "$nvrtc_lib" ] || [ ! -x "$ptxas" ]; then
  log "downloading nvidia-cuda-nvrtc-cu12==12.0.140 and nvidia-cuda-nvcc-cu12==12.0.140"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux1_x86_64 \
    -d "$tmp" "nvidia-cuda-nvrtc-cu12==12.0.140" "nvidia-cuda-nvcc-cu12==12.0.140" >&2
  rm -rf "$tools" && mkdir -p "$tools"
  python3 - "$tools" "$tmp"/*.whl <<'PY'
import os, stat, sys, zipfile
out = sys.argv[1]
for whl in sys.argv[2:]:
    with zipfile.ZipFile(whl) as z:
        for info in z.infolist():
            n = info.filename
            if n.endswith(("libnvrtc.so.12", "libnvrtc-builtins.so.12.0", "bin/ptxas")):
                dest = os.path.join(out, n)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as f:
                    f.write(z.read(n))
                os.chmod(dest, 0o755)
PY
  rm -rf "$tmp"
  [ -f "$nvrtc_lib" ] && [ -x "$ptxas" ] || { log "tools missing after download"; exit 1; }
fi

# --- what to build: PTX name, CUDA C source, extra NVRTC options -------------------------------
# ptx_link0/1 are relocatable (-rdc): ptx_link0's kernel calls a function defined in ptx_link1,
# and the example links the two with cuLinkAddData(CU_JIT_INPUT_PTX).
common=(--gpu-architecture=compute_52 --std=c++03)
targets=(
  "vector_add:vector_add.cu:"
  "ptx_jit:ptx_jit.cu:"
  "ptx_link0:ptx_link0.cu:--relocatable-device-code=true"
  "ptx_link1:ptx_link1.cu:--relocatable-device-code=true"
  "param_buffer:param_buffer.cu:"
  "context_independent_loading:context_independent_loading.cu:"
)

out="$kernels"
if [ $check = 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

fail=0
for t in "${targets[@]}"; do
  IFS=: read -r name src extra <<<"$t"
  # shellcheck disable=SC2206
  opts=("${common[@]}" $extra)
  python3 "$root/ci/nvrtc-ptx.py" "$nvrtc_lib" "$kernels/$src" "$out/$name.ptx" "${opts[@]}"
  if [ $check = 1 ]; then
    if ! cmp -s "$out/$name.ptx" "$kernels/$name.ptx"; then
      log "examples/kernels/$name.ptx differs from what ci/gen-ptx.sh generates from $src:"
      diff -u "$kernels/$name.ptx" "$out/$name.ptx" | head -40 >&2 || true
      fail=1
    else
      log "examples/kernels/$name.ptx is up to date"
    fi
  else
    log "wrote examples/kernels/$name.ptx"
  fi
done

# --- verification of the committed PTX ----------------------------------------------------------
for t in "${targets[@]}"; do
  IFS=: read -r name src extra <<<"$t"
  ptx="$kernels/$name.ptx"
  [ -f "$ptx" ] || { log "missing $ptx"; fail=1; continue; }
  version=$(sed -n 's/^\.version \([0-9.]*\)$/\1/p' "$ptx")
  if ! python3 -c 'import sys; sys.exit(0 if tuple(map(int, sys.argv[1].split("."))) <= (8, 0) else 1)' "${version:-99.0}"; then
    log "$name.ptx: .version ${version:-?} is newer than 8.0 (CUDA 12.0)"; fail=1
  fi
  rdc=()
  [ -n "$extra" ] && rdc=(--compile-only)   # relocatable: unresolved calls are resolved at link time
  for arch in sm_52 sm_90; do
    if "$ptxas" -arch=$arch "${rdc[@]}" "$ptx" -o /dev/null; then
      log "$name.ptx: .version $version, ptxas 12.0 -arch=$arch ${rdc[*]} ok"
    else
      log "$name.ptx: ptxas 12.0 -arch=$arch ${rdc[*]} FAILED"; fail=1
    fi
  done
done
# The deliberately broken PTX of ptx_jit (hand-written, not generated) must be rejected.
broken="$kernels/ptx_jit_broken.ptx"
if [ -f "$broken" ]; then
  if "$ptxas" -arch=sm_52 "$broken" -o /dev/null 2>/dev/null; then
    log "ptx_jit_broken.ptx: ptxas accepted it, but it must fail to compile"; fail=1
  else
    log "ptx_jit_broken.ptx: rejected by ptxas as intended"
  fi
else
  log "missing $broken"; fail=1
fi

exit $fail
