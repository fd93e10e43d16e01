#!/usr/bin/env python3
"""Compares the generator's output for one target with another's (one CUDA version each).

usage: compare_bindings.py same|subset|windows|msvc BASE_DIR OTHER_DIR

- same:    every file identical (aarch64-unknown-linux-gnu against x86-64 Linux).
- subset:  every file of BASE_DIR identical to OTHER_DIR's file of that name (ci/regenerate.sh's
           Windows pass, gl_*.rs, against the x86_64-pc-windows-gnu output).
- windows: x86_64-pc-windows-gnu against x86-64 Linux: every file identical but cudaGL.h's
           module (gl_*.rs), whose every differing part is about cuWGLGetDevice and its HGPUNV
           handle, which cudaGL.h declares only under _WIN32 (or a count that includes it): the
           committed gl_*.rs carry them under cfg(windows) (ci/regenerate.sh's Windows pass).
- msvc:    x86_64-pc-windows-msvc against x86_64-pc-windows-gnu: every differing line an enum's
           newtype over `c_int` where GNU has `c_uint` (MSVC's enums are always `int`) or
           cuuint32_t/cuuint64_t spelled `c_uint`/`c_ulonglong` where GNU has `u32`/`u64`
           (cuda.h takes `unsigned __int32/64` under _MSC_VER): the same types and layouts.
Prints one line of counts; exits 1 naming what else differs.
"""
import difflib
import os
import re
import sys

WINDOWS_ONLY = re.compile(r"cuWGLGetDevice|HGPUNV|_LEN: usize = \d+|HEADER_NOTES")
ENUM_NEWTYPE = re.compile(r"^pub struct (\w+)\(pub ::core::ffi::c_u?int\);$")
CUUINT = {
    "pub type cuuint32_t = u32;": "pub type cuuint32_t = ::core::ffi::c_uint;",
    "pub type cuuint64_t = u64;": "pub type cuuint64_t = ::core::ffi::c_ulonglong;",
}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def main():
    mode, base, other = sys.argv[1:4]
    names = set(os.listdir(base))
    if mode != "subset":
        names |= set(os.listdir(other))
    names = sorted(names)
    identical, handled, problems = 0, [], []
    for name in names:
        a_path, b_path = os.path.join(base, name), os.path.join(other, name)
        if not (os.path.isfile(a_path) and os.path.isfile(b_path)):
            problems.append(f"{name}: only in {base if os.path.isfile(a_path) else other}")
            continue
        a, b = read(a_path), read(b_path)
        if a == b:
            identical += 1
            continue
        if mode == "windows" and name.startswith("gl_"):
            matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
            hunks = [op for op in matcher.get_opcodes() if op[0] != "equal"]
            other_hunks = [
                op for op in hunks
                if not WINDOWS_ONLY.search("\n".join(a[op[1]:op[2]] + b[op[3]:op[4]]))
            ]
            if not other_hunks:
                handled.append(f"{name} ({len(hunks)} parts, all cuWGLGetDevice)")
                continue
            op = other_hunks[0]
            problems.append(f"{name}: {a[op[1]:op[2]]} -> {b[op[3]:op[4]]}")
            continue
        if mode == "msvc" and len(a) == len(b):
            enums = typedefs = 0
            bad = None
            for x, y in zip(a, b):
                if x == y:
                    continue
                mx, my = ENUM_NEWTYPE.match(x), ENUM_NEWTYPE.match(y)
                if mx and my and mx.group(1) == my.group(1) and "c_uint" in x and "c_int)" in y:
                    enums += 1
                elif CUUINT.get(x) == y:
                    typedefs += 1
                else:
                    bad = f"{x!r} -> {y!r}"
                    break
            if bad is None:
                handled.append(f"{name} ({enums} enums c_int, {typedefs} cuuint typedefs)")
                continue
            problems.append(f"{name}: {bad}")
            continue
        first = next(i for i, (x, y) in enumerate(zip(a + [""], b + [""])) if x != y)
        problems.append(f"{name}: line {first + 1}: {a[first:first + 1]} -> {b[first:first + 1]}")
    print(f"{identical} of {len(names)} files identical"
          + (f"; differing as expected: {', '.join(handled)}" if handled else ""))
    for p in problems:
        print(f"  UNEXPECTED: {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
