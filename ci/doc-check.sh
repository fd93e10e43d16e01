#!/usr/bin/env bash
# cuda-driver-sys's docs as docs.rs builds them: `DOCS_RS=1`, the features of
# [package.metadata.docs.rs], `--cfg docsrs` (its `doc_cfg` badges; stable rustdoc through
# RUSTC_BOOTSTRAP, as docs.rs's nightly), in an environment of only PATH, HOME, CARGO_HOME and
# RUSTUP_HOME: no CUDA, no driver library, no headers; also with default features, as a dependent's
# `cargo doc` builds it (no broken link where the table is off). Then:
# - the share of documented public items (rustdoc --show-coverage) must be 100%;
# - the rendered pages of a few items must show the facts the generator documents: the header,
#   the C declaration, the symbol a C spelling binds, the CUDA versions, the PFN_* typedef and its
#   ABI, NVIDIA's reference page of the item's group (one more build under cuda-13000, for the
#   C spelling cuCtxCreate that binds cuCtxCreate_v4 there).
# Called by ci/test.sh; runs alone too (about a minute, most of it the three rustdoc runs).
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "doc-check: $*" >&2; exit 1; }
target=$PWD/target/doc-check
features=$(sed -n '/^\[package.metadata.docs.rs\]/,/^\[/s/^features = \[\(.*\)\]/\1/p' \
  cuda-driver-sys/Cargo.toml | tr -d '" ')
[ -n "$features" ] || fail "no features in cuda-driver-sys/Cargo.toml's [package.metadata.docs.rs]"
version=$(tr ',' '\n' <<<"$features" | grep -m1 '^cuda-[0-9]*$') ||
  fail "the docs.rs features name no cuda-<V> version feature"

# As docs.rs: nothing of this machine's CUDA setup reaches the build.
docs_rs() {
  env -i PATH="$PATH" HOME="$HOME" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" \
    RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" DOCS_RS=1 RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_DIR="$1" CARGO_TERM_COLOR=never "${@:2}"
}
build() { # target dir, features
  docs_rs "$1" cargo rustdoc -p cuda-driver-sys --lib --no-default-features --features "$2" \
    -- --cfg docsrs -D warnings
}

# As a dependent's `cargo doc` builds it: default features (no table, no interop), no broken link.
docs_rs "$target/default" cargo rustdoc -p cuda-driver-sys --lib -- -D warnings
echo "doc-check: default features: no warning"
echo "doc-check: features $features"
build "$target/docs-rs" "$features"
coverage=$(docs_rs "$target/coverage" cargo rustdoc -p cuda-driver-sys --lib --no-default-features \
  --features "$features" -- --cfg docsrs -Z unstable-options --show-coverage 2>&1) ||
  { echo "$coverage" >&2; fail "rustdoc --show-coverage failed"; }
total=$(grep '^| Total' <<<"$coverage") || fail "no Total line in rustdoc --show-coverage's table"
echo "doc-check: documented public items: $total"
read -r documented percent <<<"$(awk -F'|' '{ gsub(/ /, ""); print $3, $4 }' <<<"$total")"
[ "$percent" = "100.0%" ] || fail "$percent of the public items documented ($documented), not 100%"

checked=0
# The page must hold every fact (fixed strings of its HTML).
page() {
  local file=$1 text missing=()
  shift
  [ -f "$file" ] || fail "no page $file"
  text=$(<"$file")
  for fact in "$@"; do
    [[ "$text" == *"$fact"* ]] || missing+=("$fact")
  done
  [ ${#missing[@]} -eq 0 ] || fail "$file lacks: $(printf '[%s] ' "${missing[@]}")"
  echo "doc-check: ${file#"$target"/} shows its $# facts"
  checked=$((checked + $#))
}
# One method's part of a type's page, for page().
method() { # page, method, out
  sed -n "/id=\"method\.$2\"/,/id=\"method\./p" "$1" >"$3"
  [ -s "$3" ] || fail "no method $2 on $1"
}

mem=https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html
doc=$target/docs-rs/doc/cuda_driver_sys
alloc_decl='CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);'
page "$doc/fn.cuMemAlloc_v2.html" "$alloc_decl" '<code>cuda.h</code>' 'href="fn.cuMemAlloc.html"' \
  'href="type.PFN_cuMemAlloc_v3020.html"' 'the ABI of CUDA 3.2' "$mem" \
  'In every supported header' 'dynamic-loading'
page "$doc/fn.cuMemAlloc.html" 'C spelling' '<code>cuMemAlloc_v2</code>' "$alloc_decl" \
  'href="type.PFN_cuMemAlloc_v3020.html"' "$mem" 'In every supported header'
page "$doc/struct.CUresult.html" '<code>cuda.h</code>' '<code>enum cudaError_enum</code>' \
  'group__CUDA__TYPES.html' 'valid' 'In every supported header'
page "$doc/type.PFN_cuMemAlloc_v3020.html" '<code>cudaTypedefs.h</code>' \
  'typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);' \
  'the ABI of CUDA 3.2' "$mem" 'In every supported header'
page "$doc/gl/fn.cuGraphicsGLRegisterBuffer.html" '<code>cudaGL.h</code>' \
  'CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource, GLuint buffer, unsigned int Flags);' \
  'PFN_cuGraphicsGLRegisterBuffer_v3000' 'group__CUDA__GL.html' 'In every supported header' \
  'Available on <strong>crate feature <code>gl</code>'
method "$doc/table/struct.DriverTable.html" cuMemAlloc "$target/DriverTable.cuMemAlloc.html"
page "$target/DriverTable.cuMemAlloc.html" '<code>cuMemAlloc_v2</code>' \
  'href="../entry/constant.cuMemAlloc_v3020.html"' 'the ABI of CUDA 3.2' 'In every supported header'

# cuda.h 13.0's macro makes cuCtxCreate cuCtxCreate_v4.
build "$target/cuda-13000" "${features/$version/cuda-13000}"
page "$target/cuda-13000/doc/cuda_driver_sys/fn.cuCtxCreate.html" 'C spelling' \
  '<code>cuCtxCreate_v4</code>' \
  'CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);' \
  'href="type.PFN_cuCtxCreate_v12050.html"' 'the ABI of CUDA 12.5' 'group__CUDA__CTX.html' \
  'As written here: since CUDA 13.0'
echo "doc-check: $checked facts found on 7 pages; $documented public items, $percent documented"
