#!/usr/bin/env bash
# Fetches, into target/ci-deps/ and never into the system, what the tests need on a machine with no
# CUDA and no GPU:
#   headers/<V>/       cuda.h and cudaTypedefs.h from the pinned PyPI wheels (V = 11070 ... 13050)
#   cudart/lib/        the CUDA runtime library libcudart.so.12 of the 12.0 wheel (runtime_interop,
#                      its C twin); it runs on every driver from 12.0 on, so it serves every header
#   cudart/include/    that wheel's runtime headers (cuda_runtime_api.h, driver_types.h, ...), without
#                      cuda.h and cudaTypedefs.h (the driver's headers are those of headers/<V>),
#                      and the crt/ headers they include, which CUDA ships with nvcc
#                      (nvidia-cuda-nvcc-cu12==12.0.140, the wheel ci/gen-ptx.sh takes ptxas from)
#                      with the interop headers of the same wheel (cudaGL.h, cudaEGL.h, cudaVDPAU.h,
#                      their typedef headers, cudaProfilerTypedefs.h) and cudaProfiler.h from the
#                      nvidia-cuda-profiler-api wheel of the same CUDA minor (11.8's for 11.7)
#   interop/include/   the GL, EGL, KHR and VDPAU headers the interop headers include (Debian bookworm
#                      libgl-dev, libegl-dev, libvdpau-dev): for generating and checking the bindings
#                      only; no OpenGL, EGL or VDPAU library is used at build or run time
#   driver/            the real NVIDIA driver library (Debian bookworm non-free libcuda1 535.x)
#   driver-470/        an 11.x driver library (Debian bullseye non-free libcuda1 470.x, CUDA 11.4)
#   clang/             libclang for bindgen (Debian libclang1-14 + libclang-common-14-dev)
#   driver-arm64/      with --arm64-driver: the arm64 build of the 535 driver library
#   cudart-arm64/lib/  with --arm64-driver: the aarch64 libcudart.so.12 (12.3 runtime wheel)
#   rust-cross/        with --cross-rust: Debian's rustc-web with the standard library for aarch64
#                      Linux and the sources for Windows (-Zbuild-std); rust-cross/rustc runs it
# and prints the environment to use them (`eval "$(ci/fetch-deps.sh)"`). Idempotent: what is
# already there is not fetched again.
set -euo pipefail
arm64_driver= cross_rust=
for arg in "$@"; do
  case $arg in
    --arm64-driver) arm64_driver=1 ;;
    --cross-rust) cross_rust=1 ;;
    *) echo "usage: ci/fetch-deps.sh [--arm64-driver] [--cross-rust]" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/target/ci-deps"
mkdir -p "$deps"
log() { echo "fetch-deps: $*" >&2; }
wheels() { # arch dest requirement...: `pip download` of the wheels built for Linux on arch
  local arch=$1 dest=$2; shift 2
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform "manylinux2014_$arch" --platform "manylinux_2_17_$arch" --platform "manylinux1_$arch" \
    -d "$dest" "$@" >&2
}

# --- CUDA headers (pinned wheels) -------------------------------------------------------------
# cuda-driver-sys/versions.txt: per CUDA version, the runtime wheel (cuda.h, cudaTypedefs.h, the
# interop headers) and the profiler wheel (cudaProfiler.h).
versions=()
declare -A wheel=() profiler_wheel=()
while read -r v runtime profiler _tags; do
  case "$v" in '' | '#'*) continue ;; esac
  versions+=("$v")
  wheel[$v]=$runtime
  profiler_wheel[$v]=$profiler
done <"$root/cuda-driver-sys/versions.txt"
for v in "${versions[@]}"; do
  dir="$deps/headers/$v"
  [ -f "$dir/cuda.h" ] && [ -f "$dir/cudaTypedefs.h" ] && [ -f "$dir/cudaGL.h" ] && continue
  log "downloading ${wheel[$v]} for cuda.h, cudaTypedefs.h and the interop headers"
  tmp=$(mktemp -d)
  wheels x86_64 "$tmp" "${wheel[$v]}"
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
# releases do not always match the runtime's patch number (versions.txt says which).
for v in "${!profiler_wheel[@]}"; do
  dir="$deps/headers/$v"
  [ -f "$dir/cudaProfiler.h" ] && continue
  log "downloading ${profiler_wheel[$v]} for cudaProfiler.h"
  tmp=$(mktemp -d)
  wheels x86_64 "$tmp" "${profiler_wheel[$v]}"
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

# --- CUDA runtime (the 12.0 wheel's libcudart.so.12 and runtime headers) --------------------------
if [ ! -e "$deps/cudart/lib/libcudart.so.12" ] || [ ! -f "$deps/cudart/include/cuda_runtime_api.h" ] ||
   [ ! -f "$deps/cudart/include/crt/host_defines.h" ]; then
  log "downloading ${wheel[12000]} and nvidia-cuda-nvcc-cu12==12.0.140 for libcudart.so.12 and the runtime headers"
  tmp=$(mktemp -d)
  wheels x86_64 "$tmp" "${wheel[12000]}" "nvidia-cuda-nvcc-cu12==12.0.140"
  rm -rf "$deps/cudart" && mkdir -p "$deps/cudart/lib" "$deps/cudart/include"
  python3 - "$deps/cudart" "$tmp"/*.whl <<'PY'
import sys, zipfile, os
out = sys.argv[1]
takes = [  # (folder in the wheel, what of it, where under out)
    ("nvidia/cuda_runtime/include/", lambda rel: rel.endswith((".h", ".hpp"))
        and rel not in ("cuda.h", "cudaTypedefs.h"), "include"),
    ("nvidia/cuda_runtime/lib/", lambda rel: rel == "libcudart.so.12", "lib"),
    ("nvidia/cuda_nvcc/include/", lambda rel: rel.startswith("crt/") and rel.endswith((".h", ".hpp")), "include"),
]
for whl in sys.argv[2:]:
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            for folder, wanted, to in takes:
                if n.startswith(folder) and wanted(n[len(folder):]):
                    dest = os.path.join(out, to, n[len(folder):])
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    with open(dest, "wb") as f:
                        f.write(z.read(n))
PY
  rm -rf "$tmp"
  if [ ! -e "$deps/cudart/lib/libcudart.so.12" ] || [ ! -f "$deps/cudart/include/cuda_runtime_api.h" ] ||
     [ ! -f "$deps/cudart/include/crt/host_defines.h" ]; then
    log "FAILED: no libcudart.so.12, cuda_runtime_api.h or crt/host_defines.h from those wheels"
    rm -rf "$deps/cudart"
    exit 1
  fi
fi
# The aarch64 libcudart.so.12, with --arm64-driver: the C twins built for aarch64 link it and run
# it under qemu-aarch64 (their headers are the x86-64 wheel's above, the same on both). 12.3 is the
# oldest runtime wheel built for aarch64; CUDA's minor-version compatibility runs it on the 535
# driver (CUDA 12.2).
cudart_arm64=nvidia-cuda-runtime-cu12==12.3.101
if [ -n "$arm64_driver" ] && [ ! -e "$deps/cudart-arm64/lib/libcudart.so.12" ]; then
  log "downloading $cudart_arm64 (aarch64) for its libcudart.so.12"
  tmp=$(mktemp -d)
  wheels aarch64 "$tmp" "$cudart_arm64"
  rm -rf "$deps/cudart-arm64" && mkdir -p "$deps/cudart-arm64/lib"
  python3 -m zipfile -e "$tmp"/*.whl "$tmp/unpacked"
  cp "$tmp/unpacked/nvidia/cuda_runtime/lib/libcudart.so.12" "$deps/cudart-arm64/lib/" ||
    { log "FAILED: no nvidia/cuda_runtime/lib/libcudart.so.12 in $cudart_arm64"; rm -rf "$tmp" "$deps/cudart-arm64"; exit 1; }
  rm -rf "$tmp"
fi

# --- Debian packages (driver library, libclang) --------------------------------------------------
# The driver libraries come from the `non-free` component of bookworm (535) and bullseye (470),
# fetched from the mirror this machine's own apt configuration names (deb822
# /etc/apt/sources.list.d/*.sources, or one-line /etc/apt/sources.list and *.list): no host is
# written in the repository. The sources list is written into target/ci-deps/apt/ at fetch time.
apt_sources() { # suite component -> path of a sources list for "<suite> <component>" on this
  # machine's mirror: the source that names the suite (bookworm-security), else the Debian archive's
  local suite=$1 component=$2 list="$deps/apt/$1-$2.list"
  mkdir -p "$deps/apt"
  python3 - "$suite" "$component" /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    >"$list" <<'PY' || { log "FAILED: $(cat "$list")"; exit 1; }
import os, sys
suite, component, files = sys.argv[1], sys.argv[2], [f for f in sys.argv[3:] if os.path.isfile(f)]
keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
# (uri, signed-by) of each enabled `deb` source that names the suite, then of each whose suites
# include a release itself (no -updates, -security, -backports): the Debian archive.
named, found = [], []
for path in files:
    text = open(path, encoding="utf-8", errors="replace").read()
    if path.endswith(".sources"):  # deb822 stanzas
        for stanza in text.split("\n\n"):
            fields, key = {}, None
            for line in stanza.splitlines():
                if line.startswith("#") or not line.strip():
                    continue
                if line[0] in " \t" and key:
                    fields[key] += " " + line.strip()
                elif ":" in line:
                    key, value = line.split(":", 1)
                    key = key.strip().lower()
                    fields[key] = value.strip()
            if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes") == "no":
                continue
            suites = fields.get("suites", "").split()
            for uri in fields.get("uris", "").split():
                source = (uri, fields.get("signed-by", keyring))
                if suite in suites:
                    named.append(source)
                if any("-" not in s for s in suites):
                    found.append(source)
    else:  # one-line format: deb [option=value ...] uri suite components...
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if not line.startswith("deb "):
                continue
            options, rest = {}, line[4:].strip()
            if rest.startswith("["):
                inside, rest = rest[1:].split("]", 1)
                options = dict(o.split("=", 1) for o in inside.split() if "=" in o)
            words = rest.split()
            if len(words) >= 2:
                source = (words[0], options.get("signed-by", keyring))
                if words[1] == suite:
                    named.append(source)
                if "-" not in words[1]:
                    found.append(source)
found = named + ([] if "-" in suite else found)
if not found:
    print("no Debian archive (a `deb` source of a release suite) in " + ", ".join(files)
          + f": add one to /etc/apt/sources.list.d/ to fetch from {suite} {component}")
    sys.exit(1)
uri, signed_by = found[0]
if not signed_by.startswith("/"):  # a key embedded in the stanza: the archive keyring instead
    signed_by = keyring
print(f"# From this machine's apt configuration ({', '.join(files)}), written by ci/fetch-deps.sh.")
print(f"deb [signed-by={signed_by}] {uri} {suite} {component}")
PY
  echo "$list"
}
apt_download() { # suite component dest pkg...: `apt-get download` from "<suite> <component>", as
  # this user; with $APT_ARCH set (arm64), that architecture's packages
  local suite=$1 component=$2 dest=$3; shift 3
  local list state="$deps/apt/$suite-$component${APT_ARCH:+-$APT_ARCH}"
  list=$(apt_sources "$suite" "$component")
  log "$suite $component from: $(grep '^deb' "$list")"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$dest"
  # As the invoking user, not apt's `_apt` sandbox user: the files are ours, under target/.
  local opts=(-o "Dir::Etc::SourceList=$list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1
              -o APT::Sandbox::User="$(id -un)")
  if [ -n "${APT_ARCH:-}" ]; then
    opts+=(-o "APT::Architecture=$APT_ARCH" -o "APT::Architectures=$APT_ARCH")
  fi
  apt-get "${opts[@]}" update >&2
  (cd "$dest" && apt-get "${opts[@]}" download "$@" >&2)
}
# Debian's libcuda1 (with PACKAGES) of "SUITE non-free" unpacked into $deps/NAME, lib/ being the
# folder of its libcuda.so.1 (ARCH: its multiarch folder under usr/lib; with $APT_ARCH set, that
# architecture's packages). WHAT: the log's words for it.
driver_library() { # name suite arch what packages...
  local name=$1 suite=$2 arch=$3 what=$4; shift 4
  [ -e "$deps/$name/lib/libcuda.so.1" ] && return
  log "downloading $* $what ($suite non-free)"
  rm -rf "${deps:?}/$name" && mkdir -p "$deps/$name/debs"
  apt_download "$suite" non-free "$deps/$name/debs" "$@"
  for f in "$deps/$name"/debs/*.deb; do dpkg -x "$f" "$deps/$name/root"; done
  ln -sfn "root/usr/lib/$arch/nvidia/current" "$deps/$name/lib"
  if [ ! -e "$deps/$name/lib/libcuda.so.1" ]; then
    log "FAILED: no libcuda.so.1 from $1 $what ($suite non-free, $deps/apt/$suite-non-free.list); see apt's messages above"
    rm -rf "${deps:?}/$name"
    exit 1
  fi
}
driver_library driver bookworm x86_64-linux-gnu "535.x" libcuda1 libnvidia-ptxjitcompiler1
# An 11.x driver: CUDA 11.4, with cuGetProcAddress (v1) and no cuGetProcAddress_v2.
driver_library driver-470 bullseye x86_64-linux-gnu "470.x" libcuda1
# The arm64 build of the same 535 library, for ci/platforms.sh (loaded under qemu-aarch64): only
# with --arm64-driver.
if [ -n "$arm64_driver" ]; then
  APT_ARCH=arm64 driver_library driver-arm64 bookworm aarch64-linux-gnu "535.x for arm64" libcuda1
fi

# --- Rust for aarch64 Linux and x86-64 Windows (with --cross-rust) --------------------------------
# Debian's rustc-web (bookworm-security): the compiler with its LLVM, its standard library for
# x86-64 (build scripts, proc macros) and aarch64 Linux, and its sources (Windows: -Zbuild-std),
# unpacked into rust-cross/root, never installed; rust-cross/rustc runs it with that sysroot (for
# cargo's RUSTC). Pinned: security updates replace a version, so a missing one fails with the
# versions apt has.
rust_cross_version=1.96.0+dfsg1-1~deb12u2 rust_cross_llvm=1:22.1.8-1~deb12u1
rust_cross=$deps/rust-cross
if [ -n "$cross_rust" ] && [ ! -x "$rust_cross/rustc" ]; then
  log "downloading rustc-web $rust_cross_version and its standard library for x86-64 and arm64 (bookworm-security main)"
  rm -rf "$rust_cross" && mkdir -p "$rust_cross/debs"
  v=$rust_cross_version
  apt_download bookworm-security main "$rust_cross/debs" rustc-web="$v" libstd-rust-web-1.96="$v" \
    libstd-rust-web-dev="$v" rust-web-src="$v" libllvm22="$rust_cross_llvm" ||
    { log "FAILED: rustc-web $v is not in bookworm-security: set rust_cross_version in ci/fetch-deps.sh to one of: $(apt-cache madison rustc-web | awk '{print $3}' | tr '\n' ' ')"; exit 1; }
  APT_ARCH=arm64 apt_download bookworm-security main "$rust_cross/debs" libstd-rust-web-1.96="$v" libstd-rust-web-dev="$v"
  for f in "$rust_cross"/debs/*.deb; do dpkg -x "$f" "$rust_cross/root"; done
  cat >"$rust_cross/rustc" <<WRAPPER
#!/bin/sh
# Debian's rustc-web $v, unpacked by ci/fetch-deps.sh --cross-rust
LD_LIBRARY_PATH="$rust_cross/root/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$rust_cross/root/usr/bin/rustc" --sysroot "$rust_cross/root/usr" "\$@"
WRAPPER
  chmod +x "$rust_cross/rustc"
  for target in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu; do
    if [ ! -d "$rust_cross/root/usr/lib/rustlib/$target/lib" ]; then
      log "FAILED: no standard library for $target in $rust_cross/root; see apt's messages above"
      rm -rf "$rust_cross"
      exit 1
    fi
  done
  if ! "$rust_cross/rustc" -vV >&2; then
    log "FAILED: $rust_cross/rustc does not run"
    rm -rf "$rust_cross"
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

for v in "${versions[@]}"; do echo "export CUDA_HEADERS_$v=\"$deps/headers/$v\""; done
echo "export CUDA_VERSIONS=\"${versions[*]}\""
cat <<ENV
export CUDA_LIBRARY_PATH="$deps/driver/lib"
export CUDA_DRIVER_470="$deps/driver-470/lib"
export CUDA_DRIVER_ARM64="$deps/driver-arm64/lib"
export CUDART_LIBRARY_PATH_ARM64="$deps/cudart-arm64/lib"
export RUST_CROSS_RUSTC="$rust_cross/rustc"
export CUDART_LIBRARY_PATH="$deps/cudart/lib"
export CUDART_INCLUDE_PATH="$deps/cudart/include"
export LD_LIBRARY_PATH="$deps/driver/lib:$deps/clang/root/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export LIBCLANG_PATH="$deps/clang/lib"
export CUDA_INTEROP_INCLUDE="$deps/interop/include"
export BINDGEN_EXTRA_CLANG_ARGS="-resource-dir=$(ls -d "$deps"/clang/root/usr/lib/clang/*.*.* | head -n 1)"
ENV
