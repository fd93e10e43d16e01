#!/usr/bin/env bash
# The `dynamic-loading` checks, called by ci/test.sh; runs alone too. Without a GPU:
# 1. the test binaries (tests/dynamic.rs, driver.rs, table.rs) and every example built with
#    `dynamic-loading` load no driver library: no libcuda in `readelf -d`'s NEEDED and no undefined
#    `cu*` symbol in `nm -D --undefined-only` (but `dlopen`, which the loader calls);
# 2. with Debian's 535 library on LD_LIBRARY_PATH they pass the tests the linked build passes
#    (every function's pointer equal to `dlsym`'s of its symbol, the table, the examples' output
#    identical to their C twins'), for the 12.0 header in both stream modes and the 13.0 header
#    (whose functions newer than the 535 driver return CUDA_ERROR_NOT_FOUND), and the 11.8 header,
#    whose loader bootstraps CUDA 11's `cuGetProcAddress` (v1: the header has no `_v2`);
# 2b. the 11.8 binaries start on Debian bullseye's 470 driver (CUDA 11.4), which exports no
#    `cuGetProcAddress_v2`, and the table resolves what that driver has;
# 3. with no driver library reachable at all (this machine's loader cache has none, and
#    LD_LIBRARY_PATH is unset) the same binaries start, report the load failure as a value and
#    through check_driver!, and exit 0 (the `#[ignore]`d tests, run with --ignored).
. "$(dirname "$0")/common.sh" dynamic-loading dynamic-check
export CUDA_DRIVER_EXPECT_VERSION=12020 CUDA_DRIVER_EXPECT_NO_DEVICE=1
real_lib=$LD_LIBRARY_PATH

# The 13.0 header's C twins link symbols the 535 library lacks: they link a stub (run: the real one).
stub=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$stub" "$log"' EXIT
cargo xtask stub-libcuda "$stub"

# No libcuda in NEEDED, no undefined cu* symbol; dlopen imported (the loader is there: the check
# looked at the right thing).
check_binary() { # path
  local bin=$1 needed imports
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  imports=$(nm -D --undefined-only "$bin" | awk '{print $NF}')
  echo "  $(basename "$bin"): NEEDED $needed; undefined cu* symbols: $(grep -c '^cu' <<<"$imports" || true)"
  [[ "$needed" != *libcuda* ]] || fail "$bin loads libcuda at start: NEEDED $needed"
  ! grep '^cu' <<<"$imports" || fail "$bin imports the driver symbols above"
  grep -q '^dlopen' <<<"$imports" || fail "$bin imports no dlopen: it does not contain the loader"
  ! readelf -d "$bin" | grep -q 'R\(UN\)\{0,1\}PATH' || fail "$bin has an RPATH/RUNPATH"
}

step "no driver library in this machine's loader cache"
if ldconfig -p | grep -i 'libcuda\.so'; then
  fail "ldconfig knows the libcuda above: the no-library runs need a machine without the NVIDIA \
driver library (a container without the GPU runtime hook); run this script there"
fi
echo "  ldconfig -p: no libcuda"

# configuration: name, cargo features, whether the examples are built and compared
configs=(
  "12000|cuda-12000,interop,dynamic-loading|examples"
  "12000-pt|cuda-12000,interop,per-thread-default-stream,dynamic-loading|examples"
  "13000|cuda-13000,interop,dynamic-loading|"
  "11080|cuda-11080,dynamic-loading|"
)
for config in "${configs[@]}"; do
  IFS='|' read -r tag features examples <<<"$config"
  link_dir=$CUDA_LIBRARY_PATH
  # Headers newer than the 535 driver (12.2): the C twins link the stub.
  [[ "$features" =~ cuda-([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 12030 ] && link_dir=$stub
  args=(--no-default-features --features "$features")
  binaries=(dynamic load_from driver table)
  # The interop modules (profiler, gl, egl, vdpau) through the same loader.
  [[ "$features" == *interop* ]] && binaries+=(interop)
  tests=()
  for t in "${binaries[@]}"; do tests+=(--test "$t"); done
  [ -n "$examples" ] && tests+=(--test examples_parity)

  step "$tag: clippy, and the crate's docs (warnings denied)"
  CUDA_LIBRARY_PATH=$link_dir cargo clippy --workspace --all-targets "${args[@]}" -- -D warnings
  # cuda-driver-sys names the interop modules' features itself; `table` as on docs.rs (the crate
  # docs link `table()`).
  RUSTDOCFLAGS="-D warnings" cargo doc -p cuda-driver-sys --no-deps --no-default-features \
    --features "${features//interop/profiler,gl,egl,vdpau},table"

  step "$tag: build, and check the binaries load no driver library"
  built=$(CUDA_LIBRARY_PATH=$link_dir cargo test --no-run --message-format=json "${args[@]}" "${tests[@]}" | artifacts)
  declare -A bins=()
  while read -r kind name path; do bins[$name]=$path; done <<<"$built"
  for t in "${binaries[@]}"; do
    [ -x "${bins[$t]:-}" ] || fail "$tag: the $t test binary was not built"
    check_binary "${bins[$t]}"
  done
  examples_dir=""
  if [ -n "$examples" ]; then
    built=$(CUDA_LIBRARY_PATH=$link_dir cargo build --examples --message-format=json "${args[@]}" | artifacts)
    n=0
    while read -r kind name path; do
      [ "$kind" = example ] || continue
      check_binary "$path"
      examples_dir=$(dirname "$path")
      n=$((n + 1))
    done <<<"$built"
    want=$(ls examples/*.rs | wc -l)
    [ "$n" = "$want" ] || fail "$tag: $n examples built, not $want (examples/*.rs)"
  fi

  step "$tag: with Debian's 535 library"
  CUDA_LIBRARY_PATH=$link_dir cargo test "${args[@]}" "${tests[@]}" -- --nocapture | tee "$log"
  grep -q '^  path: loaded ' "$log" || fail "$tag: load_from did not load the library by its path"

  step "$tag: with no driver library reachable (LD_LIBRARY_PATH unset)"
  env -u LD_LIBRARY_PATH "${bins[dynamic]}" --ignored --nocapture
  env -u LD_LIBRARY_PATH "${bins[load_from]}"
  if [ -n "$examples" ]; then
    env -u LD_LIBRARY_PATH CUDA_EXAMPLES_DIR="$examples_dir" "${bins[examples_parity]}" \
      --ignored --exact examples_start_without_the_driver_library --nocapture
  fi
  if [ "$tag" = 11080 ]; then
    step "$tag: on Debian bullseye's 470 driver (CUDA 11.4: cuGetProcAddress v1 only)"
    ! nm -D --defined-only "$CUDA_DRIVER_470/libcuda.so.1" | grep -qw cuGetProcAddress_v2 ||
      fail "the 470 library exports cuGetProcAddress_v2: this step would not show the v1 bootstrap"
    LD_LIBRARY_PATH="$CUDA_DRIVER_470" "${bins[table]}" --exact \
      table_resolves_what_the_driver_has_and_names_the_rest --nocapture | tee "$log"
    grep -q 'on driver 11040' "$log" || fail "$tag: the table did not run on the 470 driver"
  fi
  unset bins
  export LD_LIBRARY_PATH=$real_lib
done
echo
echo "dynamic-check: all passed"
