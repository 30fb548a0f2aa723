// Types of the salve-edits package: the engine's apply, checkpoint, restore, undo and extract.

/** Inclusive 1-based lines, in the file as it was before the edit. */
export interface LineRange {
  start: number;
  end: number;
}

export interface ExcerptLine {
  line: number;
  text: string;
}

/** A place a refused hunk could have gone. */
export interface Candidate {
  lines: LineRange;
  /** How similar these lines are to what the edit expected, 0 to 1. */
  score: number;
  /** A character diff between what the edit expected and what the file has. */
  diff: string;
  /** The function, class or heading the candidate sits in. */
  scope?: { line: number; text: string };
  /** The file's lines around the candidate, numbered. */
  excerpt: ExcerptLine[];
}

export type Status =
  | "applied"
  | "already_applied"
  | "not_found"
  | "ambiguous"
  | "conflict"
  | "malformed"
  | "path_rejected"
  | "truncated"
  | "skipped"
  | "syntax"
  | "binary"
  | "encoding"
  | "edit_syntax"
  | "path_ambiguous";

export interface HunkReport {
  index: number;
  status: Status;
  /** The placement ladder's rung that placed it: exact, trailing_ws, indent, ... */
  rung?: string;
  lines?: LineRange;
  similarity?: number;
  margin?: number;
  candidates: Candidate[];
  candidatesOmitted: number;
  message?: string;
}

export interface FileReport {
  path: string;
  requestedPath?: string;
  newPath?: string;
  change: "create" | "modify" | "delete" | "rename" | string;
  format: string;
  status: Status;
  hunks: HunkReport[];
  added: number;
  removed: number;
  message?: string;
}

export interface Issue {
  kind: string;
  path: string | null;
  message: string;
}

/** What an apply did, file by file and hunk by hunk. */
export declare class Report {
  outcome: "applied" | "already_applied" | "partial" | "refused";
  checkOnly: boolean;
  files: FileReport[];
  issues: Issue[];
  notes: string[];
  detailsOmitted: number;
  /** The checkpoint taken before writing: `undo` takes the apply back. */
  checkpoint: string | null;
  /** Why files were written without a checkpoint (`not_a_repository`). */
  noCheckpoint: string | null;
  /** The files written, created or deleted, relative to the root. */
  written: string[];
  baseline: string | null;
  /** The run in the record. */
  run: string | null;
  recordError: string | null;
  /** The command's exit code: 0 applied or already applied, 1 refused or partial. */
  exitCode: number;
  /** True when everything landed. */
  readonly ok: boolean;
  /** The files that did not land. */
  refused(): FileReport[];
  /** Exactly what `salve --json apply` prints (without the final newline). */
  toJson(): string;
  toJSON(): unknown;
}

export interface ApplyOptions {
  /** The work tree; every path in the reply stays inside it. Default: the current directory. */
  root?: string;
  /** Place everything and report, but write nothing. */
  check?: boolean;
  /** Write the files that placed even when others were refused. */
  partial?: boolean;
  /** The commit the model read. Default: HEAD. */
  base?: string;
  /** Take a checkpoint before writing (default true). */
  checkpoint?: boolean;
  /** Record the run (default true). */
  record?: boolean;
}

/**
 * Apply a model's reply (its text, in any format salve reads) or one JSON value holding edits
 * (a tool call's arguments). A refusal is a Report, never an exception.
 */
export declare function apply(reply: string | object, options?: ApplyOptions): Report;

/** Snapshot the whole work tree; the checkpoint's id. */
export declare function checkpoint(root?: string, message?: string): string;

/** Bring a checkpoint back; what `salve --json restore` prints, in camelCase. */
export declare function restore(root: string, id: string): Record<string, unknown>;

/** Take back the most recent salve change; what `salve --json undo` prints, in camelCase. */
export declare function undo(root?: string): Record<string, unknown>;

/**
 * {@link apply} on libuv's thread pool: the event loop keeps turning while salve reads, places
 * and writes. Rejects with the same named errors; a refusal is still a Report.
 */
export declare function applyAsync(reply: string | object, options?: ApplyOptions): Promise<Report>;

/** {@link checkpoint} on the thread pool. */
export declare function checkpointAsync(root?: string, message?: string): Promise<string>;

/** {@link restore} on the thread pool. */
export declare function restoreAsync(root: string, id: string): Promise<Record<string, unknown>>;

/** {@link undo} on the thread pool. */
export declare function undoAsync(root?: string): Promise<Record<string, unknown>>;

export interface EditHunk {
  /** The lines the hunk expects. */
  old: string;
  /** The lines it writes. */
  new: string;
  oldStart: number | null;
}

export interface FileEdit {
  path: string;
  change: "modify" | "create" | "delete" | "rename" | "replace";
  format: string;
  newPath: string | null;
  content: string | null;
  hunks: EditHunk[];
  /** The engine's full form of the edit. */
  raw: unknown;
}

export type Extraction = FileEdit[] & { issues: Issue[]; notes: string[] };

/** Read a reply's edits without touching any file. */
export declare function extract(reply: string): Extraction;

/** An operation that could not run (not a refused edit: that is a Report). */
export declare class SalveError extends Error {
  static readonly kind: string;
  readonly kind: "refused" | "user" | "config" | "environment" | "interrupted" | "internal";
  /** A stable name for the case: not_a_repository, unknown_revision, ... */
  readonly code: string;
  /** What to do about it, when known. */
  readonly hint: string | null;
  /** The message without the hint. */
  readonly detail: string;
}
/** It ran and declined, changing nothing: nothing to undo. */
export declare class SalveRefusedError extends SalveError {}
export declare class SalveUserError extends SalveError {}
export declare class SalveConfigError extends SalveError {}
export declare class SalveEnvironmentError extends SalveError {}
export declare class SalveInterruptedError extends SalveError {}
export declare class SalveInternalError extends SalveError {}
