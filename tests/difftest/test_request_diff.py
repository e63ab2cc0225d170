"""The request-level differential test: every request of a seeded corpus, written every way a
user can write it (JSON, JSON with defaults spelled out, MLIR memdesc text, an IR module read by
lint, a ``tle.gpu.alloc`` call, the C++ glue), must give the same facts and verdict through
every path and every engine (``alias_spec/difftest/request_diff.py``).

``test_corpus_sample`` runs a seeded sample of the campaign (a few thousand requests in the fast
tier, ``campaigns.SIZES["requests"].sample`` in CI); its full size, 100,000 requests, is
``alias-spec dev campaigns requests --full --write`` (dated result in docs/data/campaigns.json).
Divergences whose cause lies outside the differential's own files are listed in ``KNOWN`` with a
minimal repro: the corpus tests set them aside by their signature, and each has a strict xfail
test that turns into a failure once its cause is fixed (then drop the entry).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from alias_spec.difftest import campaigns
from alias_spec.difftest import request_diff as rd
from alias_spec.difftest.requests import corpus, nvmma, swizzled
from alias_spec.difftest.targets import glue, mlir, verifier
from alias_spec.model.facts import INT64_MAX
from tests.paths import ROOT


def _past_int64(d: rd.Divergence) -> bool:
    return any(
        isinstance(v, int) and v > INT64_MAX
        for pair in d.details.values()
        for v in (pair if isinstance(pair, list) else [])
    )


@dataclass(frozen=True)
class Known:
    """A divergence caused outside the differential: who owns the cause, a minimal repro, and
    the signature that recognises it in a corpus run."""

    owner: str
    reason: str
    repro: dict[str, Any]
    right: str  # the path that disagrees with "json"
    matches: Callable[[rd.Divergence], bool]


KNOWN: dict[str, Known] = {}


def classify(d: rd.Divergence) -> str | None:
    for name, known in KNOWN.items():
        if known.matches(d):
            return name
    return None


@pytest.mark.parametrize(
    "n,seed,z3_every",
    [
        pytest.param(1_200, 1, 100, id="dev"),
        pytest.param(campaigns.SIZES["requests"].sample, 0, None, id="ci"),
    ],
)
def test_corpus_sample(n: int, seed: int, z3_every: int | None) -> None:
    # A seeded sample of the 100,000-request campaign (``alias-spec dev campaigns requests
    # --full`` runs that; its dated result is in docs/data/campaigns.json), with every check of
    # the full run: coverage of every path and op, both sides of every rule, z3 on a sample.
    out = campaigns.requests(n, seed, workers=1, z3_every=z3_every, explained=classify)
    assert out.ok, out.report()


def test_corpus_is_deterministic() -> None:
    a = [json.dumps(r, sort_keys=True, default=str) for _, r in corpus(1500, 5)]
    b = [json.dumps(r, sort_keys=True, default=str) for _, r in corpus(1500, 5)]
    c = [json.dumps(r, sort_keys=True, default=str) for _, r in corpus(1500, 6)]
    assert a == b
    assert a != c


# --- the differential can fail ----------------------------------------------------------------


def _wrong_off(path: str) -> rd.Injector:
    """An injector adding 1 to the ``off`` fact of ``path``'s outcomes."""

    def inject(p: str, o: rd.Outcome, _req: Any) -> rd.Outcome:
        if p != path or o.facts is None:
            return o
        facts = dict(o.facts)
        facts["off"] = int(facts["off"]) + 1
        return rd.Outcome(facts=facts, unknown=o.unknown, error=o.error, verdicts=o.verdicts)

    return inject


@pytest.mark.parametrize("path", ["explicit", "mlir", "lint", "frontend"])
def test_a_wrong_fact_is_caught(path: str) -> None:
    items = [
        (
            "alias",
            {
                "source": {"shape": [64, 64], "dtype": "f16", "layout": nvmma(128, 16)},
                "result": {"shape": [32, 64], "dtype": "f16", "layout": nvmma(128, 16)},
                "alias_offset_bytes": 2048,
            },
        )
    ]
    clean = rd.Runner(rd.Options(shrink=False)).run(items)
    assert clean.coverage[path] == 1
    assert not clean.divergences, clean.summary()
    got = rd.Runner(rd.Options(shrink=True, inject=_wrong_off(path))).run(items)
    assert [(d.right, d.what, sorted(d.details)) for d in got.divergences] == [
        (path, "facts", ["off"])
    ]
    assert got.divergences[0].minimal is not None


@pytest.mark.parametrize("path", ["glue", "verifier"])
def test_a_wrong_verdict_is_caught(path: str) -> None:
    status = glue.status() if path == "glue" else verifier.status()
    if status is not None:
        pytest.skip(status)

    def inject(p: str, o: rd.Outcome, _req: Any) -> rd.Outcome:
        if p != path:
            return o
        return rd.Outcome(verdicts={k: (*v, "alias.range.fits") for k, v in o.verdicts.items()})

    items = [
        (
            "alias",
            {
                "source": {"shape": [64], "dtype": "i8"},
                "result": {"shape": [16], "dtype": "i8"},
                "alias_offset_bytes": 16,
            },
        )
    ]
    clean = rd.Runner(rd.Options(shrink=False)).run(items)
    assert not clean.divergences and sum(v for k, v in clean.coverage.items()
                                         if k.startswith(path)) == 1  # fmt: skip
    got = rd.Runner(rd.Options(shrink=False, inject=inject)).run(items)
    assert {(d.right, d.what) for d in got.divergences} == {(path, "verdict")}


def test_a_wrong_writer_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that misspells a type (f16 written as f32) shows up as a divergence."""
    real = mlir.dtype_text  # lint writes its types through the same writer
    monkeypatch.setattr(mlir, "dtype_text", lambda d: "f32" if real(d) == "f16" else real(d))
    items = [
        (
            "alias",
            {
                "source": {"shape": [64], "dtype": "f16", "layout": swizzled(1)},
                "result": {"shape": [16], "dtype": "f16", "layout": swizzled(1)},
            },
        )
    ]
    got = rd.Runner(rd.Options(shrink=False, frontend=False)).run(items)
    assert {d.right for d in got.divergences} == {"mlir", "lint"}
    assert all("src_bits" in d.details for d in got.divergences if d.what == "facts")


# --- known divergences (their causes are outside the differential) ----------------------------


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"{k.owner}: {k.reason}"))
        for name, k in KNOWN.items()
    ],
)
def test_known_divergence(name: str) -> None:
    known = KNOWN[name]
    got = rd.Runner(rd.Options(shrink=False)).run([(name, known.repro)])
    assert got.coverage[known.right] == 1, got.coverage
    hits = [d for d in got.divergences if d.right == known.right]
    assert all(known.matches(d) for d in hits), [d.text() for d in hits]
    assert not hits, [d.text() for d in hits]


# --- the differential reads the other layers through public functions only ---------------------


def _module_names(tree: ast.AST) -> set[str]:
    """Names a file binds to a module of this package (``import x as m``, ``from p import m``
    where ``p.m`` is a module)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                where = ROOT.joinpath(*f"{node.module}.{a.name}".split("."))
                if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
                    out.add(a.asname or a.name)
    return out


def test_difftest_patches_no_private_name() -> None:
    """No file of the differential assigns to another module's private names (the
    request-level differential once swapped lint's private functions for probes while it
    ran); it reads them through their public functions."""
    patched = []
    for path in sorted((ROOT / "alias_spec" / "difftest").rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = _module_names(tree)
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    targets += t.elts if isinstance(t, ast.Tuple) else [t]
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
            ):
                name = node.args[1] if len(node.args) > 1 else None
                attr = name.value if isinstance(name, ast.Constant) else "_?"
                targets = [ast.Attribute(value=node.args[0], attr=str(attr))]
            for t in targets:
                if (
                    isinstance(t, ast.Attribute)
                    and isinstance(t.value, ast.Name)
                    and t.value.id in modules
                    and t.attr.startswith("_")
                ):
                    patched.append(f"{path.relative_to(ROOT)}:{node.lineno}: {t.value.id}.{t.attr}")
    assert not patched, patched


def test_lint_reports_what_it_judged_each_view_with() -> None:
    """What the lint path compares comes from lint's report (``Report.judged``), and
    ``fixes=False`` gives each finding its rule's advice without asking z3."""
    from alias_spec.lint import lint
    from alias_spec.model.catalogue import rule

    text = (
        "module {\n  tt.func @f() {\n"
        "    %a = ttg.local_alloc : () -> !ttg.memdesc<64xi8, #ttg.swizzled_shared<{vec = 1, "
        "perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n"
        '    %o = "tle.memdesc_alias"(%a) {offset_bytes = 56 : i64} : (!ttg.memdesc<64xi8, '
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, "
        "#ttg.shared_memory, mutable>) -> !ttg.memdesc<16xi8, #ttg.swizzled_shared<{vec = 1, "
        "perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n"
        "    tt.return\n  }\n}\n"
    )
    report = lint.lint_text(text, "t.ttgir", "safe", fixes=False)
    assert [(j.result, j.facts["off"], j.facts["src_elems"], j.facts["res_elems"])
            for j in report.judged] == [("%o", 56, 64, 16)]  # fmt: skip
    fits = [f for f in report.findings if f.rule == "alias.range.fits"]
    assert len(fits) == 1
    assert fits[0].fix == rule("alias.range.fits").hint
