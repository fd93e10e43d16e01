"""The tests passed per test binary in a log of `cargo test` runs, each run after the line
`cargo test <arguments>` that ci/platforms/aarch64.sh writes before it: a harness's
`test result: ok. N passed`, else what a binary without the harness prints (`load_from: N cases
passed`, one `test <what> ... ok` line per check). A binary with nothing passed fails the count.

usage: python3 test_counts.py LOG
"""
import re
import sys

runs = []  # (arguments, [(binary, passed)])
binary = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("cargo test "):
        runs.append((line[len("cargo test "):], []))
        binary = None
        continue
    m = re.match(r"\s+Running (?:unittests )?\S+ \((.*)\)$", line)
    if m:
        name = re.sub(r"-[0-9a-f]{16}$", "", m.group(1).rsplit("/", 1)[-1])
        binary = [name, 0, False]  # name, passed, counted by a harness
        runs[-1][1].append(binary)
        continue
    if binary is None:
        continue
    m = re.match(r"test result: ok\. (\d+) passed", line)
    if m:
        binary[1], binary[2] = int(m.group(1)), True
    elif not binary[2]:
        m = re.search(r"(\d+) cases? passed$", line)
        if m:
            binary[1] += int(m.group(1))
        elif re.match(r"test .* \.\.\. ok\b", line):
            binary[1] += 1

total, empty = 0, []
for arguments, binaries in runs:
    print(f"  cargo test {arguments}")
    for name, passed, _ in binaries:
        print(f"    {name}: {passed} passed")
        total += passed
        if passed == 0:
            empty.append(name)
print(f"  total: {total} passed in {sum(len(b) for _, b in runs)} test binaries")
if empty:
    print(f"no test passed in: {', '.join(empty)}")
    sys.exit(1)
