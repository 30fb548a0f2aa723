#!/usr/bin/env python3
"""Before/after file pairs from other projects: consecutive releases of the same crate in the
local cargo registry, written as apply cases (`case.json` with `"expect": "apply"`, `before/`,
`after/`) that `bench-snippets.py --cases DIR` reads like the shared corpus.

The shared corpus holds four projects' commits. A release-to-release change of a crate nobody
here wrote is a second, independent sample of how code changes (issue 28: a set "drawn from
other projects"), kept to commit-sized changes: a few changed regions in a file of modest size.
Nothing is written outside `--out`; the registry is only read.
"""

import argparse
import difflib
import json
import os
import re
import shutil
import sys

VERSION = re.compile(r'^(?P<name>.+?)-(?P<version>\d+(?:\.\d+)*(?:[-+][0-9A-Za-z.+-]*)?)$')
TEXT = ('.rs', '.md', '.toml', '.py', '.c', '.h', '.js', '.ts', '.sh', '.yml', '.yaml')


def registry_roots():
    home = os.environ.get('CARGO_HOME') or os.path.join(os.path.expanduser('~'), '.cargo')
    src = os.path.join(home, 'registry', 'src')
    if not os.path.isdir(src):
        return []
    return [os.path.join(src, d) for d in sorted(os.listdir(src))]


def version_key(v):
    parts = re.split(r'[.+-]', v)
    return [(0, int(p)) if p.isdigit() else (1, p) for p in parts]


def releases(roots):
    """Crate name -> its unpacked releases, oldest first."""
    by_name = {}
    for root in roots:
        for d in os.listdir(root):
            m = VERSION.match(d)
            if m:
                by_name.setdefault(m['name'], []).append((m['version'], os.path.join(root, d)))
    return {n: sorted(vs, key=lambda v: version_key(v[0])) for n, vs in by_name.items()
            if len(vs) > 1}


def read_text(path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
        text = data.decode('utf-8')
    except (OSError, UnicodeDecodeError):
        return None
    return None if '\0' in text or '\r' in text else text


def commit_sized(before, after, max_regions, max_changed, max_lines):
    b, a = before.splitlines(), after.splitlines()
    if before == after or max(len(b), len(a)) > max_lines:
        return False
    ops = [op for op in difflib.SequenceMatcher(None, b, a, autojunk=False).get_opcodes()
           if op[0] != 'equal']
    changed = sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in ops)
    groups = list(difflib.SequenceMatcher(None, b, a, autojunk=False).get_grouped_opcodes(3))
    return 0 < len(groups) <= max_regions and changed <= max_changed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True, help='a new or empty directory for the cases')
    ap.add_argument('--max-regions', type=int, default=4)
    ap.add_argument('--max-changed', type=int, default=40)
    ap.add_argument('--max-lines', type=int, default=3000)
    args = ap.parse_args()
    if os.path.exists(args.out) and os.listdir(args.out):
        sys.exit(f'registry-pairs: {args.out} is not empty')
    os.makedirs(args.out, exist_ok=True)
    crates = releases(registry_roots())
    written = 0
    for name, versions in sorted(crates.items()):
        for (v1, d1), (v2, d2) in zip(versions, versions[1:]):
            for dirpath, dirs, files in os.walk(d1):
                dirs[:] = [d for d in dirs if d not in ('target', '.git')]
                for f in sorted(files):
                    if not f.endswith(TEXT):
                        continue
                    rel = os.path.relpath(os.path.join(dirpath, f), d1)
                    before = read_text(os.path.join(d1, rel))
                    after = read_text(os.path.join(d2, rel))
                    if before is None or after is None:
                        continue
                    if not commit_sized(before, after, args.max_regions, args.max_changed,
                                        args.max_lines):
                        continue
                    written += 1
                    case = os.path.join(args.out, f'{name}-{v1}-{v2}-{written:05d}')
                    for side, text in (('before', before), ('after', after)):
                        path = os.path.join(case, side, rel)
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        with open(path, 'w', encoding='utf-8', newline='') as out:
                            out.write(text)
                    with open(os.path.join(case, 'case.json'), 'w') as out:
                        json.dump({'expect': 'apply', 'source': f'{name} {v1} -> {v2}',
                                   'path': rel}, out)
    print(f'{written} pairs from {len(crates)} crates with two or more releases -> {args.out}')


if __name__ == '__main__':
    main()
