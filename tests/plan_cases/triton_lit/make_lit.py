"""Build the Triton lit corpus: split a lit file into one module per function, and store what a
release's allocator printed for each (for releases the test cannot run).

    python make_lit.py split LIT.mlir --source "REPO FILE COMMIT" --out DIR
    python make_lit.py allocate DIR --python VENV/bin/python

``split`` writes DIR/<function>.ttgir: a header naming the source, the expectations taken from
the function's CHECK lines (or expected-remark annotations), then a module with the lit
module's attributes, the ``#alias`` definitions the function needs, the function, and the
functions it calls. The adaptations of README.md are applied (``"use"`` ops, the view ops
renamed in 3.5). ``allocate`` writes DIR/<function>.alloc.json with the module after
allocation, the allocator's debug text and the release's version, allocated as written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_ALIAS_DEF = re.compile(r"^(#\w+)\s*=\s*(.*)$")
_ALIAS_USE = re.compile(r"#[A-Za-z_]\w*")
_MODULE = re.compile(r"^module\s+attributes\s*(\{.*\})\s*\{\s*$")
_FUNC = re.compile(r"^(?:tt\.func|func\.func)\b[^@]*@([\w.$-]+)")
_CALL = re.compile(r"\btt\.call\s+@([\w.$-]+)")
_CHECK = re.compile(
    r"//\s*CHECK(?:-NEXT)?:\s*(scratch |virtual )?(?:offset = (\d+), )?size = (\d+)"
)
_REMARK = re.compile(r"//\s*expected-remark @below \{\{(scratch |virtual )?(?:offset = (\d+), )?"
                     r"size = (\d+)\}\}")  # fmt: skip
_COMMENT = re.compile(r"^\s*//")
# "use"(%x) : (T) -> (): an unregistered op Triton's test pass sees as a use of %x.
_USE = re.compile(r'^(\s*)"use"\((%[\w.]+)\)\s*:\s*\((!ttg\.memdesc<([^,>]+?)x?(\w+)?,[^)]*>)\)'
                  r"\s*->\s*\(\)\s*$")  # fmt: skip
_SUBVIEW = re.compile(r"ttg\.memdesc_subview (%[\w.]+)\[([^\]]*)\] : (!ttg\.memdesc<([^,]+),[^>]*>)"
                      r" -> (!ttg\.memdesc<([^,]+),[^>]*>)")  # fmt: skip
USE_LAYOUT = "#lit_use"


def _rank(shape_and_type: str) -> int:
    return shape_and_type.count("x")


def adapt(line: str, counter: list[int]) -> tuple[str, bool]:
    """A lit line in a form the release reads (README.md); True when a use op was added."""
    m = _USE.match(line)
    if m:
        indent, value, mtype = m.group(1), m.group(2), m.group(3)
        shape = mtype[len("!ttg.memdesc<") :].split(",")[0]
        counter[0] += 1
        tensor = f"tensor<{shape}, {USE_LAYOUT}>"
        return f"{indent}%lit_use{counter[0]} = ttg.local_load {value} : {mtype} -> {tensor}", True
    s = _SUBVIEW.search(line)
    if s:
        value, idx, src, src_shape, dst, dst_shape = s.groups()
        indices = [i.strip() for i in idx.split(",")]
        if _rank(dst_shape) == _rank(src_shape) - 1:
            new = f"ttg.memdesc_index {value}[{indices[0]}] : {src} -> {dst}"
        else:
            zeros = ", ".join("0" for _ in indices)
            new = f"ttg.memdesc_subslice {value} [{zeros}] : {src} -> {dst}"
        return line[: s.start()] + new + line[s.end() :], False
    return line, False


def _functions(lines: list[str]) -> list[tuple[str, str, int, int]]:
    """(name, module attributes, first line, last line) of every function, in file order."""
    out = []
    attrs = "{}"
    i = 0
    while i < len(lines):
        mod = _MODULE.match(lines[i])
        if mod:
            attrs = mod.group(1)
        fn = _FUNC.match(lines[i])
        if fn:
            end = i
            while end < len(lines) and lines[end].rstrip() != "}":
                end += 1
            out.append((fn.group(1), attrs, i, end))
            i = end
        i += 1
    return out


def _expectations(body: list[str]) -> list[str]:
    out = []
    for line in body:
        m = _CHECK.search(line) or _REMARK.search(line)
        if not m:
            continue
        kind = {"scratch ": "scratch", "virtual ": "frame", None: "alloc"}[m.group(1)]
        if m.group(2) is None:
            out.append(f"// EXPECT-SIZE: {m.group(3)}")
        else:
            out.append(f"// EXPECT-BUFFER: {kind} offset={m.group(2)} size={m.group(3)}")
    return out


def split(lit: Path, source: str, out_dir: Path) -> int:
    lines = lit.read_text().splitlines()
    aliases = {}
    for line in lines:
        m = _ALIAS_DEF.match(line)
        if m:
            aliases[m.group(1)] = line
    funcs = _functions(lines)
    by_name = {f[0]: f for f in funcs}
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, attrs, first, last in funcs:
        # Expectations: the remarks above the function, then the CHECK lines inside it.
        above = []
        j = first - 1
        while j >= 0 and _COMMENT.match(lines[j]):
            above.insert(0, lines[j])
            j -= 1
        body = lines[first : last + 1]
        expect = _expectations([ln for ln in above if "expected-remark" in ln] + body)
        callees: list[str] = []
        todo, seen = [name], {name}
        while todo:
            cur = by_name[todo.pop()]
            for callee in _CALL.findall("\n".join(lines[cur[2] : cur[3] + 1])):
                if callee in by_name and callee not in seen:
                    seen.add(callee)
                    callees.append(callee)
                    todo.append(callee)
        counter, used = [0], False
        text_fns = []
        for fname in [*reversed(callees), name]:
            f = by_name[fname]
            kept = []
            for ln in lines[f[2] : f[3] + 1]:
                if _COMMENT.match(ln):
                    continue
                new, u = adapt(ln, counter)
                used = used or u
                kept.append(new)
            text_fns.append("\n".join(kept))
        fn_text = "\n\n".join(text_fns)
        needed, todo_a = set(), _ALIAS_USE.findall(fn_text)
        while todo_a:
            a = todo_a.pop()
            if a in needed or a not in aliases:
                continue
            needed.add(a)
            todo_a.extend(_ALIAS_USE.findall(aliases[a].split("=", 1)[1]))
        defs = [aliases[a] for a in aliases if a in needed]
        if used:
            warps = re.search(r'"ttg\.num-warps"\s*=\s*(\d+)', attrs)
            defs.append(
                f"{USE_LAYOUT} = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = "
                f"[32], warpsPerCTA = [{warps.group(1) if warps else 4}], order = [0]}}>"
            )
        header = [f"// Source: {source} (MIT license), function @{name}; split out, adapted as "
                  "README.md says.", "// EXPECT: clean", *expect]  # fmt: skip
        text = "\n".join([*header, *defs, f"module attributes {attrs} {{", fn_text, "}", ""])
        (out_dir / f"{name}.ttgir").write_text(text)
    return 0


def allocate_dir(out_dir: Path, python: str) -> int:
    sys.path.insert(0, str(ROOT))
    from alias_spec.plan.runner import AllocationError, allocate

    for path in sorted(out_dir.glob("*.ttgir")):
        try:
            done = allocate(path.read_text(), python, prepasses="as_written")
        except AllocationError as exc:
            print(f"{path.name}: {exc}", file=sys.stderr)
            continue
        record = {"module": done.module, "debug": done.debug, "version": done.version}
        path.with_suffix(".alloc.json").write_text(json.dumps(record, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("lit", type=Path)
    s.add_argument("--source", required=True, help='"REPO FILE at commit COMMIT"')
    s.add_argument("--out", type=Path, required=True)
    a = sub.add_parser("allocate")
    a.add_argument("dir", type=Path)
    a.add_argument("--python", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "split":
        return split(args.lit, args.source, args.out)
    return allocate_dir(args.dir, args.python)


if __name__ == "__main__":
    sys.exit(main())
