"""salve in Python: land a language model's code edits on a git work tree, safely.

The same engine as the ``salve`` command (which this package installs too): every hunk is
placed exactly or refused with the reason and the closest candidates, all files are written or
none, and a checkpoint is taken first so :func:`undo` takes the change back.

A refused edit is a :class:`Report` whose ``outcome`` is ``"refused"``, never an exception.
Exceptions (:class:`SalveError` and its subclasses, named by kind) mean the operation could not
run: not a directory, an unknown ``base`` revision, git missing, ...
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from . import _native

__all__ = [
    "apply",
    "checkpoint",
    "restore",
    "undo",
    "extract",
    "Report",
    "FileReport",
    "HunkReport",
    "Candidate",
    "ExcerptLine",
    "LineRange",
    "Issue",
    "FileEdit",
    "EditHunk",
    "Extraction",
    "SalveError",
    "SalveRefusedError",
    "SalveUserError",
    "SalveConfigError",
    "SalveEnvironmentError",
    "SalveInterruptedError",
    "SalveInternalError",
]

PathLike = Union[str, "os.PathLike[str]"]


class SalveError(Exception):
    """An operation that could not run. ``kind`` is the engine's classification, ``code`` a
    stable name for the case (``not_a_repository``, ``unknown_revision``, ...), ``hint`` what
    to do about it when known."""

    kind: str = "internal"

    def __init__(self, message: str, code: str, hint: Optional[str] = None) -> None:
        super().__init__(message if hint is None else f"{message} ({hint})")
        self.message = message
        self.code = code
        self.hint = hint


class SalveRefusedError(SalveError):
    """The operation ran and declined, changing nothing: nothing to undo, a restore that would
    overwrite unsaved work. (A refused *edit* is a Report, not this.)"""

    kind = "refused"


class SalveUserError(SalveError):
    """Bad input: a missing directory, not a repository, an unknown revision, bad JSON."""

    kind = "user"


class SalveConfigError(SalveError):
    """salve or git is not set up for this: git missing or too old, a bad configuration."""

    kind = "config"


class SalveEnvironmentError(SalveError):
    """The machine got in the way: a file that could not be read or written, git failing."""

    kind = "environment"


class SalveInterruptedError(SalveError):
    """Stopped at a safe point: nothing half-written."""

    kind = "interrupted"


class SalveInternalError(SalveError):
    """A bug in salve."""

    kind = "internal"


_ERRORS = {
    cls.kind: cls
    for cls in (
        SalveRefusedError,
        SalveUserError,
        SalveConfigError,
        SalveEnvironmentError,
        SalveInterruptedError,
        SalveInternalError,
    )
}


def _raise(error: Exception) -> SalveError:
    kind, code, message, hint = error.args
    cls = _ERRORS.get(kind, SalveInternalError)
    return cls(message, code, hint)


@dataclass(frozen=True)
class LineRange:
    """Inclusive 1-based lines, in the file as it was before the edit."""

    start: int
    end: int


@dataclass(frozen=True)
class ExcerptLine:
    line: int
    text: str


@dataclass(frozen=True)
class Candidate:
    """A place a refused hunk could have gone: the lines, how similar they are to what the
    edit expected (0 to 1), a character diff of the difference and the file's lines around."""

    lines: LineRange
    score: float
    diff: str
    scope: Optional[str]
    excerpt: List[ExcerptLine]


@dataclass(frozen=True)
class HunkReport:
    index: int
    status: str
    rung: Optional[str]
    lines: Optional[LineRange]
    similarity: Optional[float]
    margin: Optional[float]
    candidates: List[Candidate]
    candidates_omitted: int
    message: Optional[str]


@dataclass(frozen=True)
class FileReport:
    path: str
    change: str
    format: str
    status: str
    hunks: List[HunkReport]
    added: int
    removed: int
    message: Optional[str]
    requested_path: Optional[str]
    new_path: Optional[str]


@dataclass(frozen=True)
class Issue:
    """Something in the reply that could not be used (it refuses the reply)."""

    kind: str
    path: Optional[str]
    message: str


def _range(value: Optional[Dict[str, Any]]) -> Optional[LineRange]:
    return None if value is None else LineRange(value["start"], value["end"])


def _candidate(value: Dict[str, Any]) -> Candidate:
    scope = value.get("scope")
    return Candidate(
        lines=LineRange(value["lines"]["start"], value["lines"]["end"]),
        score=value["score"],
        diff=value["diff"],
        scope=None if scope is None else scope["text"],
        excerpt=[ExcerptLine(e["line"], e["text"]) for e in value.get("excerpt", [])],
    )


def _hunk(value: Dict[str, Any]) -> HunkReport:
    return HunkReport(
        index=value["index"],
        status=value["status"],
        rung=value.get("rung"),
        lines=_range(value.get("lines")),
        similarity=value.get("similarity"),
        margin=value.get("margin"),
        candidates=[_candidate(c) for c in value.get("candidates", [])],
        candidates_omitted=value.get("candidates_omitted", 0),
        message=value.get("message"),
    )


def _file(value: Dict[str, Any]) -> FileReport:
    return FileReport(
        path=value["path"],
        change=value["change"],
        format=value["format"],
        status=value["status"],
        hunks=[_hunk(h) for h in value["hunks"]],
        added=value["added"],
        removed=value["removed"],
        message=value.get("message"),
        requested_path=value.get("requested_path"),
        new_path=value.get("new_path"),
    )


@dataclass(frozen=True)
class Report:
    """What an apply did, file by file and hunk by hunk.

    ``outcome`` is ``applied``, ``already_applied``, ``partial`` or ``refused``;
    :meth:`to_json` gives exactly what ``salve --json apply`` prints."""

    outcome: str
    check_only: bool
    files: List[FileReport]
    issues: List[Issue]
    notes: List[str]
    details_omitted: int
    checkpoint: Optional[str]
    no_checkpoint: Optional[str]
    written: List[str]
    baseline: Optional[str]
    run: Optional[str]
    record_error: Optional[str]
    exit_code: int
    _json: str = field(repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when everything landed (or already had): the command's exit code 0."""
        return self.exit_code == 0

    def refused(self) -> List[FileReport]:
        """The files that did not land."""
        return [f for f in self.files if f.status not in ("applied", "already_applied")]

    def to_json(self) -> str:
        """The report as ``salve --json apply`` prints it (without the final newline)."""
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        result: Dict[str, Any] = json.loads(self._json)
        return result


def _report(report_json: str, extra_json: str) -> Report:
    value = json.loads(report_json)
    extra = json.loads(extra_json)
    return Report(
        outcome=value["outcome"],
        check_only=value["check_only"],
        files=[_file(f) for f in value["files"]],
        issues=[Issue(i["kind"], i.get("path"), i["message"]) for i in value.get("issues", [])],
        notes=list(value.get("notes", [])),
        details_omitted=value.get("details_omitted", 0),
        checkpoint=value.get("checkpoint"),
        no_checkpoint=value.get("no_checkpoint"),
        written=list(extra["written"]),
        baseline=extra.get("baseline"),
        run=extra.get("run"),
        record_error=extra.get("record_error"),
        exit_code=extra["exit_code"],
        _json=report_json,
    )


def apply(
    reply: Union[str, Dict[str, Any], List[Any]],
    root: PathLike = ".",
    check: bool = False,
    partial: bool = False,
    base: Optional[str] = None,
    checkpoint: bool = True,
    record: bool = True,
) -> Report:
    """Apply a model's reply to the work tree at ``root``, as ``salve apply`` does.

    ``reply`` is the reply's text (prose, fences, any edit format) or one JSON value holding
    edits, such as a tool call's arguments (``{"path": ..., "diff": ...}``,
    ``{"file_path": ..., "old_string": ..., "new_string": ...}``). ``check`` places everything
    and writes nothing; ``partial`` writes the files that placed when others were refused;
    ``base`` is the commit the model read (default ``HEAD``). The GIL is released meanwhile.
    """
    is_json = not isinstance(reply, str)
    text = reply if isinstance(reply, str) else json.dumps(reply)
    try:
        report_json, extra_json = _native.apply(
            text, is_json, os.fspath(root), check, partial, base, checkpoint, record
        )
    except _native.EngineError as e:
        raise _raise(e) from None
    return _report(report_json, extra_json)


def checkpoint(root: PathLike = ".", message: Optional[str] = None) -> str:
    """Snapshot the whole work tree (tracked and untracked files, the staged state); the id."""
    try:
        return _native.checkpoint(os.fspath(root), message)
    except _native.EngineError as e:
        raise _raise(e) from None


def restore(root: PathLike, id: str) -> Dict[str, Any]:
    """Bring checkpoint ``id`` back (the state it replaces is checkpointed first, so
    :func:`undo` takes the restore back); what was written and deleted, as
    ``salve --json restore`` prints it."""
    try:
        result: Dict[str, Any] = json.loads(_native.restore(os.fspath(root), id))
    except _native.EngineError as e:
        raise _raise(e) from None
    return result


def undo(root: PathLike = ".") -> Dict[str, Any]:
    """Take back the most recent salve change in the work tree, as ``salve undo``; what was
    undone, as ``salve --json undo`` prints it."""
    try:
        result: Dict[str, Any] = json.loads(_native.undo(os.fspath(root)))
    except _native.EngineError as e:
        raise _raise(e) from None
    return result


@dataclass(frozen=True)
class EditHunk:
    """One hunk of an edit: the lines it expects (``old``) and the lines it writes (``new``)."""

    old: str
    new: str
    old_start: Optional[int]


@dataclass(frozen=True)
class FileEdit:
    """One file's edit as read from a reply. ``change`` is ``modify``, ``create``, ``delete``,
    ``rename`` or ``replace``; ``content`` is the whole new text of a created or replaced file;
    ``raw`` is the engine's full form."""

    path: str
    change: str
    format: str
    new_path: Optional[str]
    content: Optional[str]
    hunks: List[EditHunk]
    raw: Dict[str, Any] = field(repr=False, compare=False)


class Extraction(List[FileEdit]):
    """The edits of a reply, with what could not be used (``issues``) and the repairs made on
    the way (``notes``)."""

    issues: List[Issue]
    notes: List[str]


def _side(lines: List[Dict[str, str]], skip: str) -> str:
    return "".join(line["text"] + "\n" for line in lines if line["kind"] != skip)


def _edit(value: Dict[str, Any]) -> FileEdit:
    change = value["change"]
    return FileEdit(
        path=value["path"],
        change=change["kind"],
        format=value["format"],
        new_path=change.get("to"),
        content=change.get("content"),
        hunks=[
            EditHunk(_side(h["lines"], "add"), _side(h["lines"], "remove"), h.get("old_start"))
            for h in change.get("hunks", [])
        ],
        raw=value,
    )


def extract(reply: str) -> Extraction:
    """Read the edits of a reply without touching any file."""
    try:
        value = json.loads(_native.extract(reply))
    except _native.EngineError as e:
        raise _raise(e) from None
    edits = Extraction(_edit(e) for e in value["edits"])
    edits.issues = [Issue(i["kind"], i.get("path"), i["message"]) for i in value["issues"]]
    edits.notes = list(value["notes"])
    return edits
