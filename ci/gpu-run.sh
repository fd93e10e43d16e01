#!/usr/bin/env bash
# Runs the bundle that ci/gpu-bundle.sh built, on a machine with NVIDIA GPUs (copied there as
# run.sh). One command: ./run.sh [OUT]. Prints one line per check and a summary; exits non-zero
# on any failure. Logs of every step go to OUT. GPU_RUN_PARTS picks the parts to run, to fit a
# time limit per command (default: "tests sanitizer bench rustacuda").
set -uo pipefail
parts=" ${GPU_RUN_PARTS:-tests sanitizer bench rustacuda} "
want() { [[ "$parts" == *" $1 "* ]]; }
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
export CUDA_KERNELS_DIR="$here/kernels"
# The CUDA runtime that runtime_interop (dlopen) and its C twin (linked) use: the bundle's own.
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDA_EXPECT_GPU=1 CUDA_CACHE_DISABLE=1
failures=()
run() { # name command...: runs, logs to $out/name.log, prints one line
  local name=$1; shift
  if "$@" >"$out/$name.log" 2>&1; then
    printf '%-44s ok\n' "$name"
  else
    printf '%-44s FAILED (exit %s; %s)\n' "$name" "$?" "$out/$name.log"
    failures+=("$name")
  fi
}

echo "== machine"
nvidia-smi --query-gpu=index,name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv | tee "$out/gpus.csv"
date -u +"%Y-%m-%dT%H:%M:%SZ" | tee "$out/date"

want tests && echo "== tests (each test binary; logs in $out)"
want tests && for t in "$here"/tests/*; do
  tag=${t##*/}; tag=${tag#*-} # tests/<name>-<tag>
  CUDA_EXAMPLES_DIR="$here/examples-$tag" CUDA_C_TWIN_DIR="$here/c-twins-$tag" \
    run "$(basename "$t")" "$t" --test-threads 1 --nocapture
done
want tests && grep -h 'parity ok\|PARITY\|Result\|C spellings:\|C spellings;\|table, \|dynamic-loading, \|table of the\|functions of the\|resolved\|vector_add through' "$out"/*.log | sed 's/^/  /' | head -100

# Part of the tests (GPU_RUN_PARTS).
if want tests; then
echo "== OpenGL interop through headless EGL (tests/gl_interop-* --ignored: linked, dynamic-loading)"
# The loaders: the machine's, else the carried Debian packages (unpacked into /, as the device
# notes say; nothing else is unpacked there). The NVIDIA EGL vendor file where the driver has one.
if ldconfig -p | grep -q 'libEGL.so.1'; then
  echo "  loaders: the machine's ($(ldconfig -p | grep -m1 'libEGL.so.1' | sed 's/.*=> //'))"
else
  for f in "$here"/gl-debs/*.deb; do dpkg -x "$f" /; done
  ldconfig
  echo "  loaders: unpacked from gl-debs/ ($(ls "$here"/gl-debs | tr '\n' ' '))"
fi
for j in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -f "$j" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES=$j; break; }
done
echo "  EGL vendor file: ${__EGL_VENDOR_LIBRARY_FILENAMES:-the glvnd default search}"
for t in "$here"/tests/gl_interop-*; do
  name=$(basename "$t")-ignored
  run "$name" "$t" --ignored --test-threads 1 --nocapture
  grep -h 'EGL \|OpenGL \|GL buffer\|panicked\|failed' "$out/$name.log" | sed 's/^/  /'
done

echo "== profiler: ncu --profile-from-start off (kernels profiled only between cuProfilerStart and cuProfilerStop)"
# The profiler example opens the range around its launch; vector_add, the same program without
# the two calls, must have nothing profiled. nsys is used too where the machine has it.
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1 || true)
if [ -n "$ncu_bin" ]; then
  for tag in 12000 12000-dyn 13000; do
    for ex in profiler vector_add; do
      name=ncu-$ex-$tag
      run "$name" "$ncu_bin" --profile-from-start off --section LaunchStats "$here/examples-$tag/$ex" "$here/kernels"
      n=$(grep -c '^==PROF== Profiling' "$out/$name.log" || true)
      echo "  $name: $n kernel(s) profiled; $(grep -h 'Result\|cuProfilerStart' "$out/$name.log" | tr '\n' ' ')"
      if { [ "$ex" = profiler ] && [ "$n" -lt 1 ]; } || { [ "$ex" = vector_add ] && [ "$n" -ne 0 ]; }; then
        echo "  $name: FAILED (profiler: at least one kernel inside the range; vector_add: none)"
        failures+=("$name-range")
      fi
    done
  done
  grep -h 'VecAdd\|Block Size\|Grid Size' "$out/ncu-profiler-12000.log" | sed 's/^/  /' | head -8
else
  echo "  no ncu on this machine: profiler ran only as an example (parity above)"
fi
if command -v nsys >/dev/null; then
  run nsys-profiler nsys profile --capture-range=cudaProfilerApi --capture-range-end=stop \
    --stats=true -o "$out/profiler-nsys" --force-overwrite true "$here/examples-12000/profiler" "$here/kernels"
  grep -h 'VecAdd\|capture\|Capture\|cuda_gpu_kern_sum\|Result' "$out/nsys-profiler.log" | sed 's/^/  /' | head -20
else
  echo "  nsys: not on this machine's PATH"
fi
fi

want sanitizer && echo "== compute-sanitizer: every example and its C twin of each header (memcheck with leak check; racecheck for the kernels)"
if ! want sanitizer; then
  :
elif command -v compute-sanitizer >/dev/null; then
  for e in "$here"/examples-{12000,12090,13000,12000-dyn}/*; do
    name=$(basename "$e")
    tag=$(basename "$(dirname "$e")"); tag=${tag#examples-}
    for side in rust c; do
      bin=$e; [ "$side" = c ] && bin="$here/c-twins-$tag/$name"
      [ -x "$bin" ] || continue
      # ptx_jit loads a deliberately broken PTX: memcheck reports that CUDA_ERROR_INVALID_PTX as
      # an API error, so for it API errors are not counted (memory errors and leaks still are).
      api=(); [ "$name" = ptx_jit ] && api=(--report-api-errors no)
      run "memcheck-$tag-$name-$side" compute-sanitizer --tool memcheck --leak-check full "${api[@]}" --error-exitcode 3 "$bin" "$here/kernels"
      grep -h 'ERROR SUMMARY\|LEAK SUMMARY' "$out/memcheck-$tag-$name-$side.log" | sed "s/^/    /"
    done
    case "$tag:$name" in 12000:vector_add|12000:ptx_jit|12000:ptx_link|12000:param_buffer|12000:context_independent_loading|12000:runtime_interop)
      run "racecheck-$name" compute-sanitizer --tool racecheck --error-exitcode 3 "$e" "$here/kernels"
      grep -h 'RACECHECK SUMMARY\|ERROR SUMMARY' "$out/racecheck-$name.log" | sed "s/^/    /" ;;
    esac
  done
else
  echo "compute-sanitizer not found"; failures+=(compute-sanitizer)
fi

# --- rustacuda 0.1.3 on this crate (ci/rustacuda-check.sh --bundle) -------------------------------
# Every unit, integration and doctest and the example of each build must pass, but those listed in
# rustacuda/expected-differences (test_enums_align: it pins CUDA 10.2's attribute count).
want rustacuda && echo "== rustacuda 0.1.3 on this crate: unit, integration and doctests, example (12.0 and 13.0 builds)"
if want rustacuda; then
  for b in "$here"/rustacuda/ours-*; do
    name=rustacuda-$(basename "$b")
    run "$name" "$here/rustacuda/run.sh" "$b" "$out/$name.outcomes" \
      --all-pass-except "$here/rustacuda/expected-differences"
    sed 's/^/  /' "$out/$name.log"
  done
fi
# --- end of rustacuda ---------------------------------------------------------------------------

# The benchmark: paired rounds, a verdict per row; it fails only on a row that missed its target.
want bench && echo "== benchmark"
if want bench && [ -x "$here/bin/bench-driver" ]; then
  run bench "$here/bin/bench-driver"
  cat "$out/bench.log"
fi
want bench && echo "== benchmark built with dynamic-loading (and cudarc 0.19)"
if want bench && [ -x "$here/bin/bench-driver-dynamic" ]; then
  run bench-dynamic "$here/bin/bench-driver-dynamic" \
    --first-init-linked "$here/bin/first-init-linked" --first-init-dynamic "$here/bin/first-init-dynamic"
  cat "$out/bench-dynamic.log"
fi

echo
if [ ${#failures[@]} -eq 0 ]; then
  echo "gpu-run: all passed"
else
  echo "gpu-run: ${#failures[@]} failed: ${failures[*]}"
  exit 1
fi
