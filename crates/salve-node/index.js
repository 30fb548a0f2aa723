// salve in Node: the engine's apply, checkpoint, restore, undo and extract. The native addon
// returns the command line's JSON; this file turns it into objects with camelCase fields and a
// failure into the error class named by its kind.
"use strict";

const path = require("node:path");

function loadNative() {
  const { platform, arch } = process;
  let suffix = "";
  if (platform === "linux") {
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
    suffix = glibc ? "-gnu" : "-musl";
  } else if (platform === "win32") {
    suffix = "-msvc";
  }
  const file = path.join(__dirname, `salve-edits.${platform}-${arch}${suffix}.node`);
  try {
    return require(file);
  } catch (e) {
    throw new Error(`salve-edits has no native addon for ${platform}-${arch}${suffix} (${file}): ${e.message}`);
  }
}

const native = loadNative();

class SalveError extends Error {
  constructor(message, code, hint) {
    super(hint ? `${message} (${hint})` : message);
    this.name = new.target.name;
    this.kind = new.target.kind;
    this.code = code;
    this.hint = hint ?? null;
    this.detail = message;
  }
}
SalveError.kind = "internal";

const errorClass = (name, kind) => {
  const cls = { [name]: class extends SalveError {} }[name];
  cls.kind = kind;
  return cls;
};
const SalveRefusedError = errorClass("SalveRefusedError", "refused");
const SalveUserError = errorClass("SalveUserError", "user");
const SalveConfigError = errorClass("SalveConfigError", "config");
const SalveEnvironmentError = errorClass("SalveEnvironmentError", "environment");
const SalveInterruptedError = errorClass("SalveInterruptedError", "interrupted");
const SalveInternalError = errorClass("SalveInternalError", "internal");
const ERRORS = [
  SalveRefusedError,
  SalveUserError,
  SalveConfigError,
  SalveEnvironmentError,
  SalveInterruptedError,
  SalveInternalError,
];

// The addon's failures carry {kind, code, message, hint} as JSON in the message.
function named(e) {
  let failure;
  try {
    failure = JSON.parse(e.message);
  } catch {
    return e;
  }
  const cls = ERRORS.find((c) => c.kind === failure.kind) ?? SalveInternalError;
  return new cls(failure.message, failure.code, failure.hint);
}

function call(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    throw named(e);
  }
}

// The same for an export run on libuv's thread pool: a promise, rejected with the named error.
async function callAsync(fn, ...args) {
  try {
    return await fn(...args);
  } catch (e) {
    throw named(e);
  }
}

const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

function camelize(value) {
  if (Array.isArray(value)) return value.map(camelize);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) out[camel(k)] = camelize(v);
  return out;
}

const SUCCESS = new Set(["applied", "already_applied"]);

class Report {
  constructor(reportJson, extraJson) {
    const value = JSON.parse(reportJson);
    const extra = JSON.parse(extraJson);
    Object.defineProperty(this, "_json", { value: reportJson });
    Object.assign(this, {
      issues: [],
      notes: [],
      detailsOmitted: 0,
      checkpoint: null,
      noCheckpoint: null,
    });
    Object.assign(this, camelize(value));
    for (const file of this.files) {
      for (const hunk of file.hunks) {
        hunk.candidates ??= [];
        hunk.candidatesOmitted ??= 0;
        for (const c of hunk.candidates) c.excerpt ??= [];
      }
    }
    this.written = extra.written;
    this.baseline = extra.baseline;
    this.run = extra.run;
    this.recordError = extra.record_error;
    this.exitCode = extra.exit_code;
  }

  /** True when everything landed (or already had): the command's exit code 0. */
  get ok() {
    return this.exitCode === 0;
  }

  /** The files that did not land. */
  refused() {
    return this.files.filter((f) => !SUCCESS.has(f.status));
  }

  /** The report as `salve --json apply` prints it (without the final newline). */
  toJson() {
    return this._json;
  }

  /** JSON.stringify(report) gives the command's JSON too (compact). */
  toJSON() {
    return JSON.parse(this._json);
  }
}

function applyArgs(reply, options) {
  const isJson = typeof reply !== "string";
  const text = isJson ? JSON.stringify(reply) : reply;
  const opts = {
    root: path.resolve(options.root ?? "."),
    check: options.check ?? false,
    partial: options.partial ?? false,
    base: options.base ?? undefined,
    checkpoint: options.checkpoint ?? true,
    record: options.record ?? true,
  };
  return [text, isJson, opts];
}

function apply(reply, options = {}) {
  const [reportJson, extraJson] = call(native.apply, ...applyArgs(reply, options));
  return new Report(reportJson, extraJson);
}

function checkpoint(root = ".", message) {
  return call(native.checkpoint, path.resolve(root), message ?? undefined);
}

function restore(root, id) {
  return camelize(JSON.parse(call(native.restore, path.resolve(root), id)));
}

function undo(root = ".") {
  return camelize(JSON.parse(call(native.undo, path.resolve(root))));
}

// The same calls on libuv's thread pool, so a server's event loop keeps turning while salve
// reads, places and writes. Two calls on one work tree at once are serialised by salve's lock.
async function applyAsync(reply, options = {}) {
  const [reportJson, extraJson] = await callAsync(native.applyAsync, ...applyArgs(reply, options));
  return new Report(reportJson, extraJson);
}

async function checkpointAsync(root = ".", message) {
  const [id] = await callAsync(native.checkpointAsync, path.resolve(root), message ?? undefined);
  return id;
}

async function restoreAsync(root, id) {
  const [json] = await callAsync(native.restoreAsync, path.resolve(root), id);
  return camelize(JSON.parse(json));
}

async function undoAsync(root = ".") {
  const [json] = await callAsync(native.undoAsync, path.resolve(root));
  return camelize(JSON.parse(json));
}

function side(lines, skip) {
  return lines
    .filter((l) => l.kind !== skip)
    .map((l) => `${l.text}\n`)
    .join("");
}

function extract(reply) {
  const value = JSON.parse(call(native.extract, reply));
  const edits = value.edits.map((e) => ({
    path: e.path,
    change: e.change.kind,
    format: e.format,
    newPath: e.change.to ?? null,
    content: e.change.content ?? null,
    hunks: (e.change.hunks ?? []).map((h) => ({
      old: side(h.lines, "add"),
      new: side(h.lines, "remove"),
      oldStart: h.old_start ?? null,
    })),
    raw: e,
  }));
  edits.issues = value.issues;
  edits.notes = value.notes;
  return edits;
}

module.exports = {
  apply,
  checkpoint,
  restore,
  undo,
  applyAsync,
  checkpointAsync,
  restoreAsync,
  undoAsync,
  extract,
  Report,
  SalveError,
  SalveRefusedError,
  SalveUserError,
  SalveConfigError,
  SalveEnvironmentError,
  SalveInterruptedError,
  SalveInternalError,
};
