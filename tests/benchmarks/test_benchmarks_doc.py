"""``docs/benchmarks.md`` is what ``benchmarks/report_reuse.py`` renders from the committed
results, and its numbers move with them."""

from __future__ import annotations

import copy
from pathlib import Path

from benchmarks import report_reuse
from tests.paths import ROOT


def test_page_is_fresh() -> None:
    assert report_reuse.PAGE.read_text() == report_reuse.render(report_reuse.load()), (
        "docs/benchmarks.md is stale: run python benchmarks/report_reuse.py"
    )


def test_page_reads_the_results() -> None:
    """A measured value changed in the results changes the page (nothing is typed in twice)."""
    data = report_reuse.load()
    assert data["gpu"] and data["price"]
    changed = copy.deepcopy(data)
    changed["gpu"]["runs"][0]["shared"] = 12345
    changed["price"]["compile"]["checks_share"] = 0.5
    text = report_reuse.render(changed)
    assert "12345" in text and "50.000%" in text
    assert text != report_reuse.render(data)


def test_check_mode_fails_on_a_stale_page(tmp_path: Path, monkeypatch) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("old\n")
    monkeypatch.setattr(report_reuse, "PAGE", page)
    monkeypatch.setattr(report_reuse, "ROOT", tmp_path)
    assert report_reuse.main(["--check"]) == 1
    page.write_text(report_reuse.render(report_reuse.load()))
    assert report_reuse.main(["--check"]) == 0


def test_measured_results_count_the_catalogue_as_it_is() -> None:
    """The results page stated "56 rules (5 profiles)" after a sixth profile was added."""
    import re

    from alias_spec.model.catalogue import PROFILES, RULES
    from alias_spec.model.facts import FACTS

    text = " ".join((ROOT / "benchmarks" / "results.md").read_text().split())
    m = re.search(r"Catalogue: (\d+) rules, (\d+) profiles, (\d+) facts", text)
    assert m, "benchmarks/results.md names the catalogue's size"
    assert tuple(map(int, m.groups())) == (len(RULES), len(PROFILES), len(FACTS))
