"""What a wasm module's code bytes are, by crate: reads the function bodies and the `name`
section of a module built by cargo (before wasm-bindgen and wasm-opt strip the names) and sums
each body's size under the crate its (mangled) name starts in.

    python3 bench/wasm_sizes.py target/wasm32-unknown-unknown/wasm-pkg/shr_wasm.wasm [TOP]

Prints a markdown table of the crates, then the TOP largest functions (default 0).
"""

import re
import sys
from collections import Counter


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def functions(data):
    """(name, body bytes) of every defined function."""
    i, imported, names, bodies = 8, 0, {}, []
    while i < len(data):
        sid = data[i]
        size, i = leb(data, i + 1)
        end = i + size
        if sid == 0:
            nlen, j = leb(data, i)
            if data[j : j + nlen] == b"name":
                j += nlen
                while j < end:
                    sub = data[j]
                    ssize, j = leb(data, j + 1)
                    if sub == 1:
                        count, k = leb(data, j)
                        for _ in range(count):
                            idx, k = leb(data, k)
                            ln, k = leb(data, k)
                            names[idx] = data[k : k + ln].decode("utf8", "replace")
                            k += ln
                    j += ssize
        elif sid == 2:  # imports: functions among them take the first indices
            count, j = leb(data, i)
            for _ in range(count):
                for _field in range(2):
                    ln, j = leb(data, j)
                    j += ln
                kind = data[j]
                j += 1
                if kind == 0:
                    _, j = leb(data, j)
                    imported += 1
                elif kind == 1:
                    j += 1
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 2:
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                else:
                    j += 2
        elif sid == 10:
            count, j = leb(data, i)
            for n in range(count):
                ln, k = leb(data, j)
                bodies.append((imported + n, k - j + ln))
                j = k + ln
        i = end
    return [(names.get(idx, "?"), size) for idx, size in bodies]


# The first path segment of a (legacy or v0) mangled Rust name, e.g. `serde_json` from
# `_ZN10serde_json2de...` or `core` from `_RNvNtCs..._4core...`.
LEGACY = re.compile(r"^_ZN(?:\d+_\$LT\$)?(\d+)([A-Za-z_][A-Za-z0-9_]*)")
V0 = re.compile(r"Cs[0-9A-Za-z_]*_(\d+)([A-Za-z_][A-Za-z0-9_]*)")


def crate_of(name):
    if name.startswith("_ZN"):
        m = re.match(r"^_ZN(\d+)", name)
        if m:
            n = int(m.group(1))
            seg = name[3 + len(m.group(1)) : 3 + len(m.group(1)) + n]
            if seg.startswith("_$LT$") or seg.startswith("$LT$"):
                # `<T as Trait>::f`: the implementing type's crate.
                t = re.search(r"\$LT\$(?:\$RF\$)?(?:mut\$u20\$)?([A-Za-z_][A-Za-z0-9_]*)\.\.", seg)
                return t.group(1) if t else "impl"
            return seg
    m = V0.search(name)
    if m:
        return m.group(2)[: int(m.group(1))]
    return "other (glue, runtime)"


def main():
    data = open(sys.argv[1], "rb").read()
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    fns = functions(data)
    total = sum(s for _, s in fns)
    by_crate = Counter()
    for name, size in fns:
        by_crate[crate_of(name)] += size
    print(f"| crate | code bytes | share |")
    print("| --- | ---: | ---: |")
    for crate, size in by_crate.most_common():
        if size * 100 >= total:
            print(f"| {crate} | {size:,} | {size * 100 / total:.0f}% |")
    rest = sum(s for c, s in by_crate.items() if s * 100 < total)
    print(f"| (crates under 1% each) | {rest:,} | {rest * 100 / total:.0f}% |")
    print(f"| **all {len(fns):,} functions** | **{total:,}** | |")
    if top:
        print()
        for name, size in sorted(fns, key=lambda f: -f[1])[:top]:
            print(f"{size:>8,}  {name[:140]}")


if __name__ == "__main__":
    main()
