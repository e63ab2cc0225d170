"""Installed code never reaches into a checkout's tests/ or docs/ through its own location.

An installed package has no tests/ or docs/ beside it, and a checkout's are not the package's
to read or write: every such path comes from the caller (a command-line option whose default
is the current directory). The scan follows values computed from ``__file__`` through
assignments and flags any path built from one with a ``tests`` or ``docs`` component.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "alias_spec"
FORBIDDEN = frozenset({"tests", "docs"})


def _reaches_forbidden(text: str) -> bool:
    """A path piece whose first real component is tests/ or docs/ ("../tests", "docs/x")."""
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    return bool(parts) and parts[0] in FORBIDDEN


def _target_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for elt in node.elts for n in _target_names(elt)]
    return []


class _Scan:
    """Names holding a value computed from ``__file__`` (by simple name, any scope), then the
    places where such a value is joined with a forbidden path piece."""

    def __init__(self, tree: ast.AST) -> None:
        self.tree = tree
        self.tainted: set[str] = set()
        # Names bound to a path piece into tests/ or docs/ (THEOREMS = "docs/data/x.json").
        self.forbidden: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and self._literal(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                self.forbidden |= {n for t in targets for n in _target_names(t)}
        changed = True
        while changed:  # to a fixpoint: HERE = Path(__file__); ROOT = HERE.parent; ...
            changed = False
            for node in ast.walk(tree):
                value, targets = None, []
                if isinstance(node, ast.Assign):
                    value, targets = node.value, node.targets
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                    value, targets = node.value, [node.target]
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    # A parameter defaulting to a path from __file__ holds one.
                    args = node.args
                    positional = [*args.posonlyargs, *args.args]
                    pairs = list(
                        zip(
                            positional[len(positional) - len(args.defaults) :],
                            args.defaults,
                            strict=True,
                        )
                    )
                    pairs += [
                        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d
                    ]
                    for arg, default in pairs:
                        if arg.arg not in self.tainted and self.from_file(default):
                            self.tainted.add(arg.arg)
                            changed = True
                    continue
                if value is None or not self.from_file(value):
                    continue
                for name in (n for t in targets for n in _target_names(t)):
                    if name not in self.tainted:
                        self.tainted.add(name)
                        changed = True

    @staticmethod
    def _literal(node: ast.AST | None) -> bool:
        return (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _reaches_forbidden(node.value)
        )

    def _piece_forbidden(self, node: ast.AST) -> bool:
        return self._literal(node) or (isinstance(node, ast.Name) and node.id in self.forbidden)

    def from_file(self, node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and (sub.id == "__file__" or sub.id in self.tainted):
                return True
            if isinstance(sub, ast.Attribute) and (
                sub.attr == "__file__" or sub.attr in self.tainted
            ):
                return True
        return False

    def findings(self) -> list[int]:
        """Line numbers of paths built from ``__file__`` that reach tests/ or docs/."""
        out = []
        for node in ast.walk(self.tree):
            pieces: list[ast.AST] = []
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
                pieces = [node.left, node.right]
            elif isinstance(node, ast.Call):
                pieces = [*node.args]
                if isinstance(node.func, ast.Attribute):
                    pieces.append(node.func.value)  # base.joinpath("docs"), base.with_name(...)
            elif isinstance(node, ast.JoinedStr):
                pieces = list(node.values)
            if not pieces or not any(self.from_file(p) for p in pieces):
                continue
            if any(self._piece_forbidden(p) for p in pieces):
                out.append(node.lineno)
        return sorted(set(out))


def scan(source: str) -> list[int]:
    return _Scan(ast.parse(source)).findings()


BAD = {
    "parents and slashes": """
        from pathlib import Path
        ROOT = Path(__file__).resolve().parents[2]
        CORPUS = ROOT / "tests" / "corpus" / "boundary.jsonl"
    """,
    "a chain of names": """
        HERE = Path(__file__).parent
        ROOT = HERE.parent
        def pages():
            return sorted((ROOT / "docs/rules").glob("*.md"))
    """,
    "joinpath": """
        DOCS = Path(__file__).resolve().parent.parent.joinpath("docs", "data")
    """,
    "os.path": """
        import os
        CASES = os.path.join(os.path.dirname(__file__), "..", "tests", "cases")
    """,
    "an f-string": """
        import alias_spec
        path = f"{alias_spec.__file__}/../../docs/theorems.md"
    """,
    "a default argument": """
        def load(root=Path(__file__).parents[1] / "docs"):
            return root
    """,
    "a named piece and a defaulted parameter": """
        ROOT = Path(__file__).resolve().parents[2]
        THEOREMS = "docs/data/theorems.json"
        def load(root: Path = ROOT):
            return (root / THEOREMS).read_text()
    """,
}
GOOD = {
    "package data": """
        HERE = Path(__file__).resolve().parent
        HARNESS = HERE / "harness.cpp"
        HEADER = HERE.parent / "generated" / "alias_rules.h"
    """,
    "the caller's root": """
        def pages(root):
            return sorted((root / "docs" / "rules").glob("*.md"))
        DEFAULT = Path("tests/gpu/corpus.json")
    """,
    "prose": """
        \"\"\"Reads tests/cases and docs/ of the checkout given by --root.\"\"\"
        WORKER = Path(__file__).resolve().parent / "worker.py"
    """,
}


@pytest.mark.parametrize("name", BAD)
def test_the_scan_flags_paths_into_a_checkout(name: str) -> None:
    assert scan(textwrap.dedent(BAD[name])), name


@pytest.mark.parametrize("name", GOOD)
def test_the_scan_passes_package_data_and_callers_paths(name: str) -> None:
    assert scan(textwrap.dedent(GOOD[name])) == [], name


def test_no_module_builds_a_checkout_path_from_its_location() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line in scan(path.read_text()):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert not found, "paths into tests/ or docs/ built from __file__: " + ", ".join(found)
