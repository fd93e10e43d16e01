# Sourced by ci/gpu-bundle.sh (the tasks written in Rust have these in xtask/src/checks.rs and
# cargo_json.rs) with two words, the prefix of the script's step headings and that of its failure
# lines (`. "$(dirname "$0")/common.sh" gpu-bundle gpu-bundle`): strict mode, the repository root as working folder, the environment of
# the fetched dependencies (ci/fetch-deps.sh), and
# - `step WORDS...`: a heading; `fail WORDS...`: a line on stderr, then exit 1;
# - `artifacts`: cargo's JSON messages on stdin, one line per artifact out: `KIND NAME PATH` for
#   each executable (KIND: test, example, bench), `out-dir cuda-driver-tests DIR` for the tests'
#   build script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
step_prefix=$1 fail_prefix=$2
step() { printf '\n=== %s: %s\n' "$step_prefix" "$*"; }
fail() { echo "$fail_prefix: $*" >&2; exit 1; }
eval "$(ci/fetch-deps.sh)"
artifacts() {
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["kind"][0], m["target"]["name"], m["executable"])
    if m.get("reason") == "build-script-executed" and "cuda-driver-tests" in m["package_id"]:
        print("out-dir", "cuda-driver-tests", m["out_dir"])
'
}
