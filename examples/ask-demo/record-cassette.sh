#!/usr/bin/env bash
# Re-records cassette.jsonl after a change to the project files or to salve's prompt: runs the
# demo's `salve ask` on a scratch copy with a stand-in provider that answers with reply.md, and
# records that answer under the new prompt's hash.
#
#   examples/ask-demo/record-cassette.sh            # uses target/debug/salve (builds it)
#   SALVE=path/to/salve examples/ask-demo/record-cassette.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
salve="${SALVE:-$root/target/debug/salve}"
if [ -z "${SALVE:-}" ]; then
    (cd "$root" && cargo build -q -p salve)
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp -r "$here/." "$scratch/"
rm -f "$scratch/cassette.jsonl" "$scratch/reply.md" "$scratch/record-cassette.sh"
git -C "$scratch" init -q -b main
git -C "$scratch" add -A
git -C "$scratch" -c user.name=demo -c user.email=demo@example.invalid commit -q -m demo

rm -f "$here/cassette.jsonl"
SALVE_PROVIDER_EXAMPLE_KIND=command \
SALVE_PROVIDER_EXAMPLE_COMMAND="[\"cat\", \"$here/reply.md\"]" \
    "$salve" -C "$scratch" ask --provider example --dry-run --record "$here/cassette.jsonl" \
    "$(cat "$here/instruction.txt")" \
    --file temperature/convert.py --target tests/test_convert.py
echo "recorded $here/cassette.jsonl"
