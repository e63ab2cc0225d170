"""The targets of the request-level differential (``alias_spec/difftest/targets/``): every
module there is one the runner runs (``request_diff.TARGETS``) and has the targets' names, and
the one comparator (``difftest/outcomes.py``) reports any target made to read a request wrong.
"""

from __future__ import annotations

import inspect
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from alias_spec.difftest import request_diff as rd
from alias_spec.difftest import targets
from alias_spec.difftest.requests import nvmma

# Each target module by the name the runner lists it under.
BY_NAME = {t.NAME: t for t in rd.TARGETS}
# Alias requests every target can write: the glue and the verifier take a plain source, lint
# needs a layout on both sides.
ITEMS = [
    (
        "nvmma",
        {
            "source": {"shape": [64, 64], "dtype": "f16", "layout": nvmma(128, 16)},
            "result": {"shape": [32, 64], "dtype": "f16", "layout": nvmma(128, 16)},
            "alias_offset_bytes": 2048,
        },
    ),
    (
        "plain",
        {
            "source": {"shape": [64], "dtype": "i8"},
            "result": {"shape": [16], "dtype": "i8"},
            "alias_offset_bytes": 16,
        },
    ),
]


def test_every_target_module_is_run() -> None:
    modules = {m.name for m in pkgutil.iter_modules(targets.__path__)}
    assert modules == set(BY_NAME), "a module under difftest/targets/ the runner does not run"
    assert rd.PATHS == ("json", *BY_NAME)


@pytest.mark.parametrize("name", list(BY_NAME))
def test_target_has_the_interface(name: str) -> None:
    module: ModuleType = BY_NAME[name]
    assert module.__name__ == f"{targets.__name__}.{name}"  # NAME is the module's name
    assert isinstance(module, targets.Target)
    for attr, want in vars(targets.Target).items():
        if attr.startswith("_") or not callable(want):
            continue
        got = inspect.signature(getattr(module, attr))
        params = list(inspect.signature(want).parameters)[1:]  # the protocol's self
        assert list(got.parameters) == params, (name, attr)
        assert got.return_annotation is not inspect.Signature.empty, (name, attr)
    why = module.status()
    assert why is None or (isinstance(why, str) and why), why
    if why is not None:
        return
    batch = targets.Batch.of([req for _, req in ITEMS])
    got = module.outcomes(batch)
    assert len(got) == len(ITEMS)
    assert all(o is None or isinstance(o, rd.Outcome) for o in got)
    assert any(o is not None for o in got), f"{name} covers neither request"
    for i, o in enumerate(got):
        if o is not None:
            labels = module.labels(batch, i)
            assert labels and all(label.startswith(name) for label in labels), labels


def _wrong_fact(o: rd.Outcome) -> rd.Outcome:
    """One fact off by one, or (a path that reports rule ids only) one rule id too many."""
    if o.facts is not None:
        return rd.Outcome(facts={**o.facts, "off": int(o.facts["off"]) + 1}, unknown=o.unknown,
                          verdicts=o.verdicts)  # fmt: skip
    return rd.Outcome(verdicts={p: (*rules, "alias.range.fits") for p, rules in o.verdicts.items()})


def _wrong_reject(o: rd.Outcome) -> rd.Outcome:
    return rd.Outcome(error="planted: the target refused the request")


@pytest.mark.parametrize("plant", [_wrong_fact, _wrong_reject], ids=["wrong", "reject"])
@pytest.mark.parametrize("name", list(BY_NAME))
def test_a_planted_divergence_is_reported(
    name: str, plant: Callable[[rd.Outcome], rd.Outcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The target returns a wrong outcome for every request it covers (through its own
    ``outcomes``, not the runner's test hook): the runner reports each, on that target."""
    module = BY_NAME[name]
    if module.status() is not None:
        pytest.skip(module.status())
    opts = rd.Options(shrink=False, cpp=False)
    clean = rd.Runner(opts).run(ITEMS)
    assert not clean.divergences, clean.summary()
    real, wrong = module.outcomes, []

    def planted(batch: targets.Batch) -> list[Any]:
        out = [None if o is None else plant(o) for o in real(batch)]
        wrong.extend(o for o in out if o is not None)
        return out

    monkeypatch.setattr(module, "outcomes", planted)
    got = rd.Runner(opts).run(ITEMS)
    assert wrong, f"{name} covers neither request"
    assert {d.right for d in got.divergences} == {name}, got.summary()
    assert len(got.divergences) == len(wrong), got.summary()
    want = "reject" if plant is _wrong_reject else ("facts", "verdict")
    assert all(d.what in want for d in got.divergences), got.summary()
