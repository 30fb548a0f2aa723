// The installed salve-edits package against real git work trees. Run by
// scripts/test-packages.sh in a temp project that installed the `npm pack` tarball.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { Worker } = require("node:worker_threads");

const salve = require("salve-edits");
const { REPO, git, invoice, snapshot, reply, NEAR_MISS, CORRECTED } = require("./support.js");

const salveBin = () => path.join(path.dirname(require.resolve("salve-edits/package.json")), "..", ".bin", "salve");

test("the package is the installed tarball, with its types", () => {
  const dir = path.dirname(require.resolve("salve-edits/package.json"));
  assert.ok(dir.split(path.sep).includes("node_modules"), dir);
  assert.ok(fs.existsSync(path.join(dir, "index.d.ts")));
  assert.equal(require("salve-edits/package.json").types, "index.d.ts");
});

test("a multi-format reply lands and its tests pass", () => {
  const root = invoice();
  const report = salve.apply(reply(), { root });
  assert.equal(report.outcome, "applied");
  assert.ok(report.ok);
  assert.deepEqual(report.files.map((f) => f.format), ["unified", "search-replace", "codex"]);
  assert.deepEqual([...report.written].sort(), ["invoice/money.py", "invoice/totals.py", "tests/test_rounding.py"]);
  assert.deepEqual(report.files[0].hunks.map((h) => h.rung), ["exact", "trailing_ws"]);
  assert.deepEqual(report.files[0].hunks[0].lines, { start: 3, end: 9 });
  assert.equal(report.checkOnly, false);
  assert.ok(report.checkpoint && report.run);
  const tests = spawnSync("python3", ["-m", "unittest", "-q"], { cwd: root, encoding: "utf8" });
  assert.equal(tests.status, 0, tests.stderr);
  assert.match(tests.stderr, /Ran 5 tests/);
});

test("the report's JSON is the command's JSON", () => {
  const root = invoice();
  const report = salve.apply(reply(), { root, check: true });
  assert.deepEqual(report.written, []);
  const cli = spawnSync(salveBin(), ["--json", "apply", "--check", "-C", root, "-"], { input: reply(), encoding: "utf8" });
  assert.equal(cli.status, 0, cli.stderr);
  assert.equal(report.toJson() + "\n", cli.stdout);
  assert.deepEqual(JSON.parse(JSON.stringify(report)), JSON.parse(cli.stdout));
  assert.equal(git(root, "status", "--porcelain"), "");
});

test("node -e prints the command's report", () => {
  const root = invoice();
  const replyPath = path.join(REPO, "examples", "invoice", "reply.md");
  const code = 'const s = require("salve-edits"); const [r, root] = process.argv.slice(1); console.log(s.apply(require("fs").readFileSync(r, "utf8"), { root, check: true }).toJson())';
  const ours = spawnSync(process.execPath, ["-e", code, replyPath, root], { encoding: "utf8", cwd: path.dirname(__dirname) });
  const cli = spawnSync(salveBin(), ["--json", "apply", "--check", "-C", root, replyPath], { encoding: "utf8" });
  assert.equal(ours.status, 0, ours.stderr);
  assert.equal(JSON.parse(ours.stdout).outcome, "applied");
  assert.equal(ours.stdout, cli.stdout);
});

test("a refusal carries candidates and writes nothing", () => {
  const root = invoice();
  const before = snapshot(root);
  const report = salve.apply(NEAR_MISS, { root });
  assert.equal(report.outcome, "refused");
  assert.equal(report.ok, false);
  assert.equal(report.exitCode, 1);
  assert.deepEqual(report.written, []);
  const [file] = report.refused();
  const [hunk] = file.hunks;
  assert.equal(hunk.status, "not_found");
  const best = hunk.candidates[0];
  assert.deepEqual(best.lines, { start: 6, end: 7 });
  assert.ok(best.score > 0.5 && best.score < 1, String(best.score));
  const line6 = best.excerpt.find((e) => e.line === 6);
  assert.equal(line6.text, "    euros, rest = divmod(cents, 100)");
  assert.deepEqual(snapshot(root), before);
});

test("undo restores the tree", () => {
  const root = invoice();
  const before = snapshot(root);
  assert.ok(salve.apply(reply(), { root }).ok);
  assert.notDeepEqual(snapshot(root), before);
  const undone = salve.undo(root);
  assert.equal(undone.undone.kind, "apply");
  assert.deepEqual(snapshot(root), before);
});

test("checkpoint and restore", () => {
  const root = invoice();
  const before = snapshot(root);
  const id = salve.checkpoint(root, "before the experiment");
  fs.writeFileSync(path.join(root, "invoice", "money.py"), "broken\n");
  fs.writeFileSync(path.join(root, "scratch.txt"), "new\n");
  const restored = salve.restore(root, id);
  assert.equal(restored.target, id);
  assert.deepEqual(snapshot(root), before);
});

test("two workers apply to different files at once", async () => {
  const root = invoice();
  const totals = `invoice/totals.py
\`\`\`python
<<<<<<< SEARCH
def add_tax(amount: int, rate: float) -> int:
=======
def add_tax(amount: int, rate: float) -> int:  # rate is a fraction: 0.2 for 20%
>>>>>>> REPLACE
\`\`\`
`;
  const workers = [CORRECTED, totals].map((text) => new Worker(path.join(__dirname, "worker.js"), { workerData: { reply: text, root } }));
  const results = workers.map((w) => new Promise((resolve, reject) => {
    w.once("message", resolve);
    w.once("error", reject);
  }));
  for (const w of workers) w.postMessage("go");
  const [money, tax] = await Promise.all(results);
  await Promise.all(workers.map((w) => w.terminate()));
  assert.deepEqual(money, { outcome: "applied", written: ["invoice/money.py"] });
  assert.deepEqual(tax, { outcome: "applied", written: ["invoice/totals.py"] });
  assert.match(fs.readFileSync(path.join(root, "invoice", "money.py"), "utf8"), /divmod\(abs\(cents\), 100\)/);
  assert.match(fs.readFileSync(path.join(root, "invoice", "totals.py"), "utf8"), /# rate is a fraction/);
});

test("the async calls run on the thread pool and settle as the sync ones return", async () => {
  const root = invoice();
  const before = snapshot(root);
  const pending = salve.applyAsync(reply(), { root });
  assert.ok(pending instanceof Promise);
  const report = await pending;
  assert.ok(report instanceof salve.Report);
  assert.equal(report.outcome, "applied");
  assert.deepEqual([...report.written].sort(), ["invoice/money.py", "invoice/totals.py", "tests/test_rounding.py"]);
  const undone = await salve.undoAsync(root);
  assert.equal(undone.undone.kind, "apply");
  assert.deepEqual(snapshot(root), before);
  const refused = await salve.applyAsync(NEAR_MISS, { root });
  assert.equal(refused.outcome, "refused");
  assert.equal(refused.refused()[0].hunks[0].candidates[0].lines.start, 6);
  assert.deepEqual(snapshot(root), before);
  const id = await salve.checkpointAsync(root, "async");
  fs.writeFileSync(path.join(root, "invoice", "money.py"), "broken\n");
  assert.equal((await salve.restoreAsync(root, id)).target, id);
  assert.deepEqual(snapshot(root), before);
  // Two at once on one tree: both land, one after the other under salve's lock.
  const totals = "invoice/totals.py\n```python\n<<<<<<< SEARCH\ndef add_tax(amount: int, rate: float) -> int:\n=======\ndef add_tax(amount: int, rate: float) -> int:  # a fraction\n>>>>>>> REPLACE\n```\n";
  const both = await Promise.all([salve.applyAsync(CORRECTED, { root }), salve.applyAsync(totals, { root })]);
  assert.deepEqual(both.map((r) => r.outcome), ["applied", "applied"]);
  await assert.rejects(salve.applyAsync(CORRECTED, { root: path.join(root, "nowhere") }), (e) => e instanceof salve.SalveUserError && e.code === "bad_directory");
  await assert.rejects(salve.undoAsync(invoice()), (e) => e instanceof salve.SalveRefusedError);
});

test("a tool call's JSON value applies", () => {
  const root = invoice();
  const report = salve.apply(
    { filePath: "invoice/money.py", oldString: "    euros, rest = divmod(cents, 100)\n", newString: "    euros, rest = divmod(abs(cents), 100)\n" },
    { root, checkpoint: false, record: false },
  );
  assert.ok(report.ok);
  assert.deepEqual(report.written, ["invoice/money.py"]);
  assert.equal(report.checkpoint, null);
  assert.equal(report.run, null);
});

test("extract reads without writing", () => {
  const root = invoice();
  const before = snapshot(root);
  const edits = salve.extract(reply());
  assert.deepEqual(edits.map((e) => [e.path, e.change, e.format]), [
    ["invoice/totals.py", "modify", "unified"],
    ["invoice/money.py", "modify", "search-replace"],
    ["tests/test_rounding.py", "create", "codex"],
  ]);
  assert.match(edits[1].hunks[0].new, /divmod\(abs\(cents\), 100\)/);
  assert.match(edits[1].hunks[0].old, /divmod\(cents, 100\)/);
  assert.match(edits[2].content, /class RoundingTest/);
  assert.deepEqual(edits.issues, []);
  assert.ok(edits.notes.length > 0);
  assert.deepEqual(snapshot(root), before);
  const nothing = salve.extract("just prose, no edit");
  assert.equal(nothing.length, 0);
  assert.equal(nothing.issues[0].kind, "no_edit");
});

test("engine errors are errors named by kind", () => {
  const root = invoice();
  const missing = path.join(root, "nowhere");
  assert.throws(() => salve.apply(CORRECTED, { root: missing }), (e) => e instanceof salve.SalveUserError && e.code === "bad_directory" && e.kind === "user");
  assert.throws(() => salve.apply(CORRECTED, { root, base: "no-such-revision" }), (e) => e instanceof salve.SalveUserError && e.code === "unknown_revision");
  const plain = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "salve-node-plain-"));
  assert.throws(() => salve.checkpoint(plain), (e) => e instanceof salve.SalveError && e.code === "not_a_repository" && Boolean(e.hint) && e.message.includes(e.hint));
  assert.throws(() => salve.undo(root), (e) => e instanceof salve.SalveRefusedError && e.kind === "refused" && e instanceof Error);
});

test("the package's salve is the cargo binary", (t) => {
  const cargoBin = process.env.SALVE_CARGO_BIN;
  if (!cargoBin) {
    t.skip("SALVE_CARGO_BIN (the cargo-built salve) not set");
    return;
  }
  const ours = execFileSync(salveBin(), ["--version"], { encoding: "utf8" });
  const theirs = execFileSync(cargoBin, ["--version"], { encoding: "utf8" });
  assert.match(ours, /^salve /);
  assert.equal(ours, theirs);
});

function readmeBlock(info) {
  const text = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
  const section = text.split("\n## In Python and Node: the `salve-edits` packages\n")[1].split("\n## ")[0];
  return section.split("```" + info + "\n")[1].split("\n```")[0];
}

test("the README's replace_in_file handler type-checks and answers the model", () => {
  const work = fs.mkdtempSync(path.join(path.dirname(require.resolve("salve-edits/package.json")), "..", "..", ".readme-"));
  fs.writeFileSync(path.join(work, "handler.ts"), readmeBlock("ts"));
  const tsc = path.join(path.dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  const compiled = spawnSync(process.execPath, [tsc, "--strict", "--module", "commonjs", "--target", "es2020", "--moduleResolution", "node", "--outDir", work, path.join(work, "handler.ts")], { encoding: "utf8" });
  assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
  const { replaceInFile } = require(path.join(work, "handler.js"));
  const root = invoice();
  const ret = '    return f"{currency} {euros}.{rest:02d}"\n';
  const diff = `<<<<<<< SEARCH\n    euros, rest = divmod(cents, 100)\n${ret}=======\n    euros, rest = divmod(abs(cents), 100)\n${ret}>>>>>>> REPLACE`;
  const answer = replaceInFile({ path: "invoice/money.py", diff }, root);
  assert.match(answer, /^Applied to invoice\/money\.py; checkpoint [0-9a-f]+\.$/);
  assert.match(replaceInFile({ path: "invoice/money.py", diff }, root), /already has this change/);
  const refused = replaceInFile({ path: "invoice/money.py", diff: diff.replace("divmod(cents", "divmod(cent") }, invoice());
  assert.match(refused, /^Not applied, nothing was written\./);
  const report = JSON.parse(refused.split("The report:\n")[1]);
  assert.equal(report.outcome, "refused");
  assert.deepEqual(report.files[0].hunks[0].candidates[0].lines, { start: 6, end: 7 });
});
