#!/usr/bin/env bash
# Scores salve and the baselines (git apply, loose git apply, GNU patch) on the shared corpus and
# prints them side by side, per format and per drift class.
#
#   scripts/bench-corpus.sh                 # all four tools
#   TOOLS="salve git-apply" scripts/bench-corpus.sh
#   CORPUS=/path/to/cases JOBS=2 OUT=/tmp/scores scripts/bench-corpus.sh
#   FILTER='^(py|rs)-00[12]' SALVE=target/debug/salve scripts/bench-corpus.sh   # a few cases
#
# salve is built in release mode first, unless SALVE names a binary. FILTER is score.py's
# --filter (a regex on "id<TAB>format<TAB>drift,tags<TAB>expect"). Per-case results stay in
# $OUT/<tool>.json.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${CORPUS:-$root/../shared/corpus/cases}"
score="$(dirname "$corpus")/score.py"
jobs="${JOBS:-2}"
out="${OUT:-$root/target/bench-corpus}"
tools="${TOOLS:-salve git-apply git-apply-loose gnu-patch}"
filter=()
[ -z "${FILTER:-}" ] || filter=(--filter "$FILTER")

[ -f "$score" ] || { echo "score.py not found next to $corpus" >&2; exit 2; }
mkdir -p "$out"

for tool in $tools; do
  echo "== $tool" >&2
  if [ "$tool" = salve ]; then
    salve="${SALVE:-}"
    if [ -z "$salve" ]; then
      (cd "$root" && cargo build --release -q -p salve)
      salve="$root/target/release/salve"
    fi
    # score.py runs the command inside each case's repository.
    salve="$(cd "$(dirname "$salve")" && pwd)/$(basename "$salve")"
    python3 "$score" --cases "$corpus" --jobs "$jobs" --json "$out/salve.json" "${filter[@]}" \
      --cmd "$salve apply {response}" > "$out/salve.md"
  else
    python3 "$score" --cases "$corpus" --jobs "$jobs" --json "$out/$tool.json" \
      "${filter[@]}" --tool "$tool" > "$out/$tool.md"
  fi
done

# shellcheck disable=SC2086
python3 "$root/scripts/corpus-compare.py" $(for t in $tools; do echo "$out/$t.json"; done)
