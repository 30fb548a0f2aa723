#!/usr/bin/env python3
"""The untracked listing in process against `git ls-files`, on repositories of growing size.

Each repository holds COPIES copies of this repository's `crates/` (tracked and committed), a
few untracked files and an untracked directory, and an ignored `target/` of many files (git
does not enter it, and neither does the walk). salve-git's example `untracked_listing` lists
each repository both ways, alternating in one process, checks that the answers are equal, and
reports medians; this script prints one row per size with the ratio.

    cargo build --release -p salve-git --example untracked_listing
    python3 scripts/bench-untracked.py [--sizes 1,4,16,48] [--rounds 60] [--short]

`--short` (a test) runs one small size with a few rounds.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(cwd, *args):
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def make_repo(base, copies):
    repo = os.path.join(base, f"repo-{copies}")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    ignore = lambda d, names: [n for n in names if n in ("target", ".git")]
    for i in range(copies):
        shutil.copytree(os.path.join(ROOT, "crates"), os.path.join(repo, f"c{i}"), ignore=ignore)
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("target/\n*.tmp\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    for name in ("notes.md", "c0/new.rs", "scratch.tmp"):
        with open(os.path.join(repo, name), "w") as f:
            f.write("x\n")
    os.makedirs(os.path.join(repo, "drafts/deep"))
    for i in range(20):
        with open(os.path.join(repo, f"drafts/deep/d{i}.txt"), "w") as f:
            f.write("d\n")
    os.makedirs(os.path.join(repo, "target/debug"))
    for i in range(500):
        with open(os.path.join(repo, f"target/debug/o{i}.o"), "w") as f:
            f.write("o\n")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=repo, check=True, capture_output=True
    ).stdout.count(b"\n")
    return repo, tracked


def measure(example, repo, rounds):
    out = subprocess.run(
        [example, repo, str(rounds)], check=True, capture_output=True, text=True
    ).stdout
    rows = {}
    for line in out.splitlines():
        name, *fields = line.split("\t")
        rows[name] = dict(f.split(" ") for f in fields)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--example",
        default=os.path.join(
            os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
            "release/examples/untracked_listing",
        ),
    )
    parser.add_argument("--sizes", default="1,4,16,48")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--short", action="store_true", help="one small size, a few rounds")
    args = parser.parse_args()
    sizes = [1] if args.short else [int(s) for s in args.sizes.split(",")]
    rounds = 3 if args.short else args.rounds
    if not os.path.exists(args.example):
        sys.exit(f"{args.example} is missing: cargo build --release -p salve-git --example untracked_listing")
    print(f"load average at start: {os.getloadavg()}")
    print("| tracked files | untracked records (top, below) | in process p50 (us) | git p50 (us) | "
          "in process / git, p50 | CPU per call, in process / git (us) |")
    print("|---:|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as base:
        for copies in sizes:
            repo, tracked = make_repo(base, copies)
            rows = measure(args.example, repo, rounds)
            ours, theirs, records = rows["in_process"], rows["git"], rows["records"]
            ratio = int(ours["p50_us"]) / max(1, int(theirs["p50_us"]))
            print(f"| {tracked} | {records['top']}, {records['below']} | {ours['p50_us']} | "
                  f"{theirs['p50_us']} | {ratio:.2f}x | {ours['cpu_us']} / {theirs['cpu_us']} |")
            shutil.rmtree(repo)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
