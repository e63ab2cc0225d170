"""One judge, and an interface for each kind of engine: ``alias-spec check``, ``alias-spec
lint`` and the random differential against Triton all judge facts with an engine through
``semantics.verdict.engine_verdict`` (check by ``registry.judge``, the others by
``registry.judge_facts``), each with its own engine; the MLIR engine, which judges requests
written as IR, is an ``engines.base.RequestEngine``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from alias_spec import api
from alias_spec.difftest.triton import random_diff
from alias_spec.difftest.triton.cases import RE, md, sw
from alias_spec.engines import registry
from alias_spec.semantics import verdict
from tests.paths import LINT_CASES, ROOT


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(engine, profile) of every call of the one judge, which still judges."""
    seen: list[tuple[str, str]] = []
    real = verdict.engine_verdict

    def spy(facts: Any, profile: str, unknown: frozenset[str], engine: Any) -> Any:
        seen.append((engine.name, profile))
        return real(facts, profile, unknown, engine)

    monkeypatch.setattr(verdict, "engine_verdict", spy)
    return seen


def test_check_judges_through_the_one_judge(calls: list[tuple[str, str]]) -> None:
    assert api.run(["check", str(ROOT / "examples" / "request.json")]) in (0, 1, 3)
    assert calls and set(calls) == {(registry.DEFAULT, "safe")}
    calls.clear()
    api.run(["check", "--engine", "interp", "--profile", "flagtree",
             str(ROOT / "examples" / "request.json")])  # fmt: skip
    assert calls and set(calls) == {("interp", "flagtree")}


def test_lint_judges_through_the_one_judge(calls: list[tuple[str, str]]) -> None:
    mlir = LINT_CASES / "flagtree_alias.mlir"
    assert api.run(["lint", "--profile", "safe", str(mlir)]) == 1  # the module's broken aliases
    assert calls and set(calls) == {(registry.LINT, "safe")}


def test_the_random_differential_judges_through_the_one_judge(
    calls: list[tuple[str, str]],
) -> None:
    req = {"op": RE, "source": md([64], "i8", sw(1)), "result": md([128], "i8", sw(1))}
    assert random_diff.model_verdict(req, "triton-3.9")[0] == "invalid"
    assert calls == [(registry.LINT, "triton-3.9")]


def test_a_rule_left_unjudged_is_left_unjudged_by_both_paths() -> None:
    # A padded source: check's verdict and lint's judgement name the same rules unjudged, and
    # the same violations among the rest.
    from alias_spec.model.request import parse_request

    pad = {"kind": "padded", "order": [0], "lrank": 1, "interval": 32, "pad": 4}
    req = parse_request({"op": RE, "source": md([64], "i8", random_diff.layout_text(pad, [64])),
                         "result": md([64], "i8", sw(1))})  # fmt: skip
    full = registry.judge(req, "triton-3.9", registry.LINT, fixes=False)
    got, skipped = registry.judge_facts(req.facts, "triton-3.9", req.unknown)
    assert full.not_judged and skipped == full.not_judged
    assert [v.rule for v in got] == full.rule_ids()


def test_the_mlir_engine_is_a_request_engine(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # It judges requests written as IR, so it implements the request-level interface of
    # engines/base.py; no MLIR is needed to see it hand a batch to one driver run.
    from alias_spec.engines import mlir_engine
    from alias_spec.engines.base import RequestEngine

    runs: list[tuple[int, str, Path | None]] = []

    def fake(requests: Any, profile: str, binary: Path | None = None) -> list[list[str]]:
        runs.append((len(requests), profile, binary))
        return [["alias.range.fits"] for _ in requests]

    monkeypatch.setattr(mlir_engine, "judge", fake)
    monkeypatch.setattr(mlir_engine, "driver", lambda: tmp_path / "tle-alias-opt")
    registry.request_engine.cache_clear()
    try:
        engine = registry.request_engine("mlir")
    finally:
        registry.request_engine.cache_clear()
    assert isinstance(engine, RequestEngine) and engine.name == "mlir"
    assert engine.profiles == mlir_engine.PROFILES
    assert engine([{}, {}], "flagtree") == [["alias.range.fits"]] * 2
    assert engine.judge({}, "safe") == ["alias.range.fits"]
    assert runs == [
        (2, "flagtree", tmp_path / "tle-alias-opt"),
        (1, "safe", tmp_path / "tle-alias-opt"),
    ]
