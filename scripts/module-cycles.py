#!/usr/bin/env python3
"""List import cycles between the files of each crate: a file's module path, and the modules
its `use crate::...`, `use super::...` and `crate::x::y` paths name. Run from the repository
root: `python3 scripts/module-cycles.py [crate ...]`. Exits 1 when a cycle is found.

Test modules (`*tests.rs`, `tests.rs`, and `#[cfg(test)]` tails) are left out: a test may use
what it tests."""
import os, re, sys

def modules(src):
    """module path (tuple) -> file"""
    out = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'):
                continue
            if f == 'tests.rs' or f.endswith('_tests.rs'):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ('mod', 'lib', 'main'):
                parts = parts[:-1]
            out[tuple(parts)] = os.path.join(dirpath, f)
    return out

PATH = re.compile(r'\b(crate|super)((?:::\w+)+)')

def code(text):
    """The file without comments and without its inline test module: a `#[cfg(test)]` followed,
    past other attributes, by `mod name {`. A `#[cfg(test)]` on a function or on a `mod name;`
    declaration leaves out that item alone: what follows is code."""
    lines = text.splitlines()
    keep = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == '#[cfg(test)]':
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith('#['):
                j += 1
            item = lines[j] if j < len(lines) else ''
            if re.match(r'\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{', item):
                break
            i = j + 1 if re.match(r'\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*;', item) else j
            continue
        if not lines[i].strip().startswith('//'):
            keep.append(lines[i])
        i += 1
    return '\n'.join(keep)

def resolve(mod, root, segs, mods):
    """The deepest module of the crate that `root::segs` names (`super` is always the parent
    of the file's own module, whether the file is `x.rs` or `x/mod.rs`)."""
    if root == 'crate':
        cur = []
    else:
        cur = list(mod[:-1])
        while segs and segs[0] == 'super':
            cur = cur[:-1]
            segs = segs[1:]
    best = None
    path = list(cur)
    for s in segs:
        path.append(s)
        if tuple(path) in mods:
            best = tuple(path)
    return best

def graph(src):
    mods = modules(src)
    edges = {m: set() for m in mods}
    for m, f in mods.items():
        text = code(open(f, encoding='utf-8').read())
        # expand `use super::{a, b}` groups one level
        for g in re.finditer(r'\b(crate|super)((?:::\w+)*)::\{([^}]*)\}', text):
            for item in g.group(3).split(','):
                name = item.strip().split(' ')[0].split('::')[0]
                if name and name != 'self':
                    segs = [s for s in g.group(2).split('::') if s] + [name]
                    t = resolve(m, g.group(1), segs, mods)
                    if t and t != m and not is_ancestor(t, m):
                        edges[m].add(t)
        for p in PATH.finditer(text):
            segs = [s for s in p.group(2).split('::') if s]
            t = resolve(m, p.group(1), segs, mods)
            if t and t != m and not is_ancestor(t, m):
                edges[m].add(t)
    return mods, edges

def is_ancestor(a, b):
    return len(a) < len(b) and b[:len(a)] == a

def cycles(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)
    def strong(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in edges:
        if v not in index:
            strong(v)
    return out

def main():
    crates = sys.argv[1:] or sorted(os.listdir('crates'))
    found = 0
    for c in crates:
        src = os.path.join('crates', c, 'src')
        if not os.path.isdir(src):
            continue
        _, edges = graph(src)
        for comp in cycles(edges):
            found += 1
            print(f"{c}: " + ' <-> '.join('::'.join(m) or '(root)' for m in comp))
            if os.environ.get('VERBOSE'):
                for m in comp:
                    for t in sorted(edges[m] & set(comp)):
                        print(f"    {'::'.join(m)} -> {'::'.join(t)}")
    sys.exit(1 if found else 0)

main()
