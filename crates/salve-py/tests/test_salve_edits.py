"""The installed salve_edits package against real git work trees. Run by
scripts/test-packages.sh against the wheel installed in a fresh virtual environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import salve_edits
from conftest import REPO, git, snapshot

# A SEARCH block that quotes the line with a typo: refused, with the real line as candidate.
NEAR_MISS = """invoice/money.py
```python
<<<<<<< SEARCH
    euros, rest = divmod(cent, 100)
    return f"{currency} {euros}.{rest:02d}"
=======
    euros, rest = divmod(abs(cents), 100)
    return f"{currency} {euros}.{rest:02d}"
>>>>>>> REPLACE
```
"""

CORRECTED = NEAR_MISS.replace("divmod(cent, 100)", "divmod(cents, 100)")


def installed_salve() -> Path:
    found = shutil.which("salve", path=str(Path(sys.executable).parent))
    assert found, "the wheel installs the salve command beside the interpreter"
    return Path(found)


def test_the_package_is_the_installed_wheel_with_its_stubs() -> None:
    package = Path(salve_edits.__file__).parent
    assert "site-packages" in package.parts, package
    assert (package / "py.typed").is_file()
    assert (package / "_native.pyi").is_file()


def test_multi_format_reply_lands_and_its_tests_pass(invoice: Path, reply: str) -> None:
    report = salve_edits.apply(reply, root=invoice)
    assert report.outcome == "applied" and report.ok and report.exit_code == 0
    assert [f.format for f in report.files] == ["unified", "search-replace", "codex"]
    assert sorted(report.written) == [
        "invoice/money.py",
        "invoice/totals.py",
        "tests/test_rounding.py",
    ]
    totals = report.files[0]
    assert [h.rung for h in totals.hunks] == ["exact", "trailing_ws"]
    assert totals.hunks[0].lines == salve_edits.LineRange(3, 9)
    assert report.checkpoint and report.run
    tests = subprocess.run(
        [sys.executable, "-m", "unittest", "-q"], cwd=invoice, capture_output=True, text=True
    )
    assert tests.returncode == 0, tests.stderr
    assert "Ran 5 tests" in tests.stderr


def test_report_json_is_the_commands_json(invoice: Path, reply: str) -> None:
    report = salve_edits.apply(reply, root=invoice, check=True)
    assert report.check_only and report.written == []
    cli = subprocess.run(
        [str(installed_salve()), "--json", "apply", "--check", "-C", str(invoice), "-"],
        input=reply,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0, cli.stderr
    assert report.to_json() + "\n" == cli.stdout
    assert report.to_dict()["files"][1]["path"] == "invoice/money.py"
    assert git(invoice, "status", "--porcelain") == ""


def test_python_c_prints_the_commands_report(invoice: Path) -> None:
    """The issue's bar, as a user would type it: `python -c` on the quick-start reply."""
    code = (
        "import salve_edits, sys; "
        "print(salve_edits.apply(open(sys.argv[1]).read(), root=sys.argv[2], check=True).to_json())"
    )
    reply_path = str(REPO / "examples" / "invoice" / "reply.md")
    ours = subprocess.run(
        [sys.executable, "-c", code, reply_path, str(invoice)], capture_output=True, text=True
    )
    cli = subprocess.run(
        [str(installed_salve()), "--json", "apply", "--check", "-C", str(invoice), reply_path],
        capture_output=True,
        text=True,
    )
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout)["outcome"] == "applied"
    assert ours.stdout == cli.stdout


def test_a_refusal_carries_candidates_and_writes_nothing(invoice: Path) -> None:
    before = snapshot(invoice)
    report = salve_edits.apply(NEAR_MISS, root=invoice)
    assert report.outcome == "refused" and not report.ok and report.exit_code == 1
    assert report.written == [] and report.checkpoint is None
    [file] = report.refused()
    [hunk] = file.hunks
    assert hunk.status == "not_found"
    best = hunk.candidates[0]
    assert best.lines == salve_edits.LineRange(6, 7)
    assert 0.5 < best.score < 1
    excerpt = {e.line: e.text for e in best.excerpt}
    assert excerpt[6] == "    euros, rest = divmod(cents, 100)"
    assert snapshot(invoice) == before


def test_undo_restores_the_tree(invoice: Path, reply: str) -> None:
    before = snapshot(invoice)
    assert salve_edits.apply(reply, root=invoice).ok
    assert snapshot(invoice) != before
    undone = salve_edits.undo(invoice)
    assert undone["undone"]["kind"] == "apply"
    assert snapshot(invoice) == before


def test_checkpoint_and_restore(invoice: Path) -> None:
    before = snapshot(invoice)
    cp = salve_edits.checkpoint(invoice, message="before the experiment")
    (invoice / "invoice" / "money.py").write_text("broken\n")
    (invoice / "scratch.txt").write_text("new\n")
    restored = salve_edits.restore(invoice, cp)
    assert restored["target"] == cp
    assert snapshot(invoice) == before


def test_two_threads_apply_to_different_files_at_once(invoice: Path) -> None:
    money = CORRECTED
    totals = """invoice/totals.py
```python
<<<<<<< SEARCH
def add_tax(amount: int, rate: float) -> int:
=======
def add_tax(amount: int, rate: float) -> int:  # rate is a fraction: 0.2 for 20%
>>>>>>> REPLACE
```
"""
    start = threading.Barrier(2)
    reports: dict[str, salve_edits.Report] = {}
    errors: list[BaseException] = []

    def run(name: str, text: str) -> None:
        try:
            start.wait()
            reports[name] = salve_edits.apply(text, root=invoice)
        except BaseException as e:  # surfaced below: a thread's exception is otherwise lost
            errors.append(e)

    threads = [
        threading.Thread(target=run, args=("money", money)),
        threading.Thread(target=run, args=("totals", totals)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert reports["money"].written == ["invoice/money.py"]
    assert reports["totals"].written == ["invoice/totals.py"]
    assert "divmod(abs(cents), 100)" in (invoice / "invoice" / "money.py").read_text()
    assert "# rate is a fraction" in (invoice / "invoice" / "totals.py").read_text()


# The syscalls a thread sleeping in Rust's std::thread::sleep makes on x86_64 and aarch64 Linux
# (nanosleep, clock_nanosleep); a thread waiting for the GIL waits on a futex instead.
SLEEPS = {"x86_64": {"35", "230"}, "aarch64": {"101", "115"}}


def test_the_gil_is_released_while_the_engine_waits(invoice: Path) -> None:
    """This thread holds the work tree's write lock; another thread's apply waits for it in
    Rust. This thread then runs Python (it could not if the waiting thread held the GIL), sees
    the other thread asleep in the engine's wait loop, and lets go of the lock. With the GIL
    held, the apply would give up after its bounded wait with an error instead."""
    import fcntl
    import platform

    sleeps = SLEEPS.get(platform.machine())
    if sleeps is None or not Path("/proc/self/task").is_dir():
        pytest.skip("needs Linux's /proc on x86_64 or aarch64")
    lock_path = invoice / ".git" / "salve" / "write.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    result: dict[str, object] = {}
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        thread = threading.Thread(
            target=lambda: result.update(report=salve_edits.apply(CORRECTED, root=invoice))
        )
        thread.start()
        syscall = Path(f"/proc/self/task/{thread.native_id}/syscall")
        while thread.is_alive() and syscall.read_text().split(" ")[0] not in sleeps:
            threading.Event().wait(0.001)
        assert thread.is_alive(), "the apply returned while the lock was held"
        fcntl.flock(lock, fcntl.LOCK_UN)
    thread.join()
    report = result["report"]
    assert isinstance(report, salve_edits.Report)
    assert report.ok and report.written == ["invoice/money.py"]
    assert any("waited" in note for note in report.notes), report.notes


def test_a_tool_calls_json_value_applies(invoice: Path) -> None:
    call = {
        "file_path": "invoice/money.py",
        "old_string": "    euros, rest = divmod(cents, 100)\n",
        "new_string": "    euros, rest = divmod(abs(cents), 100)\n",
    }
    report = salve_edits.apply(call, root=invoice, checkpoint=False, record=False)
    assert report.ok and report.written == ["invoice/money.py"]
    assert report.checkpoint is None and report.run is None


def test_extract_reads_without_writing(invoice: Path, reply: str) -> None:
    before = snapshot(invoice)
    edits = salve_edits.extract(reply)
    assert [(e.path, e.change, e.format) for e in edits] == [
        ("invoice/totals.py", "modify", "unified"),
        ("invoice/money.py", "modify", "search-replace"),
        ("tests/test_rounding.py", "create", "codex"),
    ]
    assert "divmod(abs(cents), 100)" in edits[1].hunks[0].new
    assert "divmod(cents, 100)" in edits[1].hunks[0].old
    assert edits[2].content is not None and "class RoundingTest" in edits[2].content
    assert edits.issues == [] and edits.notes
    assert snapshot(invoice) == before
    nothing = salve_edits.extract("just prose, no edit")
    assert list(nothing) == [] and nothing.issues[0].kind == "no_edit"


def test_engine_errors_are_exceptions_named_by_kind(invoice: Path, tmp_path: Path) -> None:
    with pytest.raises(salve_edits.SalveUserError) as missing:
        salve_edits.apply(CORRECTED, root=tmp_path / "nowhere")
    assert missing.value.code == "bad_directory" and missing.value.kind == "user"
    with pytest.raises(salve_edits.SalveUserError) as revision:
        salve_edits.apply(CORRECTED, root=invoice, base="no-such-revision")
    assert revision.value.code == "unknown_revision"
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(salve_edits.SalveError) as outside:
        salve_edits.checkpoint(plain)
    assert outside.value.code == "not_a_repository"
    assert outside.value.hint and outside.value.hint in str(outside.value)
    with pytest.raises(salve_edits.SalveRefusedError) as nothing:
        salve_edits.undo(invoice)
    assert nothing.value.kind == "refused" and nothing.value.code


def test_the_wheels_salve_is_the_cargo_binary() -> None:
    cargo_bin = os.environ.get("SALVE_CARGO_BIN")
    if not cargo_bin:
        pytest.skip("SALVE_CARGO_BIN (the cargo-built salve) not set")
    ours = subprocess.run([str(installed_salve()), "--version"], capture_output=True, text=True)
    theirs = subprocess.run([cargo_bin, "--version"], capture_output=True, text=True)
    assert ours.returncode == 0 and ours.stdout.startswith("salve ")
    assert ours.stdout == theirs.stdout


def readme_block(info: str) -> str:
    text = (REPO / "README.md").read_text()
    section = text.split("\n## In Python and Node: the `salve-edits` packages\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    return section.split(f"```{info}\n", 1)[1].split("\n```", 1)[0]


def test_the_readme_loop_sends_candidates_back_and_lands(invoice: Path) -> None:
    namespace: dict[str, object] = {}
    exec(compile(readme_block("python"), "README.md", "exec"), namespace)
    asked: list[str] = []

    def model(prompt: str) -> str:
        asked.append(prompt)
        return CORRECTED

    report = namespace["land"](NEAR_MISS, model, root=str(invoice))  # type: ignore[operator]
    assert report.ok and report.written == ["invoice/money.py"]
    [prompt] = asked
    assert "invoice/money.py: hunk 1: not_found" in prompt
    assert "      6 |     euros, rest = divmod(cents, 100)" in prompt
