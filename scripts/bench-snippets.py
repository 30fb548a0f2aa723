#!/usr/bin/env python3
"""Lazy edit snippets (`// ... existing code ...`) derived from real commits, applied by salve.

    cargo build -j1 --release -p salve
    python3 scripts/bench-snippets.py [--salve target/release/salve] [--cases DIR]... \
        [--pairs 300] [--seed 28] [--jobs 2] [--json out.json]

The before/after file pairs come from the shared corpus (`/work/shared/corpus/cases` and
`/work/shared/corpus/v2/cases` by default: real commits of ripgrep and of other projects, see
its FORMAT.md). Each modified text file of an `expect: apply` case is one pair; pairs are
deduplicated by content, and a random sample of `--pairs` is drawn with `--seed` (printed).
Pairs are skipped, and counted, when the file's language has no comment syntax for a marker, or
when a line changes only in trailing whitespace or the final newline comes or goes (a snippet
cannot say that: the file keeps its own bytes on unchanged lines, and its final newline).

From each pair, the changed regions are cut as a unified diff groups them, with the after side's
lines, and joined by a marker comment in the file's language (indented like the next line):

| variant   | what the reply holds |
|-----------|----------------------|
| ctx3      | 3 lines of context, `// ... existing code ...`, a fenced block under a path line |
| ctx1      | 1 line of context, same shape (where the only unchanged line is often a brace) |
| reworded  | ctx3 with each marker reworded (`... rest of the code ...`, `existing code`, ...) |
| tool      | ctx3 as Cursor's `edit_file` call: JSON `{target_file, instructions, code_edit}` or its XML form |
| ambiguous | a line inserted after a run of lines that stands twice in the file: must be refused |

Each reply is applied by `salve apply` in a fresh git repository holding the before file.
`exact`: the file is the after file and salve succeeded (for `ambiguous`: refused, file unchanged).
`refused`: salve failed and the file is unchanged. `kept ws`: salve made the change, but a line
the commit changed only in trailing whitespace (a blank line losing its spaces, next to a real
change) kept the file's bytes, as every rung keeps them on lines equal but for trailing
whitespace; counted apart, neither exact nor wrong. `inexpressible`: salve wrote a file other
than the after file, and the snippet, read literally (its blank lines included, each marker
standing for a run of the before file's lines), is as true of what salve wrote as of the after
file: no reader of the snippet can tell the two apart (proved per case by `reads_true`; each
such pair is named in the output); counted apart, neither exact nor wrong. `wrong`: anything
else.
Bars (issue 28): at least 90% exact for ctx3, reworded and tool; zero wrong in every variant.
Exits non-zero when a bar is missed. Standard library only, plus git.
"""
import argparse
import concurrent.futures
import difflib
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME='bench', GIT_AUTHOR_EMAIL='bench@example.invalid',
               GIT_COMMITTER_NAME='bench', GIT_COMMITTER_EMAIL='bench@example.invalid')
DEFAULT_CASES = ['/work/shared/corpus/cases', '/work/shared/corpus/v2/cases']
VARIANTS = ['ctx3', 'ctx1', 'reworded', 'tool', 'ambiguous']
BARS = {'ctx3': 0.90, 'reworded': 0.90, 'tool': 0.90}

# Line comment openers by extension; block comments as (open, close).
LINE = {'//': ['rs', 'js', 'ts', 'jsx', 'tsx', 'go', 'c', 'h', 'cc', 'cpp', 'hpp', 'java', 'kt',
               'swift', 'cs', 'scala', 'dart', 'php', 'zig', 'proto'],
        '#': ['py', 'pyi', 'sh', 'bash', 'zsh', 'fish', 'rb', 'toml', 'yml', 'yaml', 'pl', 'r',
              'ps1', 'cmake', 'nix', 'mk', 'cfg', 'ini', 'conf', 'bzl'],
        '--': ['sql', 'lua', 'hs', 'elm', 'ada'],
        '..': ['rst']}
BLOCK = {('<!--', '-->'): ['md', 'markdown', 'html', 'htm', 'xml', 'svg', 'vue'],
         ('/*', '*/'): ['css', 'scss', 'less']}
NAMES = {'Makefile': '#', 'Dockerfile': '#', 'CMakeLists.txt': '#', 'Justfile': '#'}
WORDINGS = ['... rest of the code ...', '... (unchanged) ...', 'existing code',
            '... other methods ...', '...', '... existing code (unchanged) ...',
            '... keep existing code ...']


def comment(path):
    """The (open, close) of a comment in the file's language, or None."""
    name = os.path.basename(path)
    if name in NAMES:
        return (NAMES[name], '')
    ext = name.rsplit('.', 1)[-1].lower() if '.' in name else ''
    for opener, exts in LINE.items():
        if ext in exts:
            return (opener, '')
    for pair, exts in BLOCK.items():
        if ext in exts:
            return pair
    return None


def marker(path, indent, words):
    opener, close = comment(path)
    if opener == '..':
        # A reST comment says its words bare: `.. existing code`.
        words = words.strip('. ') or 'existing code'
    text = f'{opener} {words}' + (f' {close}' if close else '')
    return indent + text


def read_pairs(case_dirs):
    """Modified text files of apply cases, deduplicated by content."""
    seen, pairs = set(), []
    for cases in case_dirs:
        for cid in sorted(os.listdir(cases)):
            d = os.path.join(cases, cid)
            try:
                with open(os.path.join(d, 'case.json')) as f:
                    meta = json.load(f)
            except (OSError, ValueError):
                continue
            if meta.get('expect') != 'apply':
                continue
            before = os.path.join(d, 'before')
            for dirpath, _, files in os.walk(before):
                for name in files:
                    rel = os.path.relpath(os.path.join(dirpath, name), before)
                    after = os.path.join(d, 'after', rel)
                    if not os.path.isfile(after):
                        continue
                    try:
                        with open(os.path.join(before, rel), 'rb') as f:
                            b = f.read().decode('utf-8')
                        with open(after, 'rb') as f:
                            a = f.read().decode('utf-8')
                    except (OSError, UnicodeDecodeError):
                        continue
                    if a == b or '\0' in a or '\r' in a or '\r' in b:
                        continue
                    key = hashlib.sha256((rel + '\0' + b + '\0' + a).encode()).hexdigest()
                    if key not in seen:
                        seen.add(key)
                        pairs.append((cid, rel, b, a))
    return pairs


def regions(before, after, ctx):
    """The changed regions with `ctx` lines of context: (b_start, b_end, a_start, a_end)."""
    sm = difflib.SequenceMatcher(None, before, after, autojunk=False)
    out = []
    for group in sm.get_grouped_opcodes(ctx):
        out.append((group[0][1], group[-1][2], group[0][3], group[-1][4]))
    return out


def proof(before, after, ctx):
    """What the snippet says, for `reads_true`: (leading marker, trailing marker, regions)."""
    regs = regions(before, after, ctx)
    if not regs:
        return None
    return (regs[0][0] > 0, regs[-1][1] < len(before), [after[a0:a1] for _, _, a0, a1 in regs])


def reads_true(said, before, text):
    """Whether the snippet `said` (see `proof`) is true of `text`: its regions stand in `text` in
    order, each whole, the first at the top unless a marker leads and the last at the end unless
    a marker trails, and every stretch a marker stands for is a run of the before file's lines."""
    lead, trail, blocks = said
    old = [x.rstrip() for x in before]
    now = [x.rstrip() for x in lines_of(text)]
    blocks = [[x.rstrip() for x in b] for b in blocks]
    starts = {}
    for i, line in enumerate(old):
        starts.setdefault(line, []).append(i)

    def is_run(seg):
        return not seg or any(old[i:i + len(seg)] == seg for i in starts.get(seg[0], []))

    seen = set()

    def place(k, at):
        if (k, at) in seen:
            return False
        seen.add((k, at))
        if k == len(blocks):
            return is_run(now[at:]) if trail else at == len(now)
        blk = blocks[k]
        for pos in range(at, len(now) - len(blk) + 1):
            if k == 0 and not lead and pos > 0:
                break
            if now[pos:pos + len(blk)] == blk and is_run(now[at:pos]) and place(k + 1, pos + len(blk)):
                return True
        return False

    return place(0, 0)


def snippet(path, before, after, ctx, rng=None):
    """The snippet of the change: regions of after lines joined by markers."""
    out = []
    regs = regions(before, after, ctx)

    def mark(next_line):
        words = rng.choice(WORDINGS) if rng else '... existing code ...'
        indent = next_line[:len(next_line) - len(next_line.lstrip())] if next_line else ''
        out.append(marker(path, indent, words))

    for k, (b0, b1, a0, a1) in enumerate(regs):
        if k > 0 or b0 > 0:
            mark(after[a0] if a0 < len(after) else '')
        out.extend(after[a0:a1])
    if regs and regs[-1][1] < len(before):
        last = regs[-1][3]
        mark(after[last - 1] if last > 0 else '')
    return '\n'.join(out) + '\n'


def ambiguous(path, before, rng):
    """A snippet that inserts a line in the middle of a run of four lines that stands twice in
    the file: both places fit, so it must be refused."""
    seen = {}
    for i in range(len(before) - 3):
        run = tuple(before[i:i + 4])
        if all(any(ch.isalnum() for line in half for ch in line) for half in (run[:2], run[2:])):
            seen.setdefault(run, []).append(i)
    twice = [run for run, at in seen.items() if len(at) >= 2]
    if not twice:
        return None
    run = rng.choice(sorted(twice))
    indent = run[2][:len(run[2]) - len(run[2].lstrip())]
    lines = [marker(path, indent, '... existing code ...'), run[0], run[1],
             indent + 'salve_bench_inserted_line()', run[2], run[3],
             marker(path, indent, '... existing code ...')]
    return '\n'.join(lines) + '\n'


def fenced(path, body):
    lang = path.rsplit('.', 1)[-1] if '.' in path else ''
    # A longer fence around content that holds fences of its own, as models write it.
    fence = '````' if '```' in body else '```'
    return f'Here is the edit.\n\n{path}\n{fence}{lang}\n{body}{fence}\n'


def tool(path, body, xml):
    if xml:
        return (f'<edit_file>\n<target_file>{path}</target_file>\n'
                f'<instructions>I am changing the code as asked.</instructions>\n'
                f'<code_edit>\n{body}</code_edit>\n</edit_file>\n')
    call = {'target_file': path, 'instructions': 'I am changing the code as asked.',
            'code_edit': body}
    return 'Calling the tool:\n\n```json\n' + json.dumps(call, indent=2) + '\n```\n'


def replies(pair, rng):
    """(variant, reply, expected text, what the snippet says) for one pair."""
    _, path, b, a = pair
    before, after = lines_of(b), lines_of(a)
    p3, p1 = proof(before, after, 3), proof(before, after, 1)
    out = [('ctx3', fenced(path, snippet(path, before, after, 3)), a, p3),
           ('ctx1', fenced(path, snippet(path, before, after, 1)), a, p1),
           ('reworded', fenced(path, snippet(path, before, after, 3, rng)), a, p3),
           ('tool', tool(path, snippet(path, before, after, 3), rng.random() < 0.5), a, p3)]
    amb = ambiguous(path, before, rng)
    if amb:
        out.append(('ambiguous', fenced(path, amb), b, None))
    return out


def stripped(text):
    return [line.rstrip() for line in text.split('\n')]


def run_one(salve, path, before, reply, expected, said=None):
    with tempfile.TemporaryDirectory(prefix='salve-snip-') as tmp:
        repo = os.path.join(tmp, 'repo')
        target = os.path.join(repo, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'w', newline='') as f:
            f.write(before)
        subprocess.run(['git', 'init', '-q', repo], env=GIT_ENV, check=True)
        subprocess.run(['git', '-C', repo, 'add', '-A'], env=GIT_ENV, check=True)
        subprocess.run(['git', '-C', repo, 'commit', '-qm', 'before'], env=GIT_ENV, check=True)
        reply_path = os.path.join(tmp, 'reply.txt')
        with open(reply_path, 'w') as f:
            f.write(reply)
        env = dict(GIT_ENV, HOME=tmp, NO_COLOR='1')
        p = subprocess.run([salve, '-C', repo, 'apply', '--no-checkpoint', '--no-record', '-q',
                            reply_path], env=env, capture_output=True)
        with open(target, newline='') as f:
            now = f.read()
        if p.returncode == 0 and now == expected:
            return 'exact'
        if p.returncode == 0 and stripped(now) == stripped(expected) != stripped(before):
            # The change made, but a line the commit changed only in trailing whitespace kept
            # the file's own bytes (the file is the truth for lines equal but for it).
            return 'kept_ws'
        if p.returncode == 1 and now == before:
            return 'exact' if expected == before else 'refused'
        if p.returncode == 0 and said and reads_true(said, lines_of(before), now):
            return 'inexpressible'
        return 'wrong'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--salve', default=os.path.join(ROOT, 'target/release/salve'))
    ap.add_argument('--cases', action='append')
    ap.add_argument('--pairs', type=int, default=300)
    ap.add_argument('--seed', type=int, default=28)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--json')
    ap.add_argument('--no-bars', action='store_true', help='report only, never fail on a bar')
    args = ap.parse_args()
    print(f'seed {args.seed}; salve {args.salve}')
    pairs = read_pairs(args.cases or DEFAULT_CASES)
    no_comment = [p for p in pairs if comment(p[1]) is None]
    ws_only = [p for p in pairs if comment(p[1]) and trailing_ws_only(p[2], p[3])]
    usable = [p for p in pairs if comment(p[1]) and not trailing_ws_only(p[2], p[3])]
    rng = random.Random(args.seed)
    sample = rng.sample(usable, min(args.pairs, len(usable)))
    print(f'{len(pairs)} distinct file pairs; skipped {len(no_comment)} (no comment syntax), '
          f'{len(ws_only)} (only trailing whitespace or the final newline changed on a line); '
          f'sampled {len(sample)}')
    jobs = []
    for pair in sample:
        for variant, reply, expected, said in replies(pair, rng):
            jobs.append((pair, variant, reply, expected, said))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = [ex.submit(run_one, args.salve, j[0][1], j[0][2], j[2], j[3], j[4]) for j in jobs]
        for j, fut in zip(jobs, futs):
            results.append({'case': j[0][0], 'path': j[0][1], 'variant': j[1],
                            'outcome': fut.result()})
    return report(results, args)


def lines_of(text):
    """The lines of `text`; a final newline ends the last line, it does not start another."""
    lines = text.split('\n')
    if text.endswith('\n'):
        lines.pop()
    return lines


def trailing_ws_only(b, a):
    """Whether some line changes only in trailing whitespace, or the final newline comes or
    goes (a snippet cannot say either)."""
    if b.endswith('\n') != a.endswith('\n'):
        return True
    bl, al = lines_of(b), lines_of(a)

    # Lines the diff pairs as equal once trailing whitespace is ignored, but not before.
    bs, as_ = [x.rstrip() for x in bl], [y.rstrip() for y in al]
    sm = difflib.SequenceMatcher(None, bs, as_, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == 'equal' and bl[i1:i2] != al[j1:j2]:
            return True
    return False


def report(results, args):
    print('\n| variant | snippets | exact | refused | kept ws | inexpressible | wrong | exact % |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    failed = []
    for v in VARIANTS:
        rows = [r for r in results if r['variant'] == v]
        if not rows:
            continue
        n = len(rows)
        count = {o: sum(1 for r in rows if r['outcome'] == o)
                 for o in ('exact', 'refused', 'kept_ws', 'inexpressible', 'wrong')}
        pct = 100.0 * count['exact'] / n
        print(f"| {v} | {n} | {count['exact']} | {count['refused']} | {count['kept_ws']} "
              f"| {count['inexpressible']} | {count['wrong']} | {pct:.1f} |")
        if count['wrong']:
            failed.append(f'{v}: {count["wrong"]} wrong')
        if v in BARS and count['exact'] < BARS[v] * n:
            failed.append(f'{v}: {pct:.1f}% exact, under {BARS[v] * 100:.0f}%')
    for r in results:
        if r['outcome'] in ('wrong', 'inexpressible'):
            print(f"{r['outcome']}: {r['variant']} {r['case']} {r['path']}")
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)
    if failed and not args.no_bars:
        print('bars missed: ' + '; '.join(failed))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
