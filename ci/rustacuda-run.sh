#!/usr/bin/env bash
# Runs one build of rustacuda 0.1.3's tests that ci/rustacuda-check.sh made (in CI, and in the GPU
# bundle as rustacuda/run.sh): its unit tests, integration tests, doctests and example, each test
# on its own line in OUTCOMES as `KIND NAME ok|FAILED`, and one line of counts. No cargo needed.
#
#   ci/rustacuda-run.sh DIR OUTCOMES [--all-pass-except FILE]
#
# DIR holds tests/ (the libtest binaries: unit, test_derive, test_stream), examples/launch,
# doctests/ (one binary per doctest, named <file>-<rank>: the doctest's rank by line in its
# source file, so that the names stay the same when a patch moves lines; doctests/index maps them
# to rustdoc's names), lib/ (the Rust standard library the doctests link dynamically) and
# resources/ (rustacuda's add.ptx, which tests load from ./resources). With --all-pass-except, it
# exits non-zero unless the tests that fail are exactly those FILE lists (`KIND NAME` lines,
# each after its reason in `#` lines).
set -uo pipefail
dir=$(cd "${1:?usage: rustacuda-run.sh DIR OUTCOMES [--all-pass-except FILE]}" && pwd)
outcomes=${2:?usage: rustacuda-run.sh DIR OUTCOMES [--all-pass-except FILE]}
expected=
[ "${3:-}" = --all-pass-except ] && expected=${4:?--all-pass-except needs a FILE}
log=$outcomes.log
: >"$outcomes"
: >"$log"
export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cd "$dir" # the tests read ./resources/add.ptx

# libtest binaries: one outcome per `test NAME ... ok|FAILED` line (ignored tests are not run);
# a binary that fails with no test failed (it did not start, or crashed) is an outcome of its own.
for t in tests/*; do
  kind=integration
  [ "$(basename "$t")" = unit ] && kind=unit
  out=$("$t" --test-threads 1 2>&1)
  status=$?
  printf '== %s (exit %s)\n%s\n' "$t" "$status" "$out" >>"$log"
  sed -n "s/^test \(.*\) \.\.\. \(ok\|FAILED\)\$/$kind \1 \2/p" <<<"$out" >>"$outcomes"
  if [ "$status" -ne 0 ] && ! grep -q '^test .* \.\.\. FAILED$' <<<"$out"; then
    echo "$kind $(basename "$t")-binary FAILED" >>"$outcomes"
  fi
done
for e in examples/* doctests/*; do
  case "$e" in */index) continue ;; esac
  kind=example
  [[ "$e" == doctests/* ]] && kind=doctest
  echo "== $kind $(basename "$e")" >>"$log"
  if "$e" >>"$log" 2>&1; then result=ok; else result=FAILED; fi
  echo "$kind $(basename "$e") $result" >>"$outcomes"
done

count() { # kind [result]
  grep -c "^$1 .*${2:+ $2}\$" "$outcomes"
}
summary="unit $(count unit ok)/$(count unit), integration $(count integration ok)/$(count integration)"
summary+=", doctests $(count doctest ok)/$(count doctest), example $(count example ok)/$(count example)"
total=$(wc -l <"$outcomes")
passed=$(grep -c ' ok$' "$outcomes")
echo "rustacuda-run: $(basename "$dir"): $passed of $total passed ($summary); log: $log"
[ "$total" -gt 0 ] || { echo "rustacuda-run: no test ran in $dir"; exit 1; }

if [ -n "$expected" ]; then
  failed=$(sed -n 's/ FAILED$//p' "$outcomes" | sort)
  listed=$(grep -v '^#' "$expected" | sort)
  if [ "$failed" != "$listed" ]; then
    echo "rustacuda-run: FAILED: the failing tests are not exactly those of $(basename "$expected")"
    diff <(echo "$listed") <(echo "$failed") | sed -n 's/^< /  listed, passed or absent: /p; s/^> /  failed: /p' |
      head -n 20
    echo "  ($(comm -13 <(echo "$listed") <(echo "$failed") | grep -c .) failed that are not listed; all in $outcomes)"
    exit 1
  fi
  echo "rustacuda-run: every test passed but the $(wc -l <<<"$listed") listed in $(basename "$expected")"
fi
