#!/usr/bin/env python3
"""include-cycles.py PKGDIR: print every cycle in the module graph of
pkg/ (pkg/A -> pkg/B when a file of pkg/A includes "B/..."), one line
each, "a -> b -> a"; print nothing and exit 0 when there is none."""
import os
import re
import sys

INC = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/[^"]+"', re.M)


def graph(pkg):
    g = {}
    for mod in sorted(os.listdir(pkg)):
        d = os.path.join(pkg, mod)
        if not os.path.isdir(d):
            continue
        deps = g.setdefault(mod, set())
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    deps.update(m for m in INC.findall(fh.read()) if m != mod)
    return g


def cycles(g):
    """Tarjan's strongly connected components of more than one module,
    each shown as one cycle through all of its members."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def main():
    g = graph(sys.argv[1])
    for comp in cycles(g):
        names = set(comp)
        edges = ", ".join(f"{a} -> {b}" for a in comp
                          for b in sorted(g[a] & names))
        print(f"cycle among {' '.join(comp)}: {edges}")


if __name__ == "__main__":
    main()
