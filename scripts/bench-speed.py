#!/usr/bin/env python3
"""Speed and memory of `salve apply` next to GNU patch and git apply, on large real files.

    cargo build --release -p salve
    python3 scripts/bench-speed.py [--salve target/release/salve] [--sqlite PATH] [--runs 5]

1. sqlite3.c (about 9 MB, 260k lines, taken from the libsqlite3-sys crate in the cargo registry;
   fetched with a throwaway cargo project when it is not there yet):
   - a clean 1,000-hunk patch made by `git diff` after editing 1,000 spread lines,
   - the same patch with whitespace and Unicode drift in one context line of every hunk,
   timed for salve, `patch -p1` and `git apply` on the same machine in the same run. salve runs
   three ways: by default (checkpoint and record), `--no-checkpoint`, and `--no-checkpoint
   --no-record` (the same work as the other two tools; the speed bar is measured on it: clean no
   slower than GNU patch, drifted under 3x clean).
2. One fuzzy hunk (similar rung, and canonical rung) in a 100,000-line file: salve must place it in
   under 50 ms of wall time, process start included (measured with and without the checkpoint
   `salve apply` takes before writing; the limit applies to the run without it).
3. Peak memory (`/usr/bin/time -v`, maximum resident set) of salve on sqlite3.c with the 1,000-hunk
   patch and on a 10 MB file with one hunk: must stay under 10x the file size.

Each tool's CPU time (user + system, its child processes included) is measured beside the wall
time; the clean patch's bar is also checked in CPU, which a loaded machine disturbs less.

`--against OTHER` adds a loop measuring the clean patch in CPU by this salve, OTHER (a build
before a change) and GNU patch in turn, `--rounds` times (15 by default): each sees the same
moments of a shared machine, which single runs of each do not.

    python3 scripts/bench-speed.py --runs 1 --against /tmp/salve-before [--rounds 15]

`--short` runs every part on small synthetic files once (a 20,000-line file and a 100-hunk patch
in place of sqlite3.c, a 10,000-line file for the fuzzy hunk): the test suite runs it so that the
script cannot rot. Its figures mean nothing, so its time and memory limits are only printed;
a wrong result still fails it.

Prints Markdown tables; exits non-zero when a limit is exceeded or a tool's result is wrong.
Standard library only, plus git, patch and /usr/bin/time on the PATH.
"""
import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME='bench', GIT_AUTHOR_EMAIL='bench@example.invalid',
               GIT_COMMITTER_NAME='bench', GIT_COMMITTER_EMAIL='bench@example.invalid')
FAILURES = []
# --short: limits are printed, not enforced (see the module docs).
SHORT = False


def limit_missed(message):
    if not SHORT:
        FAILURES.append(message)


def sh(args, cwd=None, check=True):
    return subprocess.run(args, cwd=cwd, env=GIT_ENV, capture_output=True, check=check)


def find_sqlite():
    pattern = os.path.expanduser('~/.cargo/registry/src/*/libsqlite3-sys-*/sqlite3/sqlite3.c')
    found = sorted(glob.glob(pattern))
    if found:
        return found[-1]
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, 'src'))
        with open(os.path.join(t, 'Cargo.toml'), 'w') as f:
            f.write('[package]\nname = "fetch-sqlite"\nversion = "0.0.0"\nedition = "2021"\n'
                    '[dependencies]\nlibsqlite3-sys = { version = "0.35", features = ["bundled"] }\n')
        with open(os.path.join(t, 'src', 'main.rs'), 'w') as f:
            f.write('fn main() {}\n')
        subprocess.run(['cargo', 'fetch', '-q'], cwd=t, check=True)
    found = sorted(glob.glob(pattern))
    if not found:
        sys.exit('sqlite3.c not found in the cargo registry after cargo fetch')
    return found[-1]


def make_repo(path, files):
    os.makedirs(path)
    sh(['git', 'init', '-q', path])
    sh(['git', 'config', 'core.autocrlf', 'false'], cwd=path)
    for rel, data in files.items():
        with open(os.path.join(path, rel), 'wb') as f:
            f.write(data)
    sh(['git', 'add', '-A'], cwd=path)
    sh(['git', 'commit', '-q', '-m', 'base'], cwd=path)


def git_diff(repo, rel, new):
    with open(os.path.join(repo, rel), 'rb') as f:
        old = f.read()
    with open(os.path.join(repo, rel), 'wb') as f:
        f.write(new)
    out = sh(['git', 'diff', '--no-color'], cwd=repo).stdout
    with open(os.path.join(repo, rel), 'wb') as f:
        f.write(old)
    return out


def spread_edit(data, count):
    """Appends a comment to `count` evenly spread, non-blank lines (not line continuations)."""
    lines = data.split(b'\n')
    step = len(lines) // (count + 1)
    done = 0
    i = step
    while done < count and i < len(lines):
        j = i
        while j < len(lines) and (len(lines[j].strip()) < 4 or lines[j].endswith(b'\\')):
            j += 1
        if j >= len(lines):
            break
        lines[j] = lines[j] + b' /* bench edit */'
        done += 1
        i = max(j + 8, i + step)
    assert done == count, done
    return b'\n'.join(lines)


def drift_patch(patch):
    """Whitespace or Unicode drift in the first non-blank context line of every hunk."""
    out = []
    in_hunk = False
    drifted = False
    k = 0
    for line in patch.split(b'\n'):
        if line.startswith(b'@@'):
            in_hunk, drifted = True, False
            k += 1
        elif line.startswith(b'diff --git'):
            in_hunk = False
        elif in_hunk and not drifted and line.startswith(b' ') and len(line.strip()) > 3:
            text = line.decode('utf-8', 'surrogateescape')
            kind = k % 4
            if kind == 1 and '"' in text:
                text = text.replace('"', '\u201c', 1).replace('"', '\u201d', 1)
            elif kind == 2 and re.search(r'\S \S', text):
                text = re.sub(r'(\S) (\S)', r'\1  \2', text, count=1)
            elif kind == 3 and '-' in text:
                text = text.replace('-', '\u2013', 1)
            else:
                text = text + '  '
            line = text.encode('utf-8', 'surrogateescape')
            drifted = True
        out.append(line)
    return b'\n'.join(out)


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, cwd):
    """Wall time, the process's result, and its CPU time (children included)."""
    c0 = cpu_of_children()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=GIT_ENV, capture_output=True)
    wall = time.perf_counter() - t0
    p.cpu = cpu_of_children() - c0
    return wall, p


def bench_tools(title, repo, rel, original, expected, patch_path, tools, runs):
    print('### %s\n' % title)
    print('| tool | median ms | x gnu-patch | x git-apply | CPU ms | CPU x gnu-patch | exit | result |')
    print('|---|---:|---:|---:|---:|---:|---:|---|')
    medians, cpu = {}, {}
    rows = []
    for name, cmd in tools:
        times, cpus, code, result = [], [], None, None
        for _ in range(runs):
            with open(os.path.join(repo, rel), 'wb') as f:
                f.write(original)
            for junk in glob.glob(os.path.join(repo, '*.rej')) + glob.glob(os.path.join(repo, '*.orig')):
                os.remove(junk)
            wall, p = timed(cmd + [patch_path], repo)
            times.append(wall)
            cpus.append(p.cpu)
            code = p.returncode
            with open(os.path.join(repo, rel), 'rb') as f:
                got = f.read()
            result = 'correct' if got == expected else ('unchanged' if got == original else 'WRONG')
        medians[name] = statistics.median(times)
        cpu[name] = statistics.median(cpus)
        rows.append((name, medians[name], code, result))
        if name == 'salve' and result != 'correct':
            FAILURES.append('%s: salve result %s (exit %s): %s' % (title, result, code, p.stderr[-400:]))
    for name, med, code, result in rows:
        ratios = ['%.2fx' % (med / medians[o]) if medians.get(o) else '-' for o in ('gnu-patch', 'git-apply')]
        cpu_ratio = '%.2fx' % (cpu[name] / cpu['gnu-patch']) if cpu.get('gnu-patch') else '-'
        print('| %s | %.1f | %s | %s | %.1f | %s | %s | %s |' % (
            name, med * 1e3, ratios[0], ratios[1], cpu[name] * 1e3, cpu_ratio, code, result))
    print()
    medians['cpu'] = cpu
    return medians


FAST = 'salve --no-checkpoint --no-record'


def alternating(repo, original, expected, patch_path, salves, rounds):
    """The clean patch by each salve (`--no-checkpoint --no-record`) and GNU patch in turn,
    `rounds` times, so that every binary sees the same moments of a shared machine: the
    median CPU of each (its children included) and its ratio to GNU patch's."""
    tools = [(label, [salve, 'apply', '--no-checkpoint', '--no-record']) for label, salve in salves]
    tools.append(('gnu-patch', ['patch', '-p1', '-s', '--no-backup-if-mismatch', '-i']))
    cpus = {name: [] for name, _ in tools}
    for _ in range(rounds):
        for name, cmd in tools:
            with open(os.path.join(repo, 'sqlite3.c'), 'wb') as f:
                f.write(original)
            _, p = timed(cmd + [patch_path], repo)
            with open(os.path.join(repo, 'sqlite3.c'), 'rb') as f:
                if f.read() != expected:
                    FAILURES.append('alternating: %s did not write the patched file' % name)
            cpus[name].append(p.cpu)
    print('### Clean patch in CPU, alternating (%d rounds)\n' % rounds)
    print('| tool | median CPU ms | x gnu-patch |')
    print('|---|---:|---:|')
    gnu = statistics.median(cpus['gnu-patch'])
    for name, values in cpus.items():
        med = statistics.median(values)
        print('| %s | %.1f | %.2fx |' % (name, med * 1e3, med / gnu if gnu else float('nan')))
    print()


def bars(clean, drift):
    """The speed bar: clean no slower than GNU patch, drifted under 3x clean (both without the
    checkpoint and the record)."""
    checks = [
        ('clean patch, %s vs gnu-patch' % FAST, clean[FAST], clean['gnu-patch'], 1.0),
        ('clean patch, %s vs gnu-patch, CPU' % FAST, clean['cpu'][FAST], clean['cpu']['gnu-patch'], 1.0),
        ('drifted patch vs clean patch, %s' % FAST, drift[FAST], clean[FAST], 3.0),
    ]
    print('### Speed bar\n')
    print('| check | ratio | limit | result |')
    print('|---|---:|---:|---|')
    for label, t, ref, limit in checks:
        ok = t <= ref * limit
        if not ok:
            limit_missed('speed bar: %s is %.2fx (limit %.1fx)' % (label, t / ref, limit))
        print('| %s | %.2fx | %.1fx | %s |' % (label, t / ref, limit, 'met' if ok else 'MISSED'))
    print()


def synthetic(n):
    return ''.join('int v%d = compute(%d, %d); /* row %d */\n' % (i, i, (i * 7) % 1000, i)
                   for i in range(n)).encode()


def fuzzy_hunk(salve, runs, work):
    n = 10_000 if SHORT else 100_000
    data = synthetic(n)
    lines = data.decode().split('\n')
    at = n // 2
    ctx_before = lines[at - 4:at - 1]
    ctx_after = lines[at:at + 3]
    target = lines[at - 1]
    print('### One fuzzy hunk in a %d-line file\n' % n)
    print('| drift | rung | median ms | --no-checkpoint ms | --no-checkpoint --no-record ms | limit (without checkpoint) |')
    print('|---|---|---:|---:|---:|---|')
    variants = {
        'typo in an inner context line (similar)':
            ctx_before[:2] + [ctx_before[2].replace('compute', 'compte')],
        'curly quotes and doubled spaces (canonical)':
            [ctx_before[0].replace('int v', 'int  v')] + ctx_before[1:],
    }
    for label, before in variants.items():
        body = [' ' + l for l in before] + ['-' + target, '+' + target.replace('compute', 'compute_fast')]
        body += [' ' + l for l in ctx_after]
        patch = '--- a/big.c\n+++ b/big.c\n@@ -%d,7 +%d,7 @@\n%s\n' % (at - 3, at - 3, '\n'.join(body))
        if 'canonical' in label:
            patch = patch.replace('/* row %d */' % (at - 3), '/* \u201crow\u201d %d */' % (at - 3))
            data_q = data.replace(b'/* row %d */' % (at - 3), b'/* "row" %d */' % (at - 3))
        else:
            data_q = data
        repo = os.path.join(work, 'fuzzy-%d' % len(os.listdir(work)))
        make_repo(repo, {'big.c': data_q})
        pp = os.path.join(work, 'fuzzy.patch')
        with open(pp, 'w') as f:
            f.write(patch)
        meds, rung = [], None
        for extra in ([], ['--no-checkpoint'], ['--no-checkpoint', '--no-record']):
            times = []
            for _ in range(runs):
                with open(os.path.join(repo, 'big.c'), 'wb') as f:
                    f.write(data_q)
                wall, p = timed([salve, 'apply', '--json'] + extra + [pp], repo)
                times.append(wall)
                if p.returncode != 0:
                    FAILURES.append('fuzzy hunk (%s) refused: %s' % (label, p.stdout[-600:]))
                    break
                try:
                    rung = json.loads(p.stdout)['files'][0]['hunks'][0].get('rung')
                except (ValueError, KeyError, IndexError):
                    rung = '?'
            meds.append(statistics.median(times))
        ok = meds[1] < 0.050
        if not ok:
            limit_missed('fuzzy hunk (%s) took %.1f ms without checkpoint' % (label, meds[1] * 1e3))
        print('| %s | %s | %.1f | %.1f | %.1f | %s |' % (label, rung, meds[0] * 1e3, meds[1] * 1e3,
                                                        meds[2] * 1e3, '< 50 ms' if ok else 'OVER 50 ms'))
    print()


def max_rss_kb(cmd, cwd):
    p = subprocess.run(['/usr/bin/time', '-v'] + cmd, cwd=cwd, env=GIT_ENV, capture_output=True, text=True)
    m = re.search(r'Maximum resident set size \(kbytes\): (\d+)', p.stderr)
    return (int(m.group(1)) if m else -1), p.returncode


def memory(salve, sqlite_repo, sqlite_size, clean_patch, work):
    print('### Peak memory\n')
    print('| input | file MB | max RSS MB | ratio | limit |')
    print('|---|---:|---:|---:|---|')
    rows = [('synthetic file, 100-hunk patch' if SHORT else 'sqlite3.c, 1,000-hunk patch',
             sqlite_repo, sqlite_size, clean_patch)]
    big = synthetic(19_500 if SHORT else 195_000)
    repo = os.path.join(work, 'mem10')
    make_repo(repo, {'big.c': big})
    lines = big.split(b'\n')
    at = len(lines) * 2 // 3
    new = b'\n'.join(lines[:at] + [lines[at] + b' // edited'] + lines[at + 1:])
    pp = os.path.join(work, 'mem10.patch')
    with open(pp, 'wb') as f:
        f.write(git_diff(repo, 'big.c', new))
    rows.append(('synthetic %d MB file, one hunk' % round(len(big) / 1e6), repo, len(big), pp))
    for label, repo, size, patch in rows:
        sh(['git', 'checkout', '-q', '--', '.'], cwd=repo)
        rss, code = max_rss_kb([salve, 'apply', patch], repo)
        ratio = rss * 1024.0 / size
        if code != 0:
            FAILURES.append('memory on %s: exit %s' % (label, code))
        ok = code == 0 and 0 < ratio < 10
        if not ok:
            limit_missed('memory on %s: exit %s, ratio %.1f' % (label, code, ratio))
        print('| %s | %.1f | %.1f | %.1fx | %s |' % (label, size / 1e6, rss / 1024.0, ratio,
                                                     '< 10x' if ok else 'OVER'))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--salve', default=os.path.join(ROOT, 'target', 'release', 'salve'))
    ap.add_argument('--sqlite', help='path of sqlite3.c (default: from the cargo registry)')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--short', action='store_true',
                    help='small synthetic files, one run, limits not enforced (for the tests)')
    ap.add_argument('--against', help='a second salve binary: the clean patch in CPU, alternating')
    ap.add_argument('--rounds', type=int, default=15, help='rounds of the alternating loop')
    args = ap.parse_args()
    global SHORT
    SHORT = args.short
    salve = os.path.abspath(args.salve)
    if not os.access(salve, os.X_OK):
        sys.exit('no salve binary at %s: cargo build --release -p salve' % salve)
    if SHORT:
        args.runs = 1
        sqlite, original = 'a synthetic file (--short)', synthetic(20_000)
    else:
        sqlite = args.sqlite or find_sqlite()
        with open(sqlite, 'rb') as f:
            original = f.read()
    work = tempfile.mkdtemp(prefix='salve-bench-')
    try:
        print('salve %s; sqlite3.c from %s (%.1f MB, %d lines); median of %d runs\n' % (
            salve, sqlite, len(original) / 1e6, original.count(b'\n'), args.runs))
        repo = os.path.join(work, 'sqlite')
        make_repo(repo, {'sqlite3.c': original})
        expected = spread_edit(original, 100 if SHORT else 1000)
        clean = git_diff(repo, 'sqlite3.c', expected)
        hunks = clean.count(b'\n@@ ')
        clean_path = os.path.join(work, 'clean.patch')
        with open(clean_path, 'wb') as f:
            f.write(clean)
        drift_path = os.path.join(work, 'drift.patch')
        with open(drift_path, 'wb') as f:
            f.write(drift_patch(clean))
        # The default mode also takes a checkpoint and writes the record (with the diff of what it
        # wrote); --no-checkpoint --no-record is the work GNU patch and git apply do.
        tools = [('salve', [salve, 'apply']),
                 ('salve --no-checkpoint', [salve, 'apply', '--no-checkpoint']),
                 (FAST, [salve, 'apply', '--no-checkpoint', '--no-record']),
                 ('gnu-patch', ['patch', '-p1', '-s', '--no-backup-if-mismatch', '-i']),
                 ('git-apply', ['git', 'apply'])]
        name = 'synthetic file' if SHORT else 'sqlite3.c'
        clean_t = bench_tools('%s, clean patch, %d hunks' % (name, hunks), repo, 'sqlite3.c', original,
                              expected, clean_path, tools, args.runs)
        drift_t = bench_tools('%s, drifted patch (whitespace and Unicode in context), %d hunks' % (name, hunks),
                              repo, 'sqlite3.c', original, expected, drift_path, tools, args.runs)
        bars(clean_t, drift_t)
        if args.against:
            salves = [('salve (this)', salve), ('salve (other)', os.path.abspath(args.against))]
            alternating(repo, original, expected, clean_path, salves, 2 if SHORT else args.rounds)
        fuzzy_hunk(salve, args.runs, work)
        with open(os.path.join(repo, 'sqlite3.c'), 'wb') as f:
            f.write(original)
        memory(salve, repo, len(original), clean_path, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print('FAILED:\n' + '\n'.join(FAILURES), file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
