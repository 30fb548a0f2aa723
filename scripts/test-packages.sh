#!/usr/bin/env bash
# Build the Python and Node packages from this checkout and test them as users get them:
#   - the wheel (maturin, with the salve binary as wheel data) installed into a fresh virtual
#     environment, then the pytest suite crates/salve-py/tests against it;
#   - the addon (napi-rs CLI, with the salve binary in native/), `npm pack`ed and installed
#     into a fresh project, then the node:test suite crates/salve-node/tests against it.
# Both suites use real git work trees. The builds use the dev profile and the workspace's
# target folder, so they reuse what `cargo test --workspace` built. The tools come from
# scripts/install-package-tools.sh (run first).
#
# Exit status: non-zero when a build or a test fails. When a tool is missing the suites are
# skipped with a SKIPPED line, except under CI=true, where that fails too.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
tools="$CARGO_TARGET_DIR/package-tools"
maturin="$tools/venv/bin/maturin"
napi="$tools/node/node_modules/.bin/napi"

skip() {
    echo "SKIPPED test-packages: $*" >&2
    mkdir -p "$CARGO_TARGET_DIR/tmp"
    echo "SKIPPED test-packages: $*" >>"$CARGO_TARGET_DIR/tmp/test-skips.log"
    if [ "${CI:-}" = "true" ]; then
        echo "test-packages: under CI=true a missing tool is a failure" >&2
        exit 1
    fi
    exit 0
}
[ -x "$maturin" ] || skip "maturin is not installed (scripts/install-package-tools.sh)"
[ -x "$tools/venv/bin/mypy" ] || skip "mypy is not installed (scripts/install-package-tools.sh)"
[ -x "$napi" ] || skip "the napi-rs CLI is not installed (scripts/install-package-tools.sh)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

step() { echo "test-packages: [${SECONDS}s] $*" >&2; }

step "building the salve binary"
cargo build --quiet -p salve --bin salve
salve_bin="$CARGO_TARGET_DIR/debug/salve"

# The napi-rs CLI always passes the host triple as --target, which puts its artifacts under
# target/<triple>/; maturin gets the same, so the two builds share one set of artifacts.
host="$(rustc -vV | sed -n 's/^host: //p')"

step "building the wheel"
mkdir -p crates/salve-py/wheel-data/scripts
cp "$salve_bin" crates/salve-py/wheel-data/scripts/salve
(cd crates/salve-py && "$maturin" build --quiet --profile dev --target "$host" \
    --interpreter python3 --out "$work/wheels")
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "$work"/wheels/salve_edits-*.whl pytest
step "mypy --strict on the module's Python half and its stubs"
(cd crates/salve-py/python && "$tools/venv/bin/mypy" --strict --no-incremental salve_edits)
step "pytest against the installed wheel"
(cd crates/salve-py/tests &&
    SALVE_CARGO_BIN="$salve_bin" "$work/venv/bin/python" -m pytest -p no:cacheprovider -q .)

step "building the Node addon"
(cd crates/salve-node &&
    "$napi" build --platform --features node --no-js --dts native/addon.d.ts >/dev/null)
cp "$salve_bin" crates/salve-node/native/salve
(cd crates/salve-node && npm pack --silent --pack-destination "$work" >/dev/null)
mkdir -p "$work/project/tests"
echo '{"name": "salve-edits-test", "private": true}' >"$work/project/package.json"
(cd "$work/project" &&
    npm install --no-audit --no-fund --loglevel=error "$work"/salve-edits-*.tgz "$tools/node/node_modules/typescript")
cp crates/salve-node/tests/*.js "$work/project/tests/"
step "node:test against the installed tarball"
(cd "$work/project" && SALVE_REPO="$repo" SALVE_CARGO_BIN="$salve_bin" node --test tests/package.test.js)
step "done"
