#!/usr/bin/env bash
# Install the browser that salve ui's browser test drives (crates/salve/tests/it/ui_browser.rs):
# Debian's `chromium` package, run headless over the DevTools protocol. Nothing is downloaded
# but the distribution's own package.
#
# This script never fails the build: without apt-get, root, or the package, the browser test
# prints a note and skips. It says so on stderr.
set -uo pipefail

note() { echo "install-ui-browser: $*" >&2; }

for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then
        note "$name already installed ($(command -v "$name"))"
        exit 0
    fi
done
if ! command -v apt-get >/dev/null 2>&1; then
    note "apt-get not found: the salve ui browser test will be skipped"
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo="sudo -n"
    else
        note "not root and no sudo: the salve ui browser test will be skipped"
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
if $sudo apt-get update -qq >&2 && $sudo apt-get install -y -qq --no-install-recommends chromium >&2; then
    note "chromium installed"
else
    note "installing chromium failed: the salve ui browser test will be skipped"
fi
exit 0
