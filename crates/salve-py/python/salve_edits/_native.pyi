# The native module (Rust, PyO3). Everything crosses as JSON text; salve_edits wraps it.
from typing import Optional, Tuple

class EngineError(Exception):
    """args: (kind, code, message, hint)."""

def apply(
    edits: str,
    is_json: bool,
    root: str,
    check: bool,
    partial: bool,
    base: Optional[str],
    checkpoint: bool,
    record: bool,
) -> Tuple[str, str]: ...
def checkpoint(root: str, message: Optional[str] = None) -> str: ...
def restore(root: str, id: str) -> str: ...
def undo(root: str) -> str: ...
def extract(reply: str) -> str: ...
