"""The package is layered: a module imports only from its own layer or the layers above it in
``LAYERS`` (data flows one way, from the rules down to the command line). The tests and the
tools beside it import each other as packages, never by editing ``sys.path``, and ``tests/``
holds tests and what they use, no tool of its own."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import PACKAGE, ROOT, TESTS, TOOLS

LAYERS = (
    "model",
    "semantics",
    "backends",
    "generated",
    "frontend",
    "engines",
    "ir",
    "lint",
    "plan",
    "difftest",
    "docgen",
)
TOP = len(LAYERS)  # cli.py, gen.py, __main__.py


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else TOP


def _imports(path: Path, module: str) -> list[tuple[int, str]]:
    """(line, imported module) for every import of this package in one file, nested included."""
    out = []
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in out if name.split(".")[0] == "alias_spec"]


def _modules() -> list[tuple[Path, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((path, ".".join(parts)))
    return out


def test_every_layer_is_a_folder() -> None:
    for layer in LAYERS:
        assert (PACKAGE / layer / "__init__.py").is_file(), layer


def test_no_import_runs_back_up() -> None:
    upward = []
    for path, module in _modules():
        if module == "alias_spec":
            continue
        for line, name in _imports(path, module):
            if name != "alias_spec" and _layer(name) > _layer(module):
                upward.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {name}")
    assert not upward, "\n".join(upward)


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The check above must be able to fail: a model module importing the solver is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from alias_spec.semantics.check import check_facts\n")
    (name,) = [n for _, n in _imports(bad, "alias_spec.model.bad")]
    assert _layer(name) > _layer("alias_spec.model.bad")


@pytest.mark.parametrize(
    "module",
    [
        "alias_spec.frontend.tle.place",
        "alias_spec.generated.alias_checks",
        "alias_spec.generated.recipes",
        "alias_spec.model.physical",
        "alias_spec.model.dtypes",
        "alias_spec.model.layouts",
    ],
)
def test_frontend_side_needs_neither_z3_nor_pydantic(module: str) -> None:
    """What the frontend imports loads with z3, cvc5 and pydantic unavailable (the GPU machine
    has none of them)."""
    code = (
        "import sys\n"
        "for blocked in ('z3', 'cvc5', 'pydantic'):\n"
        "    sys.modules[blocked] = None\n"
        f"import {module}\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.parametrize(
    "module,blocked",
    [
        ("alias_spec.frontend.tle.reuse", ("z3", "cvc5", "pydantic")),
        ("alias_spec.model.reuse", ("z3", "cvc5", "pydantic")),
        # The planner runs when a kernel compiles, on the GPU machine too: z3 only.
        ("alias_spec.semantics.reuse", ("cvc5", "pydantic")),
    ],
)
def test_reuse_planner_needs_only_z3(module: str, blocked: tuple[str, ...]) -> None:
    code = "import sys\n" + "".join(f"sys.modules[{b!r}] = None\n" for b in blocked)
    code += f"import {module}\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from pkg import mod`` is ``pkg.mod``)."""
    mods = {module: path for path, module in _modules()}
    graph: dict[str, set[str]] = {}
    for module, path in mods.items():
        deps: set[str] = set()
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = module.split(".") if is_pkg else module.split(".")[:-1]
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                         for a in node.names]  # fmt: skip
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                while name and name not in mods:
                    name = name.rpartition(".")[0]
                if name.startswith("alias_spec.") and name != module:
                    deps.add(name)
        graph[module] = deps
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_modules_import_each_other() -> None:
    # Within a layer and at the top (cli.py, api.py) too: no circle of imports, nested included.
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]] and _cycles({"a": {"b"}, "b": set()}) == []


def test_modules_that_need_no_triton_import_without_it() -> None:
    # place.py and args.py say so; the tle package's __init__ must not pull Triton in.
    code = ("import sys; sys.modules['triton'] = None\n"
            "import alias_spec.frontend.tle.place, alias_spec.frontend.tle.args\n"
            "from alias_spec.frontend import tle\n"
            "try:\n    tle.gpu\nexcept ImportError:\n    print('gpu needs triton')\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.strip() == "gpu needs triton", proc.stderr[-2000:]


def test_backends_never_import_each_other() -> None:
    # Each generator is a function of the catalogue; what they share is syntax.py. gen_patch
    # bundles the others' output for FlagTree. (The proof of gen_cpp's trees, bv_proof, is
    # a check of a generator's output: it lives in difftest, below them.)
    graph = _graph()
    gens = {m for m in graph if m.startswith("alias_spec.backends.gen_")}
    assert not any(m.startswith("alias_spec.backends.") and "proof" in m for m in graph)
    bundles = {"alias_spec.backends.gen_patch"}
    crossing = {m: sorted(graph[m] & gens) for m in gens - bundles if graph[m] & gens}
    assert crossing == {}


# Scripts run by file path, under an interpreter that may have only Triton (``--python``), and
# the package's own ``python -m alias_spec``. Every other tool is a command of that one entry
# point (``alias-spec dev TOOL``, ``alias-spec plan-run``), not a ``python -m`` of its module.
SCRIPTS = {"alias_spec/__main__.py", "alias_spec/plan/worker.py",
           "alias_spec/difftest/triton/worker.py"}  # fmt: skip


def _runs_as_main(source: str) -> bool:
    """Whether the source has an ``if __name__ == "__main__":`` (either way round)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            sides = [node.left, node.comparators[0]]
            names = [s.id for s in sides if isinstance(s, ast.Name)]
            texts = [s.value for s in sides if isinstance(s, ast.Constant)]
            if names == ["__name__"] and texts == ["__main__"]:
                return True
    return False


def test_only_the_entry_point_and_the_workers_run_as_main() -> None:
    found = sorted(
        path.relative_to(ROOT).as_posix()
        for path, _ in _modules()
        if _runs_as_main(path.read_text()) and path.relative_to(ROOT).as_posix() not in SCRIPTS
    )
    assert found == [], f"a tool of its own; make it an alias-spec command: {found}"
    for script in SCRIPTS - {"alias_spec/__main__.py"}:  # the workers still run by path
        assert _runs_as_main((ROOT / script).read_text()), script


def test_the_main_finder_finds_one() -> None:
    assert _runs_as_main('import sys\nif __name__ == "__main__":\n    sys.exit(0)\n')
    assert _runs_as_main("if '__main__' == __name__:\n    pass\n")
    assert not _runs_as_main('name = "__main__"\nif name == __file__:\n    pass\n')


# --- tests/ and tools/: packages, not path edits ----------------------------------------------

# ``sys.path`` changed in place: insert, append, extend, a slice or the name assigned.
_PATH_EDIT = re.compile(
    r"\bsys\.path\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]]*:[^\]]*\]\s*=|\+?=(?!=))"
)


def _path_edits(top: Path) -> list[str]:
    """``file:line`` of every edit of ``sys.path`` in the text files under ``top``."""
    found = []
    for path in sorted(p for p in top.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # compressed corpora, archives
        for n, line in enumerate(text.splitlines(), 1):
            if _PATH_EDIT.search(line):
                found.append(f"{path.relative_to(top.parent).as_posix()}:{n}")
    return found


def test_no_test_or_tool_edits_sys_path() -> None:
    """Tests, their helpers and the tools import each other as packages (``from tests.plan.cases
    import kernels``, ``from tools.plan import judge_corpus``; pytest puts the checkout on the
    path, a tool runs as ``python -m tools...``); a child process gets its path by ``cwd`` or
    ``PYTHONPATH`` (``tests.paths.child_env``), not by code that edits ``sys.path``."""
    assert _path_edits(TESTS) + _path_edits(TOOLS) == []


def test_the_path_edit_finder_finds_them(tmp_path: Path) -> None:
    # Spelt with SP for sys.path, so that this file does not match itself.
    edits = ["SP.insert(0, HERE)", "SP[:0] = [HERE]", "SP.append(HERE)", "SP.extend([HERE])",
             "SP += [HERE]", "SP = [HERE]"]  # fmt: skip
    fine = ["del SP[0]", "if SP == []:", "print(SP[0])", "paths = SP[:]"]
    (tmp_path / "t").mkdir()
    text = "\n".join(edits + fine).replace("SP", "sys.path")
    (tmp_path / "t" / "a.py").write_text(text + "\n")
    assert _path_edits(tmp_path / "t") == [f"t/a.py:{n}" for n in range(1, len(edits) + 1)]


ALWAYS = ("conftest.py", "__init__.py", "paths.py")  # besides test_*.py


def _module_file(name: str, root: Path) -> Path | None:
    """The file of module ``name`` under ``root`` (a module or a package), if there is one."""
    where = root.joinpath(*name.split("."))
    for path in (where.with_suffix(".py"), where / "__init__.py"):
        if path.is_file():
            return path
    return None


_NAMED = re.compile(r"[\w./-]+\.py\b")


def _used_by(path: Path, root: Path) -> tuple[set[Path], set[str]]:
    """The files of the modules ``path`` imports (``from p import m`` may name module ``p.m``)
    and the files its code names in strings, docstrings aside (one a test reads or runs: a bare
    file name, or a path from the checkout's root)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(root).parent.parts)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            names |= {base} | {f"{base}.{a.name}" for a in node.names}
    files = {f for n in names if (f := _module_file(n, root)) is not None}
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(n)}  # fmt: skip
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
               and isinstance(n.value, str) and id(n) not in docs]  # fmt: skip
    return files, {m for s in strings for m in _NAMED.findall(s)}


def _unused(tests: Path) -> list[str]:
    """The ``.py`` files under ``tests`` that are neither tests (nor their scaffolding) nor
    imported by a test, directly or through another module, nor named by a test or by the
    tests' data (a dump's locations name the kernel file it was compiled from)."""
    root = tests.parent
    every = sorted(p for p in tests.rglob("*.py") if "__pycache__" not in p.parts)
    todo = [p for p in every if p.name.startswith("test_") or p.name in ALWAYS]
    seen, named = set(todo), set()
    while todo:
        files, names = _used_by(todo.pop(), root)
        named |= names
        todo += sorted(files - seen)
        seen |= files
    for data in (p for p in tests.rglob("*") if p.is_file() and p.suffix in (".ttgir", ".json")):
        named |= set(_NAMED.findall(data.read_text()))
    return [rel for p in every if p not in seen and p.name not in named
            and (rel := p.relative_to(root).as_posix()) not in named]  # fmt: skip


def test_tests_hold_no_tool() -> None:
    """Every Python file under tests/ is a test, a conftest, a package's ``__init__``,
    ``paths.py``, or a module a test uses (kernels, case builders, the GPU harness; or a file a
    test reads or runs by name, as the golden renderings). What regenerates the tests' data or
    runs apart from them (compiling a corpus, capturing on a GPU, judging, reporting) is a tool:
    it belongs in tools/."""
    assert _unused(TESTS) == []


def test_the_tool_finder_finds_one(tmp_path: Path) -> None:
    # Module names without their suffix: the finder reads this file's strings too.
    files = {
        "__init__": "",
        "plan/__init__": "",
        "plan/cases/__init__": "",
        "plan/test_a": "from tests.plan.cases import kernels\n",
        "plan/cases/kernels": "from .shared import X\n",
        "plan/cases/shared": "X = 1\n",
        "plan/cases/make_dumps": "from . import kernels\n",  # a tool
        "plan/cases/dumped": "",  # the source a dump names: data
    }
    tests = tmp_path / "tests"
    for name, text in files.items():
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).with_suffix(".py").write_text(text)
    (tests / "plan" / "cases" / "d.ttgir").write_text(
        'loc("tests/plan/cases/dumped.PY":3:1)\n'.replace("PY", "py")
    )
    assert _unused(tests) == ["tests/plan/cases/make_dumps.py"]
