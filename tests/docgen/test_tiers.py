"""README.md's tier table (``alias-spec dev tiers``): its counts are pytest's own, its times the
recorded measurement, and a stale table fails ``--check``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from alias_spec.docgen import tiers
from tests.paths import ROOT


def _checkout(tmp_path: Path, tests: dict[str, str]) -> Path:
    """A tiny checkout: a README with the block, a conftest and the given test files."""
    root = tmp_path / "co"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "conftest.py").write_text("")
    for name, body in tests.items():
        (root / "tests" / name).write_text(body)
    (root / "README.md").write_text(f"# x\n\n{tiers.BEGIN}\nold\n{tiers.END}\n\nafter\n")
    return root


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alias_spec", "dev", "tiers", *args],
                          capture_output=True, text=True, check=False, timeout=600)  # fmt: skip


TWO_TESTS = (
    "import pytest\n\ndef test_a():\n    pass\n\n@pytest.mark.slow\ndef test_b():\n    pass\n"
)


def test_counts_are_what_pytest_collects(tmp_path: Path) -> None:
    # The independent truth: two tests written here, one of them slow.
    root = _checkout(tmp_path, {"test_x.py": TWO_TESTS})
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    assert tiers.collect(root, None) == 2
    assert tiers.collect(root, tiers.FAST) == 1


def test_write_then_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    # The counts are pytest's (the test above); here the block's life: stale, written, current.
    monkeypatch.setattr(tiers, "collect", lambda _root, markexpr: 1 if markexpr else 2)
    root = _checkout(tmp_path, {"test_x.py": TWO_TESTS})
    assert tiers.main(["--check", "--root", str(root)]) == 1  # "old" is stale
    assert tiers.main(["--root", str(root)]) == 0
    text = (root / "README.md").read_text()
    assert "| fast |" in text and "| 1 of 2 |" in text and text.endswith("after\n")
    assert "not measured yet" in text  # no record in this checkout
    assert tiers.main(["--check", "--root", str(root)]) == 0
    # A recorded run shows up with its date and commit; the newest one wins.
    (root / "benchmarks" / "results").mkdir(parents=True)
    run = {"date": "2026-12-07", "commit": "abcdef0123", "cpus": 2,
           "full": {"seconds": 840.0, "passed": 2, "skipped": 0, "exit": 0},
           "fast": {"seconds": 61.0, "passed": 1, "skipped": 0, "exit": 0}}  # fmt: skip
    older = {**run, "date": "2026-12-01", "commit": "0000000000"}
    (root / tiers.RECORD).write_text(json.dumps({"runs": [run, older]}))
    assert tiers.main(["--check", "--root", str(root)]) == 1
    assert tiers.main(["--root", str(root)]) == 0
    text = (root / "README.md").read_text()
    assert "14.0 min for `.ci/run` on a clean 2-core clone (2026-12-07, abcdef0" in text
    assert "61 s for the tier" in text and "0000000" not in text
    capsys.readouterr()


def test_a_broken_test_tree_is_one_line_exit_2(tmp_path: Path) -> None:
    root = _checkout(tmp_path, {"test_x.py": "import nosuchmodule_here\n"})
    proc = _run("--root", str(root))
    assert proc.returncode == 2 and "could not collect" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_not_a_checkout_is_one_line_exit_2(tmp_path: Path) -> None:
    proc = _run("--root", str(tmp_path))
    assert proc.returncode == 2 and "not a checkout" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_readme_without_the_block_is_exit_2(tmp_path: Path) -> None:
    root = _checkout(tmp_path, {"test_x.py": TWO_TESTS})
    (root / "README.md").write_text("# no block\n")
    proc = _run("--root", str(root))
    assert proc.returncode == 2 and "no block" in proc.stderr


def test_the_checkout_has_the_block_once() -> None:
    # What it says is alias-spec dev tiers --check's to judge (CI runs it).
    text = (ROOT / "README.md").read_text()
    assert text.count(tiers.BEGIN) == 1 and text.count(tiers.END) == 1


def test_a_failed_or_shared_run_says_so() -> None:
    run = {"date": "2026-12-07", "commit": "abcdef0123", "cpus": 2, "conditions": "shared",
           "full": {"seconds": 90.0, "passed": 3, "skipped": 0, "failed": 1, "exit": 1}}  # fmt: skip
    text = tiers.render(4, 1, {"full": run})
    assert "90 s for `.ci/run`" in text and "1 failed; shared)" in text
    assert "not measured yet" in text  # no fast tier in that run


def test_each_tier_shows_its_own_newest_run(tmp_path: Path) -> None:
    old = {"date": "2026-12-06", "commit": "a" * 40, "cpus": 2,
           "full": {"seconds": 1500.0, "passed": 3, "skipped": 0},
           "fast": {"seconds": 200.0, "passed": 1, "skipped": 0}}  # fmt: skip
    fast = {"date": "2026-12-07", "commit": "b" * 40, "cpus": 2,
            "fast": {"seconds": 80.0, "passed": 1, "skipped": 0}}  # fmt: skip
    ci = {"date": "2026-12-07", "commit": "c" * 40, "cpus": 2, "where": "in CI",
          "full": {"seconds": 686.0}}  # fmt: skip
    record = tmp_path / tiers.RECORD
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"runs": [fast, ci, old]}))
    text = tiers.render(4, 1, tiers.latest(tmp_path))
    assert "80 s for the tier on a clean 2-core clone (2026-12-07, bbbbbbb; 1 passed" in text
    assert "11.4 min for `.ci/run` in CI (2026-12-07, ccccccc)" in text
