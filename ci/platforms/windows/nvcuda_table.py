"""The tables of the test stub nvcuda.dll (nvcuda_stub.c), written into OUT_DIR:
- nvcuda.def: its exports, every function of the bindings (cuda-driver-sys/src/generated/
  *functions.rs, every header version) and, under the base name, the first ABI of each function
  the bindings know only as _v2 or later (cuMemAlloc beside cuMemAlloc_v2, as the driver has it),
  for the linker and for x86_64-w64-mingw32-dlltool (the import library cuda.lib);
- nvcuda_table.h: STUB_DRIVER_VERSION, the version the real driver library reports;
  STUB_FUNCTION for each export nvcuda_stub.c does not define itself; STUB_ENTRY for each
  (base name, version, per-thread, symbol) of the bindings' dynamic-loading tables
  (*dynamic.rs with *entry.rs) at most that version, what its cuGetProcAddress resolves; and
  STUB_ERROR for each code the real library names, with its cuGetErrorName and cuGetErrorString.

usage: nvcuda_table.py GENERATED_DIR LIBCUDA_SO STUB_C OUT_DIR
"""
import ctypes
import glob
import os
import re
import sys

generated, libcuda, stub_c, out = sys.argv[1:5]


def read(path):
    with open(path) as f:
        return f.read()


exports = sorted({m for f in glob.glob(os.path.join(generated, "*functions.rs"))
                  for m in re.findall(r"^ *pub fn (cu\w+)\(", read(f), re.M)})
defined = set(re.findall(r"^CUresult (cu\w+)\(", read(stub_c), re.M))
if not exports or not defined <= set(exports):
    sys.exit(f"nvcuda_table.py: {len(exports)} functions in {generated}; defined by the stub but "
             f"not in the bindings: {sorted(defined - set(exports))}")

# The real library's answers (Debian's 535 on Linux, no GPU needed for these).
driver = ctypes.CDLL(libcuda)
version = ctypes.c_int()
if driver.cuDriverGetVersion(ctypes.byref(version)) != 0:
    sys.exit(f"nvcuda_table.py: cuDriverGetVersion of {libcuda} failed")
errors = []
for code in range(0, 1000):
    name, message = ctypes.c_char_p(), ctypes.c_char_p()
    if driver.cuGetErrorName(code, ctypes.byref(name)) == 0:
        if driver.cuGetErrorString(code, ctypes.byref(message)) != 0:
            sys.exit(f"nvcuda_table.py: {libcuda} names code {code} but has no message for it")
        errors.append((code, name.value.decode(), message.value.decode()))

# Each function's symbol with its entry point: (base, version, per-thread).
entries = []
first_abis = set()
for dynamic in sorted(glob.glob(os.path.join(generated, "*dynamic.rs"))):
    module = os.path.basename(dynamic)[: -len("dynamic.rs")]
    consts = {}
    for name, kind, base, ver in re.findall(
            r"pub const (\w+): EntryPoint<\s*\w+,?\s*> = unsafe \{\s*EntryPoint::(new|new_per_thread)"
            r"\(\s*c\"(\w+)\",\s*(\d+),?\s*\)", read(os.path.join(generated, module + "entry.rs"))):
        consts[name] = (base, int(ver), int(kind == "new_per_thread"))
    bound = re.findall(r"symbol: c\"(\w+)\",\s*entry: super::entry::(\w+)\s*\.info\(\)", read(dynamic))
    entries += [consts[const] + (symbol,) for symbol, const in bound]
    # The entry points of an ABI the bindings declare no function for, superseded by a _v2
    # (cuMemAlloc at 2000): the driver exports them under the base name. (The per-thread ones
    # among them are left out: their symbols' suffixes are not in the bindings.)
    for base, ver, per_thread in (consts[c] for c in sorted(set(consts) - {c for _, c in bound})):
        if not per_thread and base not in exports:
            entries.append((base, ver, 0, base))
            first_abis.add(base)
entries = sorted(set(entries))
unknown = sorted({e[3] for e in entries} - set(exports) - first_abis)
if unknown or len({e[3] for e in entries}) != len(exports) + len(first_abis):
    sys.exit(f"nvcuda_table.py: the dynamic-loading tables name {len({e[3] for e in entries})} "
             f"symbols, the bindings {len(exports)} functions; not functions: {unknown}")
exports = sorted(set(exports) | first_abis)


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


with open(os.path.join(out, "nvcuda.def"), "w") as f:
    f.write("LIBRARY nvcuda.dll\nEXPORTS\n")
    f.writelines(f"    {e}\n" for e in exports)
with open(os.path.join(out, "nvcuda_table.h"), "w") as f:
    f.write(f"/* Written by ci/platforms/windows/nvcuda_table.py from {generated} and {libcuda}. */\n")
    f.write(f"STUB_DRIVER_VERSION({version.value})\n")
    f.writelines(f"STUB_FUNCTION({e})\n" for e in exports if e not in defined)
    f.writelines(f"STUB_ENTRY({c_string(b)}, {v}, {p}, {c_string(s)})\n"
                 for b, v, p, s in entries if v <= version.value)
    f.writelines(f"STUB_ERROR({c}, {c_string(n)}, {c_string(m)})\n" for c, n, m in errors)
print(f"stub nvcuda.dll tables: {len(exports)} exports ({len(first_abis)} first ABIs), driver version {version.value}, "
      f"{sum(e[1] <= version.value for e in entries)} of {len(entries)} entry points, "
      f"{len(errors)} error codes")
