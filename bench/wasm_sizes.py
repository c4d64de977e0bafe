#!/usr/bin/env python3
"""Where the bytes of a .wasm go: size by section, and, when the module has a name section
(link with --profiling-funcs), code size by function and by owner (dlcost source file,
nlohmann/json, libc++, the rest), raw and gzipped.

    python3 bench/wasm_sizes.py build-wasm/wasm/dlcost_wasm.wasm [--top 40] [--demangle]

Reads the binary format directly (https://webassembly.github.io/spec/core/binary/), so it
needs neither wabt nor binaryen. Function names are the mangled C++ names; --demangle pipes
them through c++filt (binutils) to group them by namespace.
"""
import argparse
import collections
import gzip
import subprocess
import sys

SECTIONS = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
            6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data",
            12: "datacount", 13: "tag"}


def leb(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, pos


def name_of(buf, pos):
    n, pos = leb(buf, pos)
    return buf[pos:pos + n].decode("utf-8", "replace"), pos + n


def sections(buf):
    pos = 8
    while pos < len(buf):
        sid = buf[pos]
        size, body = leb(buf, pos + 1)
        yield sid, body, body + size, pos
        pos = body + size


def imported_functions(buf, start):
    count, pos = leb(buf, start)
    n = 0
    for _ in range(count):
        _, pos = name_of(buf, pos)
        _, pos = name_of(buf, pos)
        kind = buf[pos]
        pos += 1
        if kind == 0:
            _, pos = leb(buf, pos)
            n += 1
        elif kind == 1:
            pos += 1
            flags, pos = leb(buf, pos + 0)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 2:
            flags, pos = leb(buf, pos)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 3:
            pos += 2
        elif kind == 4:
            pos += 1
            _, pos = leb(buf, pos)
    return n


def function_names(buf, start, end):
    name, pos = name_of(buf, start)
    if name != "name":
        return None
    names = {}
    while pos < end:
        sub = buf[pos]
        size, body = leb(buf, pos + 1)
        if sub == 1:
            count, p = leb(buf, body)
            for _ in range(count):
                idx, p = leb(buf, p)
                names[idx], p = name_of(buf, p)
        pos = body + size
    return names


def owner(name):
    if "nlohmann" in name:
        return "nlohmann/json"
    if name.startswith("emscripten::") or "emscripten" in name or name.startswith("_embind"):
        return "embind"
    if name.startswith("dlcost::") or "dlcost::" in name or name.startswith("(anonymous namespace)"):
        return "dlcost"
    if name.startswith("std::") or "std::__2" in name:
        return "libc++"
    return "libc and the rest"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wasm")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--demangle", action="store_true")
    args = ap.parse_args()
    buf = open(args.wasm, "rb").read()
    print(f"{args.wasm}: {len(buf):,} B raw, {len(gzip.compress(buf, 9)):,} B gzip -9")
    n_imports = 0
    bodies = []
    names = None
    for sid, body, end, header in sections(buf):
        label = SECTIONS.get(sid, str(sid))
        if sid == 0:
            label += " " + name_of(buf, body)[0]
            if name_of(buf, body)[0] == "name":
                names = function_names(buf, body, end)
        data = buf[header:end]
        print(f"  {label:24} {len(data):>10,} B raw {len(gzip.compress(data, 9)):>10,} B gz")
        if sid == 2:
            n_imports = imported_functions(buf, body)
        if sid == 10:
            count, pos = leb(buf, body)
            for i in range(count):
                size, p = leb(buf, pos)
                bodies.append((n_imports + i, buf[p:p + size]))
                pos = p + size
    if not names:
        return
    raw = [names.get(i, f"func{i}") for i, _ in bodies]
    shown = raw
    if args.demangle:
        out = subprocess.run(["c++filt"], input="\n".join(raw), capture_output=True, text=True)
        shown = out.stdout.split("\n")[:len(raw)]
    by_owner = collections.defaultdict(lambda: [0, b""])
    for (i, code), name in zip(bodies, shown):
        o = owner(name)
        by_owner[o][0] += len(code)
        by_owner[o][1] += code
    print("code by owner (raw, gzip of the owner's bodies together):")
    for o, (size, code) in sorted(by_owner.items(), key=lambda kv: -kv[1][0]):
        print(f"  {o:20} {size:>10,} B {len(gzip.compress(code, 9)):>10,} B gz")
    print(f"largest {args.top} functions:")
    for (i, code), name in sorted(zip(bodies, shown), key=lambda x: -len(x[0][1]))[:args.top]:
        print(f"  {len(code):>8,} {name[:150]}")


if __name__ == "__main__":
    sys.exit(main())
