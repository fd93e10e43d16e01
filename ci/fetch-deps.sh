#!/usr/bin/env bash
# Fetches, into target/ci-deps/ and never into the system, what the tests need on a machine with no
# CUDA and no GPU:
#   headers/<V>/       cuda.h and cudaTypedefs.h from the pinned PyPI wheels (V = 12000, 12090, 13000),
#                      with the interop headers of the same wheel (cudaGL.h, cudaEGL.h, cudaVDPAU.h,
#                      their typedef headers, cudaProfilerTypedefs.h) and cudaProfiler.h from the
#                      nvidia-cuda-profiler-api wheel of the same CUDA release
#   interop/include/   the GL, EGL, KHR and VDPAU headers the interop headers include (Debian bookworm
#                      libgl-dev, libegl-dev, libvdpau-dev): for generating and checking the bindings
#                      only; no OpenGL, EGL or VDPAU library is used at build or run time
#   driver/            the real NVIDIA driver library (Debian bookworm non-free libcuda1 535.x)
#   clang/             libclang for bindgen (Debian libclang1-14 + libclang-common-14-dev)
# and prints the environment to use them (`eval "$(ci/fetch-deps.sh)"`). Idempotent: what is
# already there is not fetched again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/target/ci-deps"
mkdir -p "$deps"
log() { echo "fetch-deps: $*" >&2; }

# --- CUDA headers (pinned wheels) -------------------------------------------------------------
declare -A wheel=(
  [12000]="nvidia-cuda-runtime-cu12==12.0.146"
  [12090]="nvidia-cuda-runtime-cu12==12.9.79"
  [13000]="nvidia-cuda-runtime==13.0.96"
)
for v in 12000 12090 13000; do
  dir="$deps/headers/$v"
  [ -f "$dir/cuda.h" ] && [ -f "$dir/cudaTypedefs.h" ] && [ -f "$dir/cudaGL.h" ] && continue
  log "downloading ${wheel[$v]} for cuda.h, cudaTypedefs.h and the interop headers"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux1_x86_64 \
    -d "$tmp" "${wheel[$v]}" >&2
  mkdir -p "$dir"
  python3 - "$tmp"/*.whl "$dir" <<'PY'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if os.path.basename(n) in ("cuda.h", "cudaTypedefs.h", "cudaGL.h", "cudaGLTypedefs.h",
                                   "cudaEGL.h", "cudaEGLTypedefs.h", "cudaVDPAU.h",
                                   "cudaVDPAUTypedefs.h", "cudaProfilerTypedefs.h") and "/include/" in n:
            with open(os.path.join(out, os.path.basename(n)), "wb") as f:
                f.write(z.read(n))
PY
  rm -rf "$tmp"
  [ -f "$dir/cuda.h" ] && [ -f "$dir/cudaTypedefs.h" ] && [ -f "$dir/cudaGL.h" ] || { log "no headers in ${wheel[$v]}"; exit 1; }
done

# cudaProfiler.h is not in the runtime wheel but in nvidia-cuda-profiler-api(-cu12), whose
# releases do not always match the runtime's patch number: the release of the same CUDA minor
# version (the header is the same in all of them).
declare -A profiler_wheel=(
  [12000]="nvidia-cuda-profiler-api-cu12==12.0.140"
  [12090]="nvidia-cuda-profiler-api-cu12==12.9.79"
  [13000]="nvidia-cuda-profiler-api==13.0.85"
)
for v in "${!profiler_wheel[@]}"; do
  dir="$deps/headers/$v"
  [ -f "$dir/cudaProfiler.h" ] && continue
  log "downloading ${profiler_wheel[$v]} for cudaProfiler.h"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux1_x86_64 \
    -d "$tmp" "${profiler_wheel[$v]}" >&2
  python3 - "$tmp"/*.whl "$dir" <<'PY'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if os.path.basename(n) == "cudaProfiler.h" and "/include/" in n:
            with open(os.path.join(out, "cudaProfiler.h"), "wb") as f:
                f.write(z.read(n))
PY
  rm -rf "$tmp"
  [ -f "$dir/cudaProfiler.h" ] || { log "no cudaProfiler.h in ${profiler_wheel[$v]}"; exit 1; }
done

# --- Debian packages (driver library, libclang) --------------------------------------------------
apt_download() { # dest pkg...
  local dest=$1; shift
  local state="$deps/apt"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$dest"
  # As the invoking user, not apt's `_apt` sandbox user: the files are ours, under target/.
  local opts=(-o "Dir::Etc::SourceList=$root/ci/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1
              -o APT::Sandbox::User="$(id -un)")
  if [ ! -f "$state/updated" ]; then
    apt-get "${opts[@]}" update >&2 && touch "$state/updated"
  fi
  (cd "$dest" && apt-get "${opts[@]}" download "$@" >&2 2>/dev/null || apt-get "${opts[@]}" download "$@" >&2)
}
if [ ! -e "$deps/driver/lib/libcuda.so.1" ]; then
  log "downloading libcuda1 and libnvidia-ptxjitcompiler1 (bookworm non-free)"
  rm -rf "$deps/driver" && mkdir -p "$deps/driver/debs"
  apt_download "$deps/driver/debs" libcuda1 libnvidia-ptxjitcompiler1
  for f in "$deps"/driver/debs/*.deb; do dpkg -x "$f" "$deps/driver/root"; done
  ln -sfn root/usr/lib/x86_64-linux-gnu/nvidia/current "$deps/driver/lib"
  if [ ! -e "$deps/driver/lib/libcuda.so.1" ]; then
    log "FAILED: no libcuda.so.1 from libcuda1 (bookworm non-free, ci/apt/sources.list); see apt's messages above"
    rm -rf "$deps/driver"
    exit 1
  fi
fi
if [ ! -e "$deps/clang/lib/libclang.so.1" ]; then
  log "downloading libclang1-14 and libclang-common-14-dev (bookworm main)"
  rm -rf "$deps/clang" && mkdir -p "$deps/clang/debs"
  pkgs=(libclang1-14 libclang-common-14-dev)
  ldconfig -p | grep -q 'libLLVM-14.so' || pkgs+=(libllvm14)
  # bookworm main: the system's own sources
  (cd "$deps/clang/debs" && apt-get download "${pkgs[@]}" >&2 2>/dev/null || (apt-get update >&2 && cd "$deps/clang/debs" && apt-get download "${pkgs[@]}" >&2))
  for f in "$deps"/clang/debs/*.deb; do dpkg -x "$f" "$deps/clang/root"; done
  ln -sfn root/usr/lib/llvm-14/lib "$deps/clang/lib"
  if [ ! -e "$deps/clang/lib/libclang.so.1" ]; then
    log "FAILED: no libclang.so.1 from libclang1-14 (bookworm main); see apt's messages above"
    rm -rf "$deps/clang"
    exit 1
  fi
fi
# The OpenGL, EGL (with KHR/khrplatform.h) and VDPAU headers cudaGL.h, cudaEGL.h and cudaVDPAU.h
# include: Debian bookworm main, the system's own sources, as for libclang.
if [ ! -f "$deps/interop/include/vdpau/vdpau.h" ] || [ ! -f "$deps/interop/include/EGL/eglext.h" ]; then
  log "downloading libgl-dev, libegl-dev and libvdpau-dev (bookworm main) for their headers"
  rm -rf "$deps/interop" && mkdir -p "$deps/interop/debs"
  (cd "$deps/interop/debs" && apt-get download libgl-dev libegl-dev libvdpau-dev >&2 2>/dev/null \
    || (apt-get update >&2 && cd "$deps/interop/debs" && apt-get download libgl-dev libegl-dev libvdpau-dev >&2))
  for f in "$deps"/interop/debs/*.deb; do dpkg -x "$f" "$deps/interop/root"; done
  ln -sfn root/usr/include "$deps/interop/include"
  for h in GL/gl.h KHR/khrplatform.h EGL/egl.h EGL/eglext.h vdpau/vdpau.h; do
    if [ ! -f "$deps/interop/include/$h" ]; then
      log "FAILED: no $h from libgl-dev/libegl-dev/libvdpau-dev (bookworm main); see apt's messages above"
      rm -rf "$deps/interop"
      exit 1
    fi
  done
fi

cat <<ENV
export CUDA_HEADERS_12000="$deps/headers/12000"
export CUDA_HEADERS_12090="$deps/headers/12090"
export CUDA_HEADERS_13000="$deps/headers/13000"
export CUDA_LIBRARY_PATH="$deps/driver/lib"
export LD_LIBRARY_PATH="$deps/driver/lib:$deps/clang/root/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export LIBCLANG_PATH="$deps/clang/lib"
export CUDA_INTEROP_INCLUDE="$deps/interop/include"
export BINDGEN_EXTRA_CLANG_ARGS="-resource-dir=$(ls -d "$deps"/clang/root/usr/lib/clang/*.*.* | head -n 1)"
ENV
