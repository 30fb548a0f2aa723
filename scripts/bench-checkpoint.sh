#!/usr/bin/env bash
# Times `salve checkpoint` and `salve restore` on a large repository against the git commands
# a careful person would type by hand, and prints the ratios.
#
#   scripts/bench-checkpoint.sh                     # 100,000 files, 5 runs each
#   FILES=20000 RUNS=3 scripts/bench-checkpoint.sh  # quicker
#   SALVE=target/debug/salve KEEP=/tmp/bench-repo scripts/bench-checkpoint.sh
#
# The repository has FILES tracked files (100 per directory), then 100 modified and 100
# untracked files. Measured, median of RUNS:
#   salve checkpoint
#   by hand: git stash create + temp index copied from .git/index, add -A, write-tree
#   read-tree seeded: temp index from `read-tree HEAD`, add -A, write-tree (what a naive
#     snapshot does; it re-hashes every file)
#   salve restore CHECKPOINT   (from a clean HEAD tree back to the modified state)
#   git checkout CHECKPOINT -- .  (the same files written by git itself)
# The repository is built once (KEEP=DIR reuses it) and is the only thing written.
set -euo pipefail

files="${FILES:-100000}"
runs="${RUNS:-5}"
. "$(dirname "$0")/bench-lib.sh"

repo="${KEEP:-}"
if [ -z "$repo" ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  repo="$scratch/repo"
fi

if [ ! -d "$repo/.git" ]; then
  echo "building a repository of $files files in $repo ..." >&2
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  git -C "$repo" config user.name bench
  git -C "$repo" config user.email bench@example.invalid
  python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "src", f"d{i // 100:04d}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i % 100:02d}.txt"), "w") as f:
        f.write(f"file {i}\n" + "x" * (i % 200) + "\n")
PY
  git -C "$repo" add -A
  git -C "$repo" commit -q -m base
fi
cd "$repo"

dirty() {
  # 100 modified tracked files and 100 untracked ones, spread over the tree.
  python3 - "$files" <<'PY'
import os, sys
n = int(sys.argv[1])
step = max(1, n // 100)
for k in range(100):
    i = (k * step) % n
    p = os.path.join("src", f"d{i // 100:04d}", f"f{i % 100:02d}.txt")
    with open(p, "a") as f:
        f.write("modified\n")
    with open(os.path.join("src", f"d{i // 100:04d}", f"new{k:03d}.txt"), "w") as f:
        f.write(f"untracked {k}\n")
PY
}

clean() {
  git checkout -q -- .
  git clean -q -f -- src >/dev/null
}

now() { date +%s%N; }

# median of the remaining arguments (nanoseconds), printed in milliseconds
median_ms() {
  printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.1f", m/1e6}'
}

time_runs() { # label, command...
  local label="$1"; shift
  local samples=()
  for _ in $(seq "$runs"); do
    local t0; t0=$(now)
    "$@" >/dev/null
    local t1; t1=$(now)
    samples+=($((t1 - t0)))
  done
  median_ms "${samples[@]}"
}

by_hand() {
  git stash create >/dev/null
  local tmp; tmp="$(git rev-parse --git-dir)/bench-index"
  cp -p "$(git rev-parse --git-path index)" "$tmp"
  GIT_INDEX_FILE="$tmp" git add -A
  GIT_INDEX_FILE="$tmp" git write-tree >/dev/null
  rm -f "$tmp"
}

read_tree_seeded() {
  local tmp; tmp="$(git rev-parse --git-dir)/bench-index"
  GIT_INDEX_FILE="$tmp" git read-tree HEAD
  GIT_INDEX_FILE="$tmp" git add -A
  GIT_INDEX_FILE="$tmp" git write-tree >/dev/null
  rm -f "$tmp"
}

clean
dirty
git update-index -q --refresh || true
salve_cp=$(time_runs "salve checkpoint" "$salve" checkpoint -m bench)
hand=$(time_runs "by hand" by_hand)
seeded=$(time_runs "read-tree seeded" read_tree_seeded)

# The checkpoint's commit comes from its own report: checkpoints live in one catalog ref now,
# not a ref each.
taken=$("$salve" checkpoint --json -m target)
target=$(printf '%s' "$taken" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
target_commit=$(printf '%s' "$taken" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tree"])')

restore_samples=()
checkout_samples=()
for _ in $(seq "$runs"); do
  clean; git update-index -q --refresh || true
  t0=$(now); "$salve" restore "$target" >/dev/null; t1=$(now)
  restore_samples+=($((t1 - t0)))
  clean; git update-index -q --refresh || true
  t0=$(now); git checkout -q "$target_commit" -- .; t1=$(now)
  checkout_samples+=($((t1 - t0)))
done
restore_ms=$(median_ms "${restore_samples[@]}")
checkout_ms=$(median_ms "${checkout_samples[@]}")

# Leave only the bench repository's own refs behind when it is kept.
git for-each-ref --format='delete %(refname)' refs/salve/ | git update-ref --stdin
rm -f "$(git rev-parse --git-dir)/salve/oplog"
clean

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "files: $files tracked, 100 modified, 100 untracked; median of $runs runs; git $(git version | cut -d' ' -f3)"
printf '%-34s %9s ms\n' "salve checkpoint" "$salve_cp"
printf '%-34s %9s ms\n' "by hand (stash create + add -A)" "$hand"
printf '%-34s %9s ms\n' "read-tree HEAD seeded + add -A" "$seeded"
printf '%-34s %9s ms\n' "salve restore" "$restore_ms"
printf '%-34s %9s ms\n' "git checkout CHECKPOINT -- ." "$checkout_ms"
echo "checkpoint / by hand:   $(ratio "$salve_cp" "$hand")  (bar: <= 1.2)"
echo "checkpoint / read-tree: $(ratio "$salve_cp" "$seeded")"
echo "restore / checkout:     $(ratio "$restore_ms" "$checkout_ms")  (bar: < 2)"
