// One of the two workers of the concurrency test: waits for "go", applies its reply, posts the
// report's JSON and the files written.
"use strict";

const { parentPort, workerData } = require("node:worker_threads");
const salve = require("salve-edits");

parentPort.once("message", () => {
  try {
    const report = salve.apply(workerData.reply, { root: workerData.root });
    parentPort.postMessage({ outcome: report.outcome, written: report.written });
  } catch (e) {
    parentPort.postMessage({ error: String(e) });
  }
});
