"""`alias-spec gen`: write every generated artifact, or check that they are up to date.

Every path is relative to the root the caller gives (``alias-spec gen --root DIR``, default the
current directory): the checks under ``alias_spec/generated/`` and the docs pages, whose stored
inputs (solved examples, theorems, the hand-written lowering guide) are read there too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

# Folders every file of which gen writes: a file there that it does not write is stale.
# compiler_patch/ is gen's but for its hand-written testbed/ (gen_patch.OWNED lists the rest).
OWNED = (
    "solver",
    "compiler_patch/verifier",
    "compiler_patch/ods",
    "compiler_patch/python",
    "compiler_patch/test",
)


def _targets(root: Path) -> list[tuple[str, Callable[[], str]]]:
    """(path relative to ``root``, generator) for every generated file."""
    from alias_spec.backends import gen_cpp, gen_mlir, gen_patch, gen_python, gen_recipes, gen_smt
    from alias_spec.docgen import gen_docs

    return [
        ("alias_spec/generated/alias_checks.py", gen_python.generate),
        ("alias_spec/generated/alias_rules.h", gen_cpp.generate),
        ("alias_spec/generated/MemDescAliasOpVerify.cpp", gen_mlir.generate),
        ("alias_spec/generated/recipes.py", gen_recipes.generate),
        *gen_smt.targets(root),  # solver/: the rules, profiles and theorems as SMT-LIB 2
        *gen_patch.targets(root),  # compiler_patch/: what a FlagTree maintainer applies
        *gen_docs.targets(root),  # the docs site's generated pages
    ]


def run(check: bool, root: Path) -> int:
    """Write (or with ``check`` compare) every artifact under ``root``; 1 when any is stale,
    2 (one line on stderr) when ``root`` or a stored input there cannot be read."""
    from alias_spec.backends.gen_patch import PatchInputError
    from alias_spec.docgen.gen_docs import InputError

    if not root.is_dir():
        print(f"alias-spec: error: --root {root}: not a directory", file=sys.stderr)
        return 2
    stale = []
    try:
        targets = _targets(root)
        # A file left under a folder gen owns whole (a rule or theorem since removed) is stale.
        wanted = {rel for rel, _ in targets}
        for folder in OWNED:
            for path in sorted((root / folder).rglob("*")) if (root / folder).is_dir() else ():
                rel = path.relative_to(root).as_posix()
                if path.is_file() and rel not in wanted:
                    if check:
                        stale.append(rel)
                    else:
                        path.unlink()
                        print(f"removed {rel}")
        for rel, make in targets:
            path = root / rel
            text = make()
            if _current(path) == text:
                continue
            if check:
                stale.append(rel)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                print(f"wrote {rel}")
    except (InputError, PatchInputError) as exc:
        print(f"alias-spec: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a target that cannot be written (a folder in its place, ...)
        print(f"alias-spec: error: {exc.filename or root}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if stale:
        print("stale generated files (run `alias-spec gen`):", file=sys.stderr)
        for rel in stale:
            print(f"  {rel}", file=sys.stderr)
        return 1
    return 0


def _current(path: Path) -> str | None:
    """The file's text, or None where there is no readable text file (so it is stale)."""
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
