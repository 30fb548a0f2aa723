#!/usr/bin/env bash
# Times the record (issue 4's bar):
#   1. `salve log` (first page, 20 runs) with RUNS runs recorded (default 100,000; target under
#      100 ms), plus the filtered listings `--status refused` and `--since 1d`;
#   2. `salve apply` of a small edit with and without `--no-record`, interleaved, median of
#      ITER each (target: recording adds under 10%).
#
#   scripts/bench-log.sh                      # 100,000 runs, 30 applies of each kind
#   RUNS=20000 ITER=10 scripts/bench-log.sh   # quicker
#   SALVE=target/debug/salve KEEP=/tmp/bench-log scripts/bench-log.sh
#
# The runs are generated as a `salve export` file (JSON Lines, one to three touched files per
# run, statuses mixed) and loaded with `salve import`, so the database is the one salve writes.
# Everything happens in a scratch directory (KEEP=DIR keeps and reuses it).
set -euo pipefail

runs="${RUNS:-100000}"
iter="${ITER:-30}"
. "$(dirname "$0")/bench-lib.sh"

scratch="${KEEP:-}"
if [ -z "$scratch" ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
now_us() { echo $(( $(date +%s%N) / 1000 )); }

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

# --- 1. salve log with many runs --------------------------------------------------------------
logrepo="$scratch/log-repo"
if [ ! -f "$logrepo/.git/salve/salve.db" ]; then
  rm -rf "$logrepo"
  mkdir -p "$logrepo"
  git -C "$logrepo" init -q -b main
  echo "generating $runs runs ..." >&2
  start="$(now_ms)"
  # Runs one minute apart, ending now; ids are the start time in hex plus a counter.
  awk -v n="$runs" -v now="$start" 'BEGIN {
    split("applied applied applied checked refused already_applied partial error", st, " ");
    split("unified search-replace codex git whole-file", fmt, " ");
    for (i = 0; i < n; i++) {
      t = now - (n - i) * 60000;
      id = hex(t, 12) hex(i, 8);
      s = st[i % 8 + 1];
      nf = i % 3 + 1;
      files = ""; added = 0; removed = 0;
      for (f = 0; f < nf; f++) {
        a = (i * 7 + f) % 40; r = (i * 3 + f) % 20;
        added += a; removed += r;
        files = files (f ? "," : "") sprintf("{\"path\":\"src/mod%d/file%d.rs\",\"change\":\"modify\",\"added\":%d,\"removed\":%d}", i % 50, f, a, r);
      }
      ps = (s == "refused" || s == "error") ? "rejected" : (s == "checked" ? "proposed" : "applied");
      if (ps == "rejected") { keptf = 0; added = 0; removed = 0 } else { keptf = nf }
      printf("{\"salve_export\":1,\"run\":{\"id\":\"%s\",\"kind\":\"apply\",\"command\":[\"salve\",\"apply\",\"reply-%d.md\"],\"baseline\":null,\"checkpoint\":null,\"started_at\":\"%s\",\"ended_at\":\"%s\",\"status\":\"%s\",\"files\":%d,\"added\":%d,\"removed\":%d},\"patch_sets\":[{\"seq\":1,\"files\":[%s],\"format\":\"%s\",\"status\":\"%s\"}],\"attempts\":[],\"decisions\":[],\"artifacts\":[]}\n",
        id, i, iso(t), iso(t + 150), s, keptf, added, removed, files, fmt[i % 5 + 1], ps);
    }
  }
  # awk printf %x stops at 32 bits; the times need 41.
  function hex(v, width,   out) {
    out = "";
    while (width-- > 0) { out = substr("0123456789abcdef", v % 16 + 1, 1) out; v = int(v / 16) }
    return out;
  }
  function iso(ms,   s, d, y, m, doy, yoe, era, doe, mp, day, sod) {
    s = int(ms / 1000); d = int(s / 86400); sod = s % 86400;
    d += 719468; era = int(d / 146097); doe = d - era * 146097;
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365);
    y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100));
    mp = int((5 * doy + 2) / 153); day = doy - int((153 * mp + 2) / 5) + 1;
    m = mp < 10 ? mp + 3 : mp - 9; if (m <= 2) y++;
    return sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, day, int(sod / 3600), int(sod / 60) % 60, sod % 60, ms % 1000);
  }' > "$scratch/runs.jsonl"
  echo "  generated in $(( $(now_ms) - start )) ms; importing ..." >&2
  start="$(now_ms)"
  imported="$("$salve" -C "$logrepo" import --json "$scratch/runs.jsonl")"
  echo "  imported in $(( $(now_ms) - start )) ms: $imported" >&2
fi
echo "runs recorded: $runs ($(du -h "$logrepo/.git/salve/salve.db" | cut -f1) database)"

time_log() {
  local label="$1"; shift
  "$salve" -C "$logrepo" log "$@" > /dev/null # warm the page cache
  for _ in $(seq 15); do
    local t0; t0="$(now_us)"
    "$salve" -C "$logrepo" log "$@" > /dev/null
    echo $(( $(now_us) - t0 ))
  done | median | awk -v l="$label" '{printf "%-42s median %6.1f ms (15 runs)\n", l, $1 / 1000}'
}
time_log "salve log (first page, 20 runs)"
time_log "salve log --status refused" --status refused
time_log "salve log --since 1d" --since 1d
time_log "salve log --json" --json

# --- 2. apply with and without the record -----------------------------------------------------
applyrepo="$scratch/apply-repo"
rm -rf "$applyrepo"
mkdir -p "$applyrepo"
git -C "$applyrepo" init -q -b main
git -C "$applyrepo" config user.name bench
git -C "$applyrepo" config user.email bench@salve.invalid
for i in $(seq 20); do printf 'def f%d(x):\n    return x + %d\n\n\n' "$i" "$i"; done > "$applyrepo/calc.py"
git -C "$applyrepo" add -A
git -C "$applyrepo" commit -q -m init
cat > "$scratch/reply.md" <<'REPLY'
Fixed the off-by-one:

```diff
--- a/calc.py
+++ b/calc.py
@@ -5,2 +5,2 @@
 def f2(x):
-    return x + 2
+    return x + 3
```
REPLY

time_apply() {
  git -C "$applyrepo" checkout -q -- calc.py
  local t0; t0="$(now_us)"
  "$salve" -C "$applyrepo" apply -q "$@" "$scratch/reply.md"
  echo $(( $(now_us) - t0 ))
}
: > "$scratch/with.txt"
: > "$scratch/without.txt"
: > "$scratch/with-nc.txt"
: > "$scratch/without-nc.txt"
time_apply > /dev/null # warm up
for _ in $(seq "$iter"); do
  time_apply >> "$scratch/with.txt"
  time_apply --no-record >> "$scratch/without.txt"
  time_apply --no-checkpoint >> "$scratch/with-nc.txt"
  time_apply --no-checkpoint --no-record >> "$scratch/without-nc.txt"
done
# Medians, and minimums: on a shared machine the fastest of many runs is the least disturbed.
report() {
  local with without with_min without_min
  with="$(median < "$scratch/$2.txt")"
  without="$(median < "$scratch/$3.txt")"
  with_min="$(sort -n "$scratch/$2.txt" | head -1)"
  without_min="$(sort -n "$scratch/$3.txt" | head -1)"
  awk -v w="$with" -v wo="$without" -v wm="$with_min" -v wom="$without_min" -v n="$iter" -v l="$1" 'BEGIN {
    printf "%-42s median %6.1f ms, min %6.1f ms (%d runs)\n", "salve apply " l, w / 1000, wm / 1000, n;
    printf "%-42s median %6.1f ms, min %6.1f ms\n", "salve apply " l "--no-record", wo / 1000, wom / 1000;
    printf "%-42s median %+5.1f %% (%+.1f ms), min %+5.1f %% (%+.1f ms)\n", "  recording overhead",
      (w - wo) * 100 / wo, (w - wo) / 1000, (wm - wom) * 100 / wom, (wm - wom) / 1000;
  }'
}
report "" with without
# Without a checkpoint the apply itself is cheapest, so the same cost weighs the most.
report "--no-checkpoint " with-nc without-nc
