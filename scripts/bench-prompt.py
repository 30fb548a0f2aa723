#!/usr/bin/env python3
"""How much of a real bug's fix a repair prompt shows (issue 24 §5).

Real code and its real tests: pure-Python modules of the standard library beside their own test
files from CPython's test suite, each copied into a git repository of its own. A bug is a one-line
mutation of the module that its tests catch (the fix is the mutation reverted, a one-line commit).
`salve fix` runs the failing tests once with a scripted model that saves the prompt and declines;
a bug counts as covered when the line its fix changes stands in that prompt.

    python3 scripts/bench-prompt.py [--seed N] [--per-module K] [--salve PATH] [--baseline PATH]

The seed is printed, so a run can be repeated. `--baseline` runs another salve binary (an older
build) on the same bugs, for the ratio. Prints the share covered per module and in all.
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile

STDLIB = os.path.dirname(os.__file__)
MODULES = ["colorsys", "shlex", "graphlib", "textwrap", "fractions", "calendar", "glob"]
SWAPS = [(" + ", " - "), (" - ", " + "), (" < ", " <= "), (" > ", " >= "), (" <= ", " < "),
         (" >= ", " > "), (" == ", " != "), (" != ", " == "), (" and ", " or "), (" or ", " and "),
         ("True", "False"), ("False", "True"), (" 1)", " 2)"), ("[0]", "[1]"), ("[-1]", "[0]")]
PROVIDER = """cat > "$1/prompt"
echo 'I cannot tell what is wrong.'
echo
echo 'Confidence: 0.1'
"""


def code_lines(text):
    """Indices of lines that are code: not blank, not comments, not inside docstrings."""
    out, in_doc = [], None
    for i, line in enumerate(text.split("\n")):
        s = line.strip()
        if in_doc:
            if in_doc in s:
                in_doc = None
            continue
        for q in ('"""', "'''"):
            if s.startswith(q) or s.startswith("r" + q):
                if s.count(q) == 1:
                    in_doc = q
                break
        else:
            if s and not s.startswith("#"):
                out.append(i)
    return out


def mutants(text, rng, limit):
    lines = text.split("\n")
    found = []
    for i in code_lines(text):
        code = lines[i].split("#")[0]
        for old, new in SWAPS:
            if old in code and '"' not in code and "'" not in code:
                found.append((i, lines[i].replace(old, new, 1)))
    rng.shuffle(found)
    return found[:limit]


def run(cmd, cwd, env=None, timeout=120):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def make_repo(tmp, module, text, home):
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    with open(os.path.join(repo, module + ".py"), "w") as f:
        f.write(text)
    shutil.copy(os.path.join(STDLIB, "test", f"test_{module}.py"), repo)
    provider_dir = os.path.join(tmp, "provider")
    os.makedirs(provider_dir)
    with open(os.path.join(provider_dir, "p.sh"), "w") as f:
        f.write(PROVIDER)
    with open(os.path.join(repo, "salve.toml"), "w") as f:
        f.write(f'[providers.script]\nkind = "command"\ncommand = ["sh", "{provider_dir}/p.sh", "{provider_dir}"]\n'
                f'timeout_secs = 30\n\n[chains]\ndefault = ["script"]\nquality = ["script"]\n')
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("__pycache__\n")
    env = dict(os.environ, HOME=home, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("XDG_DATA_HOME", None)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "a bug"]):
        run(cmd, repo, env)
    return repo, provider_dir, env


def covered(salve, module, text, line, tmp_root):
    """Whether the prompt `salve fix` builds for the bug shows `line` (the line its fix changes)."""
    tmp = tempfile.mkdtemp(dir=tmp_root)
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    repo, provider_dir, env = make_repo(tmp, module, text, home)
    run([salve, "trust"], repo, env)
    try:
        run([salve, "--json", "fix", "--attempts", "1", "--no-commit", "--", sys.executable, "-m",
             "unittest", "-q", f"test_{module}"], repo, env, timeout=300)
    except subprocess.TimeoutExpired:
        pass
    prompt_path = os.path.join(provider_dir, "prompt")
    prompt = open(prompt_path).read() if os.path.exists(prompt_path) else ""
    shutil.rmtree(tmp, ignore_errors=True)
    return line.strip() in prompt, bool(prompt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--per-module", type=int, default=6)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--salve", default=os.path.join(here, "target", "release", "salve"))
    ap.add_argument("--baseline")
    ap.add_argument("--modules", help="comma-separated, for a short run")
    args = ap.parse_args()
    modules = args.modules.split(",") if args.modules else MODULES
    rng = random.Random(args.seed)
    print(f"seed {args.seed}, {args.per_module} bugs a module at most, python {sys.version.split()[0]}")
    tools = [("salve", args.salve)] + ([("baseline", args.baseline)] if args.baseline else [])
    totals = {name: [0, 0] for name, _ in tools}
    tmp_root = tempfile.mkdtemp(prefix="bench-prompt-")
    try:
        for module in modules:
            source = os.path.join(STDLIB, module + ".py")
            test = os.path.join(STDLIB, "test", f"test_{module}.py")
            if not (os.path.exists(source) and os.path.exists(test)):
                print(f"{module}: not in this Python's standard library or test suite, skipped")
                continue
            text = open(source).read()
            lines = text.split("\n")
            bugs = []
            for i, mutated in mutants(text, rng, args.per_module * 4):
                if len(bugs) >= args.per_module:
                    break
                buggy = "\n".join(lines[:i] + [mutated] + lines[i + 1:])
                probe = tempfile.mkdtemp(dir=tmp_root)
                with open(os.path.join(probe, module + ".py"), "w") as f:
                    f.write(buggy)
                shutil.copy(test, probe)
                try:
                    r = run([sys.executable, "-m", "unittest", "-q", f"test_{module}"], probe, timeout=20)
                    caught = r.returncode != 0
                except subprocess.TimeoutExpired:
                    caught = False  # a bug that hangs the tests is no bug to fix in a loop
                shutil.rmtree(probe, ignore_errors=True)
                if caught:
                    bugs.append((buggy, mutated))
            row = []
            for name, salve in tools:
                hits = 0
                for buggy, mutated in bugs:
                    shown, asked = covered(salve, module, buggy, mutated, tmp_root)
                    hits += shown
                totals[name][0] += hits
                totals[name][1] += len(bugs)
                row.append(f"{name} {hits}/{len(bugs)}")
            print(f"{module}: " + ", ".join(row))
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    for name, (hits, n) in totals.items():
        share = 100.0 * hits / n if n else 0.0
        print(f"{name}: the fix's line stands in the prompt for {hits} of {n} bugs ({share:.1f}%)")
    if args.baseline and totals["baseline"][0]:
        print(f"ratio salve/baseline: {totals['salve'][0] / totals['baseline'][0]:.2f}x")


if __name__ == "__main__":
    main()
