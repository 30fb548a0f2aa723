#!/usr/bin/env python3
"""Writes fuzz seeds from the applier scenarios.

    python3 scripts/fuzz-seeds.py

fuzz/seeds/parse/NNN is a scenario's reply.txt; fuzz/seeds/apply/NNN is the first file of its
before/ folder, a NUL byte, then the reply (the input layout the `apply` target expects).
"""
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCEN = os.path.join(ROOT, 'tests', 'fixtures', 'scenarios')
OUT = os.path.join(ROOT, 'fuzz', 'seeds')


def first_file(folder):
    for dirpath, dirnames, filenames in sorted(os.walk(folder)):
        dirnames.sort()
        for name in sorted(filenames):
            with open(os.path.join(dirpath, name), 'rb') as f:
                return f.read()
    return b''


def main():
    for target in ('parse', 'apply'):
        shutil.rmtree(os.path.join(OUT, target), ignore_errors=True)
        os.makedirs(os.path.join(OUT, target))
    n = 0
    for name in sorted(os.listdir(SCEN)):
        d = os.path.join(SCEN, name)
        if not os.path.isfile(os.path.join(d, 'reply.txt')):
            continue
        with open(os.path.join(d, 'reply.txt'), 'rb') as f:
            reply = f.read()
        seed = name.split('_', 1)[0]
        with open(os.path.join(OUT, 'parse', seed), 'wb') as f:
            f.write(reply)
        with open(os.path.join(OUT, 'apply', seed), 'wb') as f:
            f.write(first_file(os.path.join(d, 'before')) + b'\0' + reply)
        n += 1
    print('%d seeds per target in %s' % (n, OUT))


if __name__ == '__main__':
    main()
