#!/usr/bin/env python3
"""The constant data of a compiled probe, read from the compiler's assembly output.

usage: asm_data.py ARCH FILE.s  (ARCH: x86_64, aarch64 or mingw: the assembler dialect)

The layout and constant probes of the tests (the tests' build script writes them) hold their
numbers (sizeof, _Alignof, offsetof, enumerator and macro values) in constant tables. Compiled
with -S for a target, those tables are the target compiler's own evaluation of every entry,
without running anything. This prints each table as one line per scalar: the table (a named
object, or an anonymous one by the first string it holds), the item's index, the nearest string
before it (the entry's name) and the value; pointers to strings are printed as the strings. Two
targets' outputs are compared line by line by ci/platforms.sh.
"""
import re
import sys

SIZES = {
    "x86_64": {".quad": 8, ".8byte": 8, ".long": 4, ".4byte": 4, ".value": 2, ".short": 2,
               ".word": 2, ".2byte": 2, ".byte": 1},
    "aarch64": {".xword": 8, ".8byte": 8, ".dword": 8, ".word": 4, ".4byte": 4, ".hword": 2,
                ".short": 2, ".2byte": 2, ".byte": 1},
}
SIZES["mingw"] = SIZES["x86_64"]
LABEL = re.compile(r"^([A-Za-z_.$][\w.$@]*):")


def unquote(text):
    """The bytes of an assembler string literal."""
    out, i = bytearray(), 0
    body = text[text.index('"') + 1:text.rindex('"')]
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = body[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8) & 0xFF)
            i = j
        else:
            out += {"n": b"\n", "t": b"\t", "r": b"\r", "f": b"\f", "b": b"\b"}.get(n, n.encode())
            i += 2
    return bytes(out)


def parse(arch, path):
    """Objects in data sections: label -> list of items (('int', size, value), ('ref', label),
    ('bytes', b))."""
    sizes = SIZES[arch]
    objects, order, current, in_text = {}, [], None, False
    for raw in open(path, encoding="utf-8", errors="replace"):
        line = raw.strip()
        if not line or line.startswith(("#", "//", "@")):
            continue
        first = line.split(None, 1)[0]
        if first == ".text" or (first == ".section" and ".text" in line.split(None, 2)[1]):
            in_text, current = True, None
            continue
        if first in (".data", ".bss", ".section"):
            in_text, current = False, None
            continue
        m = LABEL.match(line)
        if m:
            if in_text:
                current = None
            else:
                current = m.group(1)
                objects[current] = []
                order.append(current)
            continue
        if current is None:
            continue
        arg = line[len(first):].strip()
        if first in (".string", ".asciz"):
            objects[current].append(("bytes", unquote(arg) + b"\0"))
        elif first == ".ascii":
            objects[current].append(("bytes", unquote(arg)))
        elif first in (".zero", ".space", ".skip"):
            objects[current].append(("bytes", b"\0" * int(arg.split(",")[0], 0)))
        elif first in sizes:
            for value in arg.split(","):
                value = value.strip()
                try:
                    number = int(value, 0) % (1 << (8 * sizes[first]))
                    objects[current].append(("int", sizes[first], number))
                except ValueError:
                    objects[current].append(("ref", value))
    return objects, order


def render(objects, item):
    kind = item[0]
    if kind == "int":
        return f"u{item[1] * 8} {item[2]}"
    if kind == "bytes":
        return f"bytes {item[1]!r}"
    target = objects.get(item[1])
    if target is not None and all(i[0] == "bytes" for i in target):
        return "string " + repr(b"".join(i[1] for i in target).split(b"\0")[0].decode())
    # Another table: by its name (a named one is printed itself), an anonymous one inline.
    if item[1].startswith((".L", "L")) and target is not None:
        return "{" + ", ".join(render(objects, i) for i in target) + "}"
    return "&" + item[1]


def main():
    arch, path = sys.argv[1], sys.argv[2]
    objects, order = parse(arch, path)
    referenced = {i[1] for items in objects.values() for i in items if i[0] == "ref"}
    for label in order:
        items = objects[label]
        if not items or all(i[0] == "bytes" for i in items):
            continue  # a string, printed where it is used
        anonymous = label.startswith((".L", "L"))
        if anonymous and label in referenced:
            continue  # printed inline where it is used
        values = [render(objects, i) for i in items]
        name = label
        if anonymous:  # by its first string: label numbers differ between targets
            name = "anon " + next((v for v in values if v.startswith("string ")), "?")
        context = ""
        for index, value in enumerate(values):
            if value.startswith("string "):
                context = value[7:]
            print(f"{name}[{index}] {context}: {value}")


if __name__ == "__main__":
    main()
