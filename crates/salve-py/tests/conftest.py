"""Fixtures: real git work trees in temp folders, each with its own HOME so no user
configuration leaks in (as the Rust tests' `Tree` does)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=salve tests", "-c", "user.email=tests@salve.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the tree but .git, by relative path."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".git" or "__pycache__" in rel.parts or not path.is_file():
            continue
        files[rel.as_posix()] = path.read_bytes()
    return files


@pytest.fixture(autouse=True)
def home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def invoice(tmp_path: Path) -> Path:
    """The README's quick-start project as a git work tree with one commit."""
    root = tmp_path / "invoice"
    shutil.copytree(REPO / "examples" / "invoice", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


@pytest.fixture
def reply() -> str:
    return (REPO / "examples" / "invoice" / "reply.md").read_text()
