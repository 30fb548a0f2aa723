#!/usr/bin/env bash
# Install the MCP clients that the tests drive against `salve mcp` and that nobody here wrote:
#   - the official MCP Inspector (npm @modelcontextprotocol/inspector), in CLI mode;
#   - the official Python SDK (PyPI mcp 2.x), in a virtual environment.
# They go to target/mcp-clients/ (or $SALVE_MCP_CLIENTS), where crates/salve/tests/it/mcp_clients.rs
# looks for them. Versions are pinned; an install already in place is kept.
#
# This script never fails the build: a registry that is slow or down, or a missing npm or
# python3, leaves that client out, and its test prints a note and skips. It says so on stderr.
set -uo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION="2.12.0"
PYTHON_SDK_VERSION="2.3.0"
TIMEOUT_SECS="${SALVE_MCP_INSTALL_TIMEOUT:-300}"
dest="${SALVE_MCP_CLIENTS:-target/mcp-clients}"
mkdir -p "$dest"

note() { echo "install-mcp-clients: $*" >&2; }

install_inspector() {
    local prefix="$dest/npm"
    local manifest="$prefix/node_modules/@modelcontextprotocol/inspector/package.json"
    if [ -f "$manifest" ] && grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$manifest"; then
        note "MCP Inspector $INSPECTOR_VERSION already installed"
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        note "npm not found: the MCP Inspector test will be skipped"
        return 0
    fi
    note "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION"
    if ! timeout "$TIMEOUT_SECS" npm install --prefix "$prefix" --no-audit --no-fund \
        --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2; then
        note "npm install failed or timed out: the MCP Inspector test will be skipped"
    fi
}

install_python_sdk() {
    local venv="$dest/venv"
    if [ -x "$venv/bin/python" ] &&
        "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$PYTHON_SDK_VERSION')" 2>/dev/null; then
        note "Python SDK mcp $PYTHON_SDK_VERSION already installed"
        return 0
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        note "python3 not found: the Python SDK test will be skipped"
        return 0
    fi
    if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
        note "the Python SDK needs Python 3.10 or newer: its test will be skipped"
        return 0
    fi
    note "installing mcp==$PYTHON_SDK_VERSION (Python SDK)"
    if ! { python3 -m venv "$venv" &&
        timeout "$TIMEOUT_SECS" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            "mcp==$PYTHON_SDK_VERSION" >&2; }; then
        note "pip install failed or timed out: the Python SDK test will be skipped"
    fi
}

install_inspector
install_python_sdk
exit 0
