#!/usr/bin/env python3
"""Side-by-side corpus scores from score.py --json files.

    python3 scripts/corpus-compare.py target/bench-corpus/salve.json target/bench-corpus/git-apply.json ...

For every format and drift class, each tool gets `CAR / WAR` (correct-apply rate over expect=apply
cases, wrong-apply rate over cases run). Cases a tool cannot read are left out of its rates, as in
score.py. Standard library only.
"""
import json
import os
import sys

FORMATS = ['git', 'unified', 'search-replace', 'codex', 'whole-file', 'old-new-json', 'mixed']
DRIFTS = ['clean', 'offset', 'counts', 'nonums', 'dropctx', 'blankctx', 'trailws', 'indent', 'unicode',
          'elide', 'crlf_file', 'nonl', 'reorder', 'missing_plus', 'stale', 'already_applied',
          'wrong_target', 'ambiguous', 'near_twin', 'path_traversal', 'truncated']


def rates(rows):
    run = [r for r in rows if r['outcome'] != 'unsupported']
    if not run:
        return '-'
    apply = [r for r in run if r['expect'] == 'apply']
    refuse = [r for r in run if r['expect'] != 'apply']
    wrong = sum(r['outcome'] == 'wrong' for r in run)
    parts = []
    if apply:
        parts.append('%.1f%%' % (100.0 * sum(r['outcome'] == 'correct' for r in apply) / len(apply)))
    else:
        parts.append('TR %.1f%%' % (100.0 * sum(r['outcome'] == 'correct' for r in refuse) / len(refuse)))
    parts.append('%.1f%%' % (100.0 * wrong / len(run)))
    return ' / '.join(parts)


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.exit(__doc__)
    tools = []
    for p in paths:
        with open(p, encoding='utf-8') as f:
            data = json.load(f)
        name = os.path.splitext(os.path.basename(p))[0]
        tools.append((name, data['cases']))
    head = '| %s | cases | ' + ' | '.join(n for n, _ in tools) + ' |'
    sep = '|---|---:|' + '---:|' * len(tools)
    for title, keys, pick in (('format', FORMATS, lambda r, k: r['format'] == k),
                              ('drift class', DRIFTS, lambda r, k: k in r['drift'])):
        print(head % title)
        print(sep)
        for k in keys:
            n = sum(pick(r, k) for r in tools[0][1])
            if not n:
                continue
            cells = [rates([r for r in cases if pick(r, k)]) for _, cases in tools]
            print('| %s | %d | %s |' % (k, n, ' | '.join(cells)))
        print()
    print('Cells are CAR / WAR (TR = true-refusal rate, for classes that must be refused).')
    print()
    print('| tool | run | CAR | WAR | silent wrong | true-refusal | median ms | p99 ms |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    for name, cases in tools:
        run = [r for r in cases if r['outcome'] != 'unsupported']
        apply = [r for r in run if r['expect'] == 'apply']
        refuse = [r for r in run if r['expect'] != 'apply']
        walls = sorted(r['wall_s'] for r in run if r['wall_s'] is not None)
        med = walls[len(walls) // 2] * 1e3 if walls else 0
        p99 = walls[min(len(walls) - 1, int(round(0.99 * (len(walls) - 1))))] * 1e3 if walls else 0
        pc = lambda a, b: '%.1f%%' % (100.0 * a / b) if b else '-'
        print('| %s | %d | %s | %s | %d | %s | %.1f | %.1f |' % (
            name, len(run),
            pc(sum(r['outcome'] == 'correct' for r in apply), len(apply)),
            pc(sum(r['outcome'] == 'wrong' for r in run), len(run)),
            sum(bool(r['silent']) for r in run),
            pc(sum(r['outcome'] == 'correct' for r in refuse), len(refuse)),
            med, p99))


if __name__ == '__main__':
    main()
