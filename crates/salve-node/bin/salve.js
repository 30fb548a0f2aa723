#!/usr/bin/env node
// The salve command of the npm package: the same binary as `cargo install`, shipped in native/
// and run with this process's arguments, standard streams and exit status.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const exe = path.join(__dirname, "..", "native", process.platform === "win32" ? "salve.exe" : "salve");
const run = spawnSync(exe, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  process.stderr.write(`salve-edits: cannot run ${exe}: ${run.error.message}\n`);
  process.exit(2);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 1);
