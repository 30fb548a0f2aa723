#!/usr/bin/env bash
# Install what scripts/test-packages.sh builds and tests the Python and Node packages with, from
# the registries: maturin, pytest and mypy (PyPI, into a virtual environment) and the napi-rs CLI
# and TypeScript (npm, into a project folder). Both go under $CARGO_TARGET_DIR/package-tools, so a
# second run finds them and installs nothing.
#
# Exit status: 0 when both are there, 1 otherwise (.ci/run then fails under CI=true, and
# scripts/test-packages.sh says what it could not run).
set -uo pipefail
cd "$(dirname "$0")/.."

note() { echo "install-package-tools: $*" >&2; }

tools="${CARGO_TARGET_DIR:-$PWD/target}/package-tools"
mkdir -p "$tools"
status=0

if [ -x "$tools/venv/bin/maturin" ] && [ -x "$tools/venv/bin/pytest" ] && [ -x "$tools/venv/bin/mypy" ]; then
    note "maturin $("$tools/venv/bin/maturin" --version | cut -d' ' -f2) already installed"
elif ! command -v python3 >/dev/null 2>&1; then
    note "python3 not found: the Python package cannot be built"
    status=1
elif ! { python3 -m venv "$tools/venv" &&
    "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2" pytest mypy; }; then
    note "installing maturin, pytest and mypy from PyPI failed"
    status=1
fi

napi="$tools/node/node_modules/.bin/napi"
if [ -x "$napi" ] && [ -f "$tools/node/node_modules/typescript/package.json" ]; then
    note "@napi-rs/cli already installed"
elif ! command -v npm >/dev/null 2>&1; then
    note "npm not found: the Node package cannot be built"
    status=1
else
    mkdir -p "$tools/node"
    [ -f "$tools/node/package.json" ] || echo '{"name": "salve-package-tools", "private": true}' >"$tools/node/package.json"
    if ! (cd "$tools/node" && npm install --no-audit --no-fund --loglevel=error "@napi-rs/cli@3" "typescript@5"); then
        note "installing @napi-rs/cli and typescript from npm failed"
        status=1
    fi
fi
exit "$status"
