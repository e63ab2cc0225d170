"""Seeded plan bugs on the clean corpus dumps: every one must be caught by ``alias-spec plan``.

Three operators, each the shape of a real bug:

* ``moved``: an ``allocation.offset`` moved onto a neighbour the release's own allocator held
  live at the same time (its debug output gives each buffer's live interval): two buffers that
  were disjoint now share bytes.
* ``cut``: a live range cut short the way FlagTree's bugs cut it (an alias analysis that does not
  follow a view or pointer): a new buffer is placed over a root right after the root's last
  direct use, while the root is still used through a derived value (a view, an alias, a
  pointer). An allocator that ends the root at its last direct use would do exactly this.
* ``frame``: the callee's frame base dropped in its LLVM IR (the 3.9 fix of the call-frame bug
  undone): its scratch is addressed from the shared base, not from its frame.

``python -m tests.plan.cases.mutants [DIR]`` prints the score over the committed corpus.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.paths import PLAN_CASES

HERE = PLAN_CASES
CORPUS = HERE / "corpus"
MAX_PER_KERNEL = 4  # mutants of one operator per kernel: enough variety, a quick test
_DEBUG_BUFFER = re.compile(
    r"^-- buffer (\d+); value: (?:%[\w#:.$-]+(?:, %[\w#:.$-]+)* = )?\"?([\w.]+)"
)
_DEBUG_RANGE = re.compile(r"^-- (\d+) (\d+) (\d+) interval (\d+) (\d+)")
_FRAME_BASE = re.compile(r"getelementptr \(i8, ptr addrspace\(3\) @global_smem, i32 (\d+)\)")


@dataclass
class Mutant:
    kernel: str
    release: str
    operator: str
    what: str
    ttgir: str
    alloc: tuple[str, str, str]
    llir: str | None = None  # only the frame operator needs the lowering


def load(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def records(root: Path = CORPUS) -> Iterator[tuple[str, dict[str, Any]]]:
    """The corpus records that compiled and are proved clean in the committed results."""
    results = json.loads((HERE / "corpus_results.snapshot.json").read_text())
    for release, doc in results["releases"].items():
        for row in doc["kernels"]:
            if row["status"] == "clean":
                yield release, load(root / release / f"{row['name']}.json.gz")


def _debug_blocks(debug: str) -> list[list[tuple[int, str, int, int, int, int]]]:
    """Per allocated function: (id, op name, size, offset, live from, live to) per buffer."""
    blocks, names, rows = [], {}, []
    for line in debug.splitlines():
        b = _DEBUG_BUFFER.match(line)
        if b:
            if int(b.group(1)) == 0 and rows:
                blocks.append(rows)
                names, rows = {}, []
            names[int(b.group(1))] = b.group(2)
            continue
        r = _DEBUG_RANGE.match(line)
        if r:
            i, size, off, lo, hi = (int(x) for x in r.groups())
            rows.append((i, names.get(i, "?"), size, off, lo, hi))
        if line.startswith("Allocated:") and rows:
            blocks.append(rows)
            names, rows = {}, []
    if rows:
        blocks.append(rows)
    return blocks


def _set_offset(module: str, name: str, old: int, new: int, nth: int) -> str | None:
    """The module with the ``nth`` op named ``name`` that carries ``allocation.offset = old``
    moved to ``new``."""
    pat = re.compile(rf"allocation\.offset = {old} : i32")
    seen = 0
    lines = module.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if name not in line and "}) {" not in line and "} {" not in line:
            continue
        if pat.search(line) and (name in line or _closes(lines, i, name)):
            if seen == nth:
                lines[i] = pat.sub(f"allocation.offset = {new} : i32", line, count=1)
                return "".join(lines)
            seen += 1
    return None


def _closes(lines: list[str], i: int, name: str) -> bool:
    """Whether line i closes the region of an op called ``name`` (its attributes follow)."""
    depth = 0
    for j in range(i, -1, -1):
        depth += lines[j].count("}") - lines[j].count("{")
        if depth <= 0 and j < i:
            return f'"{name}"' in lines[j] or f" {name}" in lines[j]
    return False


def moved(release: str, rec: dict[str, Any]) -> Iterator[Mutant]:
    module, debug, version = rec["alloc"]["module"], rec["alloc"]["debug"], rec["alloc"]["version"]
    count = 0
    for block in _debug_blocks(debug):
        for a in block:
            for b in block:
                if count >= MAX_PER_KERNEL or a is b or a[2] == 0 or b[2] == 0:
                    continue
                live_together = a[4] < b[5] and b[4] < a[5]
                disjoint = a[3] + a[2] <= b[3] or b[3] + b[2] <= a[3]
                if not (live_together and disjoint):
                    continue
                nth = sum(1 for x in block if x[1] == a[1] and x[3] == a[3] and x[0] < a[0])
                text = _set_offset(module, a[1], a[3], b[3], nth)
                if text is None:
                    continue
                # The allocator may print its table more than once: change every copy.
                dbg = re.sub(rf"^-- {a[0]} {a[2]} {a[3]} interval {a[4]} {a[5]}$",
                             f"-- {a[0]} {a[2]} {b[3]} interval {a[4]} {a[5]}", debug,
                             flags=re.M)  # fmt: skip
                count += 1
                yield Mutant(rec["name"], release, "moved",
                             f"{a[1]} #{a[0]} moved from {a[3]} onto {b[1]} #{b[0]} at {b[3]}",
                             text, (text, dbg, version))  # fmt: skip


def cut(release: str, rec: dict[str, Any]) -> Iterator[Mutant]:
    """A buffer placed over a root between its last direct use and its last use through a
    derived value."""
    from alias_spec.ir.ttgir import read_module
    from alias_spec.plan.liveness import live_ranges

    module, debug, version = rec["alloc"]["module"], rec["alloc"]["debug"], rec["alloc"]["version"]
    mod = read_module(module)
    lines = module.splitlines(keepends=True)
    count = 0
    for fn in mod.functions:
        allocs = [op for op in fn.ops if op.name == "ttg.local_alloc" and op.results
                  and "allocation.offset" in op.attrs]  # fmt: skip
        if not allocs:
            continue
        ranges = live_ranges(fn, {op.results[0] for op in allocs})
        for op in allocs:
            root = op.results[0]
            direct = [o for o in fn.ops if root in o.uses]
            if not direct or count >= MAX_PER_KERNEL:
                continue
            last = max(direct, key=lambda o: o.pos)
            if last.end != last.pos or ranges[root][1] <= last.pos:
                continue  # no use through a derived value after the last direct one
            if any(o.name in ("scf.yield", "cf.br", "cf.cond_br") for o in direct):
                continue  # carried on by a loop or branch: no single last direct use
            off = op.attrs["allocation.offset"]
            indent = re.match(r"\s*", lines[last.line - 1]).group(0)  # type: ignore[union-attr]
            new = (f"{indent}%mutant_{count} = ttg.local_alloc {{allocation.offset = {off} : i32,"
                   " allocation.size = 16 : i32} : () -> !ttg.memdesc<4xf32, "
                   "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, "
                   "#ttg.shared_memory, mutable>\n")  # fmt: skip
            text = "".join(lines[: last.line] + [new] + lines[last.line :])
            count += 1
            yield Mutant(rec["name"], release, "cut",
                         f"a 16-byte buffer over {root} at {off} after its last direct use "
                         f"(line {last.line}), before its last use through a view "
                         f"(position {ranges[root][1]})", text, (text, debug, version))  # fmt: skip


def frame(release: str, rec: dict[str, Any]) -> Iterator[Mutant]:
    """The frame base of each non-inlined callee dropped from its LLVM IR."""
    llir = rec["llir"]
    kernel = re.search(r"^define ptx_kernel [^@]*@([\w.$-]+)", llir, re.M)
    for m in re.finditer(r"^define (?!ptx_kernel)[^@]*@(\"[^\"]+\"|[\w.$-]+)\(.*?^\}", llir,
                         re.M | re.S):  # fmt: skip
        body = m.group(0)
        bases = {int(x) for x in _FRAME_BASE.findall(body) if int(x) > 0}
        if not bases or kernel is None:
            continue
        base = min(bases)
        dropped = body.replace(
            f"getelementptr (i8, ptr addrspace(3) @global_smem, i32 {base})", "@global_smem"
        )
        text = llir[: m.start()] + dropped + llir[m.end() :]
        a = rec["alloc"]
        yield Mutant(rec["name"], release, "frame",
                     f"frame base {base} dropped in @{m.group(1).strip(chr(34))}",
                     rec["ttgir"], (a["module"], a["debug"], a["version"]), text)  # fmt: skip


def mutants(root: Path = CORPUS) -> list[Mutant]:
    out: list[Mutant] = []
    seen: set[tuple[str, str, str, str]] = set()
    for release, rec in records(root):
        for op in (moved, cut, frame):
            for m in op(release, rec):
                key = (m.release, m.kernel, m.operator, m.what)
                if key not in seen:
                    seen.add(key)
                    out.append(m)
    return out


def caught(m: Mutant) -> bool:
    """Whether ``alias-spec plan`` reports a finding on the mutant."""
    from alias_spec.plan.api import check_texts

    report = check_texts(m.ttgir, m.llir, f"{m.kernel}.ttgir", allocated=m.alloc)
    rule = "lowering.outside" if m.operator == "frame" else "plan."
    return any(f.rule.startswith(rule) for f in report.findings)


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else CORPUS
    ms = mutants(root)
    missed = [m for m in ms if not caught(m)]
    by_op: dict[str, list[int]] = {}
    for m in ms:
        by_op.setdefault(m.operator, [0, 0])[0] += 1
    for m in missed:
        by_op[m.operator][1] += 1
        print(f"missed: {m.release} {m.kernel} {m.operator}: {m.what}")
    for op, (n, miss) in sorted(by_op.items()):
        print(f"{op}: {n - miss}/{n} caught")
    total = len(ms)
    print(f"mutation score: {total - len(missed)}/{total}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
