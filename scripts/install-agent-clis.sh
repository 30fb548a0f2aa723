#!/usr/bin/env bash
# Installs the three agent CLIs salve has presets for (claude, codex, gemini) from the npm
# registry into a local prefix, so the preset tests can run them for real:
#
#   scripts/install-agent-clis.sh                 # into target/agent-clis
#   scripts/install-agent-clis.sh /opt/agents     # into another prefix
#   export PATH="$PWD/target/agent-clis/bin:$PATH"
#
# The test `ask::agent_clis` (crates/salve/tests/it/ask.rs) looks for the CLIs on PATH and in
# target/agent-clis/bin, and prints a skip message when they are not there. Nothing is installed
# globally and no credentials are needed or read: without a key or network the CLIs fail, and
# that failure is exactly what the test classifies.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${1:-$root/target/agent-clis}"

if ! command -v npm >/dev/null 2>&1; then
    echo "install-agent-clis: npm is not installed (Debian: apt-get install nodejs npm)" >&2
    exit 2
fi

mkdir -p "$prefix"
# --no-fund/--no-audit keep the install quiet and offline from anything but the registry.
npm install --global --prefix "$prefix" --no-fund --no-audit --loglevel=error \
    @anthropic-ai/claude-code @openai/codex @google/gemini-cli

for cli in claude codex gemini; do
    if [ -x "$prefix/bin/$cli" ]; then
        printf '%-7s %s\n' "$cli" "$("$prefix/bin/$cli" --version 2>/dev/null | head -n 1 || echo '(no --version)')"
    else
        echo "install-agent-clis: $cli was not installed into $prefix/bin" >&2
        exit 1
    fi
done
echo "installed into $prefix/bin; add it to PATH to use them"
