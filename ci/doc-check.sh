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
#   C spelling cuCtxCreate that binds cuCtxCreate_v4 there);
# - the enum pages (CUresult, CUdevice_attribute) say each line once (the NVIDIA line), show an
#   enumerator's value, and both values of one that changed between the supported headers;
# - no page has a badge of a negated feature ("non-crate feature `table-only`");
# - each of these three checks fails on a copy of a page broken that way (the controls).
# Also cuda-check's docs without its default features: no warning (no broken link).
# Called by ci/test.sh; runs alone too (about a minute, most of it the rustdoc runs).
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
# The facts (fixed strings of its HTML) a page lacks, one a line.
lacking() { # page, facts
  local text
  text=$(<"$1")
  shift
  for fact in "$@"; do
    [[ "$text" == *"$fact"* ]] || echo "[$fact]"
  done
}
# The facts a page holds more than once, one a line.
repeated() { # page, facts
  local file=$1 n
  shift
  for fact in "$@"; do
    n=$(grep -oF -- "$fact" "$file" | wc -l)
    [ "$n" -le 1 ] || echo "[$fact] $n times"
  done
}
# The pages under a folder with a badge of a negated feature.
negated_badges() { # folder
  grep -rlF --include='*.html' 'non-crate feature' "$1" || true
}
# The page must hold every fact.
page() {
  local file=$1 missing
  shift
  [ -f "$file" ] || fail "no page $file"
  missing=$(lacking "$file" "$@")
  [ -z "$missing" ] || fail "$file lacks: $(tr '\n' ' ' <<<"$missing")"
  echo "doc-check: ${file#"$target"/} shows its $# facts"
  checked=$((checked + $#))
}
# The page must hold each fact at most once.
once() {
  local file=$1 twice
  shift
  twice=$(repeated "$file" "$@")
  [ -z "$twice" ] || fail "$file repeats: $(tr '\n' ' ' <<<"$twice")"
  echo "doc-check: ${file#"$target"/} says each of its $# lines once"
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
  'Available on <strong>crate feature' '<code>gl</code></strong> only.'
method "$doc/table/struct.DriverTable.html" cuMemAlloc "$target/DriverTable.cuMemAlloc.html"
page "$target/DriverTable.cuMemAlloc.html" '<code>cuMemAlloc_v2</code>' \
  'href="../entry/constant.cuMemAlloc_v3020.html"' 'the ABI of CUDA 3.2' 'In every supported header'

# The enum pages: the NVIDIA line once, a list item of its own; enumerators with their values;
# CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 93 in cuda.h 11.7 and 11.8, 122 from 12.0 on.
types_line='<li>NVIDIA: <a href="https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html">Data types used by CUDA driver</a></li>'
both_values='<li>Values: <code>93</code> in CUDA 11.7 to 11.8; <code>122</code> since CUDA 12.0</li>'
page "$doc/struct.CUresult.html" "$types_line" '<code>CUDA_ERROR_INVALID_VALUE = 1</code>'
once "$doc/struct.CUresult.html" 'NVIDIA: '
page "$doc/struct.CUdevice_attribute.html" "$types_line" \
  '<code>CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1</code>' \
  '<code>CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122</code>' "$both_values"
once "$doc/struct.CUdevice_attribute.html" 'NVIDIA: '
badged=$(negated_badges "$doc")
[ -z "$badged" ] || fail "a negated feature's badge (\"non-crate feature\") on $(wc -l <<<"$badged") \
pages, first $(head -1 <<<"$badged")"
echo "doc-check: no page has a negated feature's badge"

# The controls: each check finds a page broken its way.
control() { # what was broken, the check's findings
  [ -n "$2" ] || fail "control: the check passes a page with $1"
  echo "doc-check: control: $1: $(head -1 <<<"$2")"
}
broken=$target/broken
rm -rf "$broken" && mkdir -p "$broken/badge"
sed "s|$types_line|&\\n&|" "$doc/struct.CUresult.html" >"$broken/repeat.html"
control "its NVIDIA line twice" "$(repeated "$broken/repeat.html" 'NVIDIA: ')"
sed 's/CUDA_ERROR_INVALID_VALUE = 1/CUDA_ERROR_INVALID_VALUE/' "$doc/struct.CUresult.html" \
  >"$broken/value.html"
control "no value" "$(lacking "$broken/value.html" '<code>CUDA_ERROR_INVALID_VALUE = 1</code>')"
sed 's|<li>Values: <code>93</code> in CUDA 11.7 to 11.8; |<li>Values: |' \
  "$doc/struct.CUdevice_attribute.html" >"$broken/values.html"
control "one value of two" "$(lacking "$broken/values.html" "$both_values")"
sed 's|<div class="docblock">|<div class="stab portability">Available on <strong>non-crate feature <code>table-only</code></strong> only.</div>&|' \
  "$doc/fn.cuMemAlloc_v2.html" >"$broken/badge/fn.cuMemAlloc_v2.html"
control "a negated feature's badge" "$(negated_badges "$broken/badge")"

# cuda-check without its default features (no `std`, no `alloc`): no link to what they add.
docs_rs "$target/cuda-check" cargo rustdoc -p cuda-check --lib --no-default-features -- -D warnings
echo "doc-check: cuda-check without default features: no warning"

# cuda.h 13.0's macro makes cuCtxCreate cuCtxCreate_v4.
build "$target/cuda-13000" "${features/$version/cuda-13000}"
page "$target/cuda-13000/doc/cuda_driver_sys/fn.cuCtxCreate.html" 'C spelling' \
  '<code>cuCtxCreate_v4</code>' \
  'CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);' \
  'href="type.PFN_cuCtxCreate_v12050.html"' 'the ABI of CUDA 12.5' 'group__CUDA__CTX.html' \
  'As written here: since CUDA 13.0'
echo "doc-check: $checked facts found on 9 pages; $documented public items, $percent documented"
