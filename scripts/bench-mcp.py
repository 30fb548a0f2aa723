#!/usr/bin/env python3
"""Latency of `salve mcp` tool calls and of CLI applies next to a `git apply` process, in one run.

    cargo build --release -p salve
    python3 scripts/bench-mcp.py [--salve target/release/salve] [--calls 200] [--short]
                                 [--click PATH/TO/click/core.py]

One resident `salve mcp` child, spoken to over stdio as any MCP client does (JSON-RPC lines),
serves `str_replace` and `apply_edit` calls on a 2,000-line Python file, on a 3-line file and,
when click is installed (or `--click` names its `core.py`), on click's `core.py`, a real
3,535-line Python file (and on the same text as `core.txt`, which no syntax check reads), in a
git repository, checkpoint and record on (the server's defaults). Each call changes one line and
the next call changes it back, so every call writes. In the same run, interleaved with the
calls, a `git apply` process applies the same one-line change as a unified diff (and its
reverse) to a copy of the same repository; its time includes the process start, which is the
cost an agent running `git apply` would pay. A `salve apply` process (default mode: checkpoint
and record) applies the same diffs to a third copy, as the CLI small-edit figure, and one with
`--no-checkpoint --no-record` to a fourth, which leaves placement and the syntax check. The server's
CPU time per call is read from /proc before and after; the processes' CPU time (their children
included) from the rusage of waited-for children.

Prints a Markdown table of p50 and p90 in ms and the ratio of p50s; exits non-zero when a call
fails or a file does not hold what the calls wrote. `--short` makes a few calls only (the test
suite runs it so the script cannot rot; its figures mean nothing).

`--cli` measures CLI processes only (issue 25 §1, "a CLI small edit in default mode"): a one-hunk
edit of a 2,000-line `.txt` file (no syntax check) and of the 3-line file, by `git apply`, by
`salve apply` in default mode (checkpoint and record) and with `--no-checkpoint --no-record`,
each in its own copy of the repository, alternating in one loop. `--against OTHER` adds the same
two rows for a second salve binary (a build before a change), alternating with the first.
`--chain` (with or without `--cli`) makes each call change the line to a text it never had, as
an agent's edits do, where the default changes it and back: then nothing a call stores (the
checkpoint's copy of the file, the record's reply and report) was stored before.

    python3 scripts/bench-mcp.py --cli --calls 100 [--against /tmp/salve-before] [--chain]

Standard library only, plus git on the PATH.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', GIT_CONFIG_GLOBAL=os.devnull, LC_ALL='C',
               GIT_AUTHOR_NAME='bench', GIT_AUTHOR_EMAIL='bench@example.invalid',
               GIT_COMMITTER_NAME='bench', GIT_COMMITTER_EMAIL='bench@example.invalid')
TICKS = os.sysconf('SC_CLK_TCK')


def sh(args, cwd):
    return subprocess.run(args, cwd=cwd, env=GIT_ENV, capture_output=True, check=True)


CLICK_OLD = '            cmd: Group = group(*args, **kwargs)(f)'
CLICK_NEW = '            cmd: Group = group(*args, **dict(kwargs))(f)'


def find_click():
    """click's core.py, when click is installed for this Python (not imported)."""
    import importlib.util
    spec = importlib.util.find_spec('click')
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], 'core.py')
    return path if os.path.isfile(path) else None


def make_repo(path, click):
    os.makedirs(path)
    if click:
        shutil.copyfile(click, os.path.join(path, 'core.py'))
        # The same text under a name no syntax check reads: the check's share is the difference.
        shutil.copyfile(click, os.path.join(path, 'core.txt'))
    big = ''.join(f'    value_{i} = compute({i}, "line {i}")\n' for i in range(2000))
    with open(os.path.join(path, 'big.py'), 'w') as f:
        f.write('def main():\n' + big)
    with open(os.path.join(path, 'small.txt'), 'w') as f:
        f.write('alpha\nbeta\ngamma\n')
    with open(os.path.join(path, 'big.txt'), 'w') as f:
        f.write(''.join(f'line {i} of a plain text file\n' for i in range(2000)))
    sh(['git', 'init', '-q'], path)
    sh(['git', 'add', '.'], path)
    sh(['git', 'commit', '-qm', 'start'], path)


def edits(click):
    """(name, path, old line, new line): one line of each file, changed and changed back."""
    real = [('click core.py', 'core.py', CLICK_OLD, CLICK_NEW),
            ('click core.txt (not checked)', 'core.txt', CLICK_OLD, CLICK_NEW)] if click else []
    return real + [
        ('2,000 lines', 'big.py', '    value_1000 = compute(1000, "line 1000")',
         '    value_1000 = compute(1001, "line 1000")'),
        ('3 lines', 'small.txt', 'beta', 'BETA'),
    ]


def unified(path, lines, old, new):
    """A one-hunk diff of `path` changing line `old` (exact text) into `new`."""
    at = lines.index(old)
    lo, hi = max(0, at - 3), min(len(lines), at + 4)
    body = [f' {l}' for l in lines[lo:at]] + [f'-{old}', f'+{new}']
    body += [f' {l}' for l in lines[at + 1:hi]]
    n = hi - lo
    return (f'--- a/{path}\n+++ b/{path}\n@@ -{lo + 1},{n} +{lo + 1},{n} @@\n'
            + '\n'.join(body) + '\n')


class Server:
    def __init__(self, salve, cwd):
        self.proc = subprocess.Popen([salve, 'mcp'], cwd=cwd, env=GIT_ENV, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.request('initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                                    'clientInfo': {'name': 'bench-mcp', 'version': '0'}})
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + '\n')
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({'jsonrpc': '2.0', 'id': self.next_id, 'method': method, 'params': params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit('salve mcp exited')
            reply = json.loads(line)
            if reply.get('id') == self.next_id:
                return reply

    def call(self, tool, arguments):
        reply = self.request('tools/call', {'name': tool, 'arguments': arguments})
        result = reply.get('result') or {}
        if 'error' in reply or result.get('isError'):
            sys.exit(f'{tool} failed: {json.dumps(reply)[:600]}')
        return result

    def cpu(self):
        with open(f'/proc/{self.proc.pid}/stat') as f:
            fields = f.read().rsplit(')', 1)[1].split()
        # utime, stime, and the children's (the git processes it waited for).
        return sum(int(f) for f in fields[11:15]) / TICKS

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def timed(job):
    start = time.perf_counter()
    job()
    return (time.perf_counter() - start) * 1000


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


BARE = 'salve apply --no-checkpoint --no-record'
TOOLS = ('git apply', 'str_replace', 'apply_edit', 'salve apply (CLI)', BARE)


def chained(old, j):
    """The line `old` after `j` edits of a chain: a text no earlier edit wrote (a comment in
    Python, so the syntax check still passes)."""
    return old if j == 0 else f'{old} #{j}'


def measure(salve, calls, work, click, chain=False):
    served, plain = os.path.join(work, 'served'), os.path.join(work, 'plain')
    cli, bare = os.path.join(work, 'cli'), os.path.join(work, 'bare')
    make_repo(served, click)
    for copy in (plain, cli, bare):
        shutil.copytree(served, copy)
    server = Server(salve, served)
    rows = []
    for name, path, old, new in edits(click):
        with open(os.path.join(served, path)) as f:
            lines = f.read().split('\n')[:-1]
        if lines.count(old) != 1:
            sys.exit(f'{path}: the line to edit is not there exactly once: {old!r}')
        forward, back = unified(path, lines, old, new), unified(
            path, [new if l == old else l for l in lines], new, old)
        patches = []
        for k, text in enumerate((forward, back)):
            patch = os.path.join(work, f'{path}.{k}.diff')
            with open(patch, 'w') as f:
                f.write(text)
            patches.append(patch)
        times = {tool: [] for tool in TOOLS}
        cpu = {tool: 0.0 for tool in TOOLS}
        at = lines.index(old)
        final = lines
        for k in range(calls):
            patch = patches[k % 2]
            if chain:
                # The processes' copies take one step a call, the server's two (one per tool).
                patch = os.path.join(work, f'{path}.chain.diff')
                before_lines = lines[:at] + [chained(old, k)] + lines[at + 1:]
                with open(patch, 'w') as f:
                    f.write(unified(path, before_lines, chained(old, k), chained(old, k + 1)))
                final = lines[:at] + [chained(old, k + 1)] + lines[at + 1:]
            before = children_cpu()
            times['git apply'].append(timed(lambda: sh(['git', 'apply', patch], plain)))
            cpu['git apply'] += children_cpu() - before
            before = children_cpu()
            times['salve apply (CLI)'].append(timed(lambda: sh([salve, 'apply', '-q', patch], cli)))
            cpu['salve apply (CLI)'] += children_cpu() - before
            before = children_cpu()
            times[BARE].append(timed(lambda: sh(
                [salve, 'apply', '-q', '--no-checkpoint', '--no-record', patch], bare)))
            cpu[BARE] += children_cpu() - before
            was, now, then = (chained(old, 2 * k), chained(old, 2 * k + 1),
                              chained(old, 2 * k + 2)) if chain else (old, new, old)
            before = server.cpu()
            times['str_replace'].append(timed(lambda: server.call(
                'str_replace', {'path': path, 'old_str': was, 'new_str': now})))
            cpu['str_replace'] += server.cpu() - before
            # apply_edit takes it back (or, in a chain, one step on): a one-line diff.
            if chain:
                diff = unified(path, lines[:at] + [now] + lines[at + 1:], now, then)
            else:
                with open(patches[1]) as f:
                    diff = f.read()
            before = server.cpu()
            times['apply_edit'].append(timed(lambda: server.call('apply_edit', {'edit': diff})))
            cpu['apply_edit'] += server.cpu() - before
        served_final = lines[:at] + [chained(old, 2 * calls)] + lines[at + 1:] if chain else lines
        for repo, want in ((served, served_final), (cli, final), (bare, final), (plain, final)):
            with open(os.path.join(repo, path)) as f:
                if f.read().split('\n')[:-1] != want:
                    sys.exit(f'{repo}/{path}: the calls did not leave the file as they wrote it')
        rows.append((name, times, {t: c * 1000 / calls for t, c in cpu.items()}))
    server.close()
    return rows


def cli_edits():
    """(name, path, old line, new line) for `--cli`: files without a syntax check."""
    return [
        ('2,000-line .txt', 'big.txt', 'line 1000 of a plain text file',
         'LINE 1000 of a plain text file'),
        ('3 lines', 'small.txt', 'beta', 'BETA'),
    ]


def chain_patch(work, path, lines, old, k):
    """The `k`-th diff of a chain (from 0): line `old`, as call `k - 1` left it, changed once
    more. Returns the diff's path and the file's lines after it."""
    at = lines.index(old)
    text = [old if j == 0 else f'{old} #{j}' for j in (k, k + 1)]
    before = lines[:at] + [text[0]] + lines[at + 1:]
    patch = os.path.join(work, f'{path}.chain.diff')
    with open(patch, 'w') as f:
        f.write(unified(path, before, text[0], text[1]))
    return patch, lines[:at] + [text[1]] + lines[at + 1:]


def measure_cli(salves, calls, work, chain=False):
    """Rows (file, {tool: wall times}, {tool: CPU ms per call}) of CLI processes alternating.
    With `chain`, every call changes the line to a text it never had, so nothing a call writes
    (the checkpoint's copy of the file, the record's reply) was written before."""
    base = os.path.join(work, 'base')
    make_repo(base, None)
    tools = {'git apply': ['git', 'apply']}
    for label, salve in salves:
        tools[f'salve apply{label}'] = [salve, 'apply', '-q']
        tools[f'salve apply{label} --no-checkpoint --no-record'] = [
            salve, 'apply', '-q', '--no-checkpoint', '--no-record']
    repos = {}
    for k, tool in enumerate(tools):
        repos[tool] = os.path.join(work, f'repo{k}')
        shutil.copytree(base, repos[tool])
    rows = []
    for name, path, old, new in cli_edits():
        with open(os.path.join(base, path)) as f:
            lines = f.read().split('\n')[:-1]
        patches = []
        for k, text in enumerate((unified(path, lines, old, new), unified(
                path, [new if l == old else l for l in lines], new, old))):
            patch = os.path.join(work, f'{path}.{k}.diff')
            with open(patch, 'w') as f:
                f.write(text)
            patches.append(patch)
        times = {t: [] for t in tools}
        cpu = {t: 0.0 for t in tools}
        # Two applies each first, not counted: a record's creation and git's first reads of a
        # fresh repository are not what an agent's hundredth edit pays.
        final = lines
        for k in range(-2, calls):
            patch = patches[k % 2]
            if chain:
                patch, final = chain_patch(work, path, lines, old, k + 2)
            for tool, argv in tools.items():
                before = children_cpu()
                took = timed(lambda: sh(argv + [patch], repos[tool]))
                if k >= 0:
                    times[tool].append(took)
                    cpu[tool] += children_cpu() - before
        for tool, repo in repos.items():
            with open(os.path.join(repo, path)) as f:
                if f.read().split('\n')[:-1] != final:
                    sys.exit(f'{tool}: the applies did not leave {path} as they wrote it')
        rows.append((name, times, {t: c * 1000 / calls for t, c in cpu.items()}))
    return rows


def print_cli(rows, calls, chain):
    how = ('each changing the line to a text it never had' if chain
           else 'each diff and its reverse alternating')
    print(f'CLI processes, {calls} one-hunk applies per tool and file ({how}), against a '
          '`git apply` process in the same run\n')
    print('| file | tool | p50 ms | p90 ms | CPU ms/call | p50 / git apply p50 | CPU / git apply CPU |')
    print('|---|---|---|---|---|---|---|')
    for name, times, cpu in rows:
        base = statistics.median(times['git apply'])
        for tool, t in times.items():
            print(f'| {name} | {tool} | {statistics.median(t):.2f} | {p(t, 0.9):.2f} | '
                  f'{cpu[tool]:.2f} | {statistics.median(t) / base:.2f}x | '
                  f'{cpu[tool] / max(cpu["git apply"], 1e-9):.2f}x |')


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--salve', default=os.path.join(ROOT, 'target', 'release', 'salve'))
    ap.add_argument('--calls', type=int, default=200)
    ap.add_argument('--short', action='store_true', help='a few calls, for the test suite')
    ap.add_argument('--click', help="click's core.py (default: the installed click's, if any)")
    ap.add_argument('--cli', action='store_true', help='CLI processes only (see the docs)')
    ap.add_argument('--against', help='with --cli: a second salve binary, alternating')
    ap.add_argument('--chain', action='store_true',
                    help='each call writes a text never written before (see the docs)')
    args = ap.parse_args()
    calls = 4 if args.short else args.calls + args.calls % 2
    if args.cli:
        salves = [('', os.path.abspath(args.salve))]
        if args.against:
            salves = [(' (this)', salves[0][1]), (' (other)', os.path.abspath(args.against))]
        with tempfile.TemporaryDirectory() as work:
            print_cli(measure_cli(salves, calls, work, args.chain), calls, args.chain)
        return
    click = args.click or find_click()
    if not click:
        print('click is not installed: no row for its core.py', file=sys.stderr)
    with tempfile.TemporaryDirectory() as work:
        rows = measure(os.path.abspath(args.salve), calls, work, click, args.chain)
    how = ', each writing a text never written before' if args.chain else ''
    print(f'`salve mcp` over stdio and `salve apply` processes, checkpoint and record on, {calls} '
          f'calls per tool and file{how}, against a `git apply` process in the same run\n')
    print('| file | tool | p50 ms | p90 ms | CPU ms/call | p50 / git apply p50 | CPU / git apply CPU |')
    print('|---|---|---|---|---|---|---|')
    for name, times, cpu in rows:
        base = statistics.median(times['git apply'])
        for tool in TOOLS:
            t = times[tool]
            print(f'| {name} | {tool} | {statistics.median(t):.2f} | {p(t, 0.9):.2f} | '
                  f'{cpu[tool]:.1f} | {statistics.median(t) / base:.2f}x | '
                  f'{cpu[tool] / max(cpu["git apply"], 1e-9):.2f}x |')


if __name__ == '__main__':
    main()
