"""`alias-spec gen`: write every generated artifact, or check that they are up to date."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _targets() -> list[tuple[str, Callable[[], str]]]:
    """(path relative to the repo root, generator) for every generated file."""
    from alias_spec.backends import gen_cpp, gen_mlir, gen_python, gen_recipes
    from alias_spec.docgen import gen_docs

    return [
        ("alias_spec/generated/alias_checks.py", gen_python.generate),
        ("alias_spec/generated/alias_rules.h", gen_cpp.generate),
        ("alias_spec/generated/MemDescAliasOpVerify.cpp", gen_mlir.generate),
        ("alias_spec/generated/recipes.py", gen_recipes.generate),
        *gen_docs.targets(),  # the docs site's generated pages
    ]


def run(check: bool, root: Path = ROOT) -> int:
    """Write (or with ``check`` compare) every artifact; 1 when any is stale."""
    stale = []
    for rel, make in _targets():
        path = root / rel
        text = make()
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(rel)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                print(f"wrote {rel}")
    if stale:
        print("stale generated files (run `alias-spec gen`):", file=sys.stderr)
        for rel in stale:
            print(f"  {rel}", file=sys.stderr)
        return 1
    return 0
