#!/usr/bin/env bash
# Times one in-process apply of the quick-start reply (examples/invoice/reply.md, with `check`:
# nothing written, no record) through the Python package, the Node package and the Rust engine
# itself, all release builds, and prints the medians and the ratios to the engine's time.
#
#   scripts/bench-packages.sh            # 3 rounds of 200 runs each
#   RUNS=50 ROUNDS=5 scripts/bench-packages.sh
#
# Needs the tools of scripts/install-package-tools.sh. The bar (issue 30): each package within
# 1.5x of the engine's own time.
set -euo pipefail
runs="${RUNS:-200}"
cd "$(dirname "$0")/.."
repo=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
tools="$CARGO_TARGET_DIR/package-tools"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# All three for the host triple, which the napi-rs CLI always passes: one set of artifacts.
host="$(rustc -vV | sed -n 's/^host: //p')"
echo "building (release) ..." >&2
cargo build --quiet --release --target "$host" -p salve-bindings --example bench_apply
(cd crates/salve-py && "$tools/venv/bin/maturin" build --quiet --release --target "$host" \
    --interpreter python3 --out "$work/wheels" >/dev/null)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "$work"/wheels/salve_edits-*.whl
(cd crates/salve-node && "$tools/node/node_modules/.bin/napi" build --platform --release --features node --no-js --dts native/addon.d.ts >/dev/null)

tree="$work/invoice"
cp -r examples/invoice "$tree"
git -C "$tree" init -q -b main
git -C "$tree" add -A
git -C "$tree" -c user.name=bench -c user.email=bench@example.invalid commit -q -m start
reply="$repo/examples/invoice/reply.md"

time_rust() { "$CARGO_TARGET_DIR/$host/release/examples/bench_apply" "$tree" "$reply" "$runs"; }
time_python() {
"$work/venv/bin/python" - "$tree" "$reply" "$runs" <<'PY'
import sys, time
import salve_edits
root, reply, runs = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3])
for _ in range(min(runs, 10)):
    salve_edits.apply(reply, root=root, check=True, record=False)
times = []
for _ in range(runs):
    start = time.perf_counter()
    report = salve_edits.apply(reply, root=root, check=True, record=False)
    times.append((time.perf_counter() - start) * 1e6)
    assert report.ok, report.to_json()
times.sort()
print(f"{times[len(times) // 2]:.0f}")
PY
}
time_node() {
SALVE_NODE_PACKAGE="$repo/crates/salve-node" node - "$tree" "$reply" "$runs" <<'JS'
const fs = require("node:fs");
const salve = require(process.env.SALVE_NODE_PACKAGE);
const [root, replyPath, n] = process.argv.slice(2);
const reply = fs.readFileSync(replyPath, "utf8");
const runs = Number(n);
for (let i = 0; i < Math.min(runs, 10); i++) salve.apply(reply, { root, check: true, record: false });
const times = [];
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  const report = salve.apply(reply, { root, check: true, record: false });
  times.push(Number(process.hrtime.bigint() - start) / 1e3);
  if (!report.ok) throw new Error(report.toJson());
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)].toFixed(0));
JS
}
# The machine is shared: the three are measured in turn, ROUNDS times, and each keeps its best
# median, so a burst of other work during one measurement does not decide the ratio.
rust="" python="" node=""
for _ in $(seq "${ROUNDS:-3}"); do
    for name in rust python node; do
        value=$("time_$name")
        current=${!name}
        if [ -z "$current" ] || [ "$value" -lt "$current" ]; then
            printf -v "$name" '%s' "$value"
        fi
    done
done
echo "in-process apply of the quick-start reply (check, no record), best of ${ROUNDS:-3} medians of $runs runs:"
printf '  %-8s %6s us  %s\n' rust "$rust" "1.00x"
for name in python node; do
    value=${!name}
    printf '  %-8s %6s us  %sx\n' "$name" "$value" "$(python3 -c "print(f'{$value / $rust:.2f}')")"
done
