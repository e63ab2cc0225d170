"""Build the Triton lit corpus: split a lit file into one module per function, and store what a
release's allocator printed for each (for releases the test cannot run).

    python -m tools.plan.triton_lit.make_lit split LIT.mlir --source "REPO FILE COMMIT" --out DIR
        [--only F,G] [--verdict no-false-alarm]
    python -m tools.plan.triton_lit.make_lit allocate DIR --python VENV/bin/python
    python -m tools.plan.triton_lit.make_lit offsets DIR [--python VENV/bin/python]

``split`` writes DIR/<function>.ttgir: a header naming the source, the expectations taken from
the function's CHECK lines (or expected-remark annotations), then a module with the lit
module's attributes, the ``#alias`` definitions the function needs (from the function's own
``// -----`` section), the function, and the functions it calls. The adaptations of
``tests/plan/cases/triton_lit/README.md`` are applied (``"use"`` ops, the view ops renamed in
3.5, ``ttg.barrier local``).
``allocate`` writes DIR/<function>.<version>.alloc.json with the module after allocation, the
allocator's debug text and the release's version, allocated as Triton's test pass does (no
pass before it). ``offsets`` writes what the release itself printed for the function: each
buffer as offset:size (``// ALLOCATOR-BUFFERS <version>: ...``), for a file whose lit source
states no offsets also the ``allocation.offset`` values printed into the function
(``// ALLOCATOR-OFFSETS <version>: ...``), or the one-line reason the release could not
allocate it (``// ALLOCATOR-FAILS <version>: ...``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_ALIAS_DEF = re.compile(r"^(#\w+)\s*=\s*(.*)$")
_ALIAS_USE = re.compile(r"#[A-Za-z_]\w*")
_MODULE = re.compile(r"^module\s+attributes\s*(\{.*\})\s*\{\s*$")
_FUNC = re.compile(r"^(\s*)(?:tt\.func|func\.func)\b[^@]*@([\w.$-]+)")
_SECTION = re.compile(r"^//\s*-----\s*$")
_OFFSET = re.compile(r"allocation\.offset = (\d+) : i32")
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
# Triton's own test pass allocates the module as parsed: no pass runs before the allocation
# (the backend's warp-group pass would add partitions, its inliner delete unused buffers).
PREPASSES = "none"
ROW_SUFFIX = "_lit_row"


def _rank(shape_and_type: str) -> int:
    return shape_and_type.count("x")


def adapt(
    line: str, counter: list[int], retyped: dict[str, tuple[str, str]] | None = None
) -> tuple[str, bool]:
    """A lit line in a form the release reads (README.md); True when a use op was added.
    ``retyped`` (value -> (old type, new type)) collects the views whose type the rewrite
    changed, so that the lines using them are rewritten too."""
    retyped = {} if retyped is None else retyped
    for value, (old, new_type) in retyped.items():
        if re.search(re.escape(value) + r"(?![\w.])", line):
            line = line.replace(old, new_type)
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
            layout = re.search(r", (#\w+),", dst)
            if _rank(dst_shape) == 1 and _rank(src_shape) == 2 and layout:
                # A row of a 2-D buffer: 3.6 wants a rank-1 shared layout on a rank-1 view.
                dst = dst.replace(layout.group(1), layout.group(1) + ROW_SUFFIX)
            new = f"ttg.memdesc_index {value}[{indices[0]}] : {src} -> {dst}"
        else:
            # 3.9 wants a subslice's type to name the allocation's shape (3.6 accepts it).
            zeros = ", ".join("0" for _ in indices)
            alloc_shape = src_shape.rsplit("x", 1)[0]
            sliced = dst[:-1] + f", {alloc_shape}>"
            result = re.match(r"\s*(%[\w.]+)\s*=", line)
            if result:
                retyped[result.group(1)] = (dst, sliced)
            new = f"ttg.memdesc_subslice {value} [{zeros}] : {src} -> {sliced}"
        return line[: s.start()] + new + line[s.end() :], False
    # 3.6 has no ttg.barrier; gpu.barrier (read by 3.6 to 3.9) is the same CTA barrier, and
    # barriers take no shared memory.
    if line.strip() == "ttg.barrier local":
        return line.replace("ttg.barrier local", "gpu.barrier"), False
    return line, False


def _functions(lines: list[str]) -> list[tuple[str, str, int, int, int]]:
    """(name, module attributes, first line, last line, section) of every function, in file
    order. A function ends at the first ``}`` indented as its ``tt.func`` line; a section is
    a ``// -----`` part of the lit file (its own aliases, its own modules)."""
    out = []
    attrs, section = "{}", 0
    i = 0
    while i < len(lines):
        if _SECTION.match(lines[i]):
            attrs, section = "{}", section + 1
        mod = _MODULE.match(lines[i])
        if mod:
            attrs = mod.group(1)
        fn = _FUNC.match(lines[i])
        if fn:
            end = i
            while end < len(lines) and lines[end].rstrip() != fn.group(1) + "}":
                end += 1
            out.append((fn.group(2), attrs, i, end, section))
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


def split(
    lit: Path, source: str, out_dir: Path, only: set[str] | None = None, verdict: str = "clean"
) -> int:
    lines = lit.read_text().splitlines()
    section_aliases: list[dict[str, str]] = [{}]
    for line in lines:
        if _SECTION.match(line):
            section_aliases.append({})
        m = _ALIAS_DEF.match(line)
        if m:
            section_aliases[-1][m.group(1)] = line
    funcs = _functions(lines)
    by_name = {f[0]: f for f in funcs}
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, attrs, first, last, section in funcs:
        if only is not None and name not in only:
            continue
        aliases = section_aliases[section]
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
        retyped: dict[str, tuple[str, str]] = {}
        text_fns = []
        for fname in [*reversed(callees), name]:
            f = by_name[fname]
            kept = []
            for ln in lines[f[2] : f[3] + 1]:
                if _COMMENT.match(ln):
                    continue
                new, u = adapt(ln, counter, retyped)
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
        for a in sorted(set(_ALIAS_USE.findall(fn_text))):
            base = a[: -len(ROW_SUFFIX)]
            if a.endswith(ROW_SUFFIX) and base in aliases:
                row = re.sub(r"order = \[[^\]]*\]", "order = [0]", aliases[base])
                defs.append(row.replace(base, a, 1))
        if used:
            warps = re.search(r'"ttg\.num-warps"\s*=\s*(\d+)', attrs)
            defs.append(
                f"{USE_LAYOUT} = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = "
                f"[32], warpsPerCTA = [{warps.group(1) if warps else 4}], order = [0]}}>"
            )
        header = [f"// Source: {source} (MIT license), function @{name}; split out, adapted as "
                  "README.md says.", f"// EXPECT: {verdict}", *expect]  # fmt: skip
        if attrs == "{}":
            # A lit section with no module: Triton's allocator needs the warp count, which
            # the lit file leaves to the pass; 4, as the section's partitions assume.
            attrs = '{"ttg.num-warps" = 4 : i32}'
        text = "\n".join([*header, *defs, f"module attributes {attrs} {{", fn_text, "}", ""])
        (out_dir / f"{name}.ttgir").write_text(text)
    return 0


def allocate_dir(out_dir: Path, python: str) -> int:
    from alias_spec.plan.runner import AllocationError, allocate

    for path in sorted(out_dir.glob("*.ttgir")):
        try:
            done = allocate(path.read_text(), python, prepasses=PREPASSES)
        except AllocationError as exc:
            print(f"{path.name}: {exc}", file=sys.stderr)
            continue
        record = {"module": done.module, "debug": clean_debug(done.debug), "version": done.version}
        stored = path.with_name(f"{path.stem}.{done.version}.alloc.json")
        stored.write_text(json.dumps(record, indent=1) + "\n")
    return 0


def clean_debug(debug: str) -> str:
    """The allocator's debug text without the Python warnings the release printed around it
    (they quote the machine's paths and say nothing about the allocation)."""
    out, skip = [], False
    for line in debug.splitlines(keepends=True):
        if re.match(r"^\S+\.py:\d+: \w*Warning:", line):
            skip = True
            continue
        if skip and line.startswith("  "):
            continue
        skip = False
        out.append(line)
    return "".join(out)


def function_offsets(module: str, name: str) -> list[int]:
    """The allocation.offset values the allocator printed inside function @name (its own ops
    and the tt.func line; not its callees, which are functions of their own)."""
    lines = module.splitlines()
    for i, line in enumerate(lines):
        fn = _FUNC.match(line)
        if fn and fn.group(2) == name:
            end = i
            while end < len(lines) and lines[end].rstrip() != fn.group(1) + "}":
                end += 1
            return sorted(int(o) for ln in lines[i : end + 1] for o in _OFFSET.findall(ln))
    return []


def root_buffers(debug: str) -> list[tuple[int, int]]:
    """(offset, size) of every buffer in the allocator's last function block: the file's own
    function, which calls all the others (the allocator finishes callees before callers). The
    last range table of the block is the final one; a range without a value line is the
    function's own warp-specialize state."""
    blocks = re.split(r"^Allocated: \d+.*$", debug, flags=re.M)
    done = [b for b in blocks[:-1] if b.strip()]
    if not done:
        return []
    tables = re.split(r"^.*Dump bufferRange.*$", done[-1], flags=re.M)
    rows = re.findall(r"^-- (\d+) (\d+) (\d+) interval", tables[-1], flags=re.M)
    return sorted((int(offset), int(size)) for _, size, offset in rows)


def record_offsets(out_dir: Path, python: str | None) -> int:
    """Write into each file what the release printed: every buffer of the function as
    offset:size (``ALLOCATOR-BUFFERS``, from the allocator's debug text), and, for a file that
    states no EXPECT-BUFFER line, the offsets printed into the module (``ALLOCATOR-OFFSETS``);
    or why the release cannot allocate it (``ALLOCATOR-FAILS``)."""
    from alias_spec.plan.runner import AllocationError, allocate

    for path in sorted(out_dir.glob("*.ttgir")):
        text = path.read_text()
        try:
            done = allocate(text, python, prepasses=PREPASSES)
            version = done.version
            offsets = function_offsets(done.module, path.stem)
            buffers = root_buffers(done.debug)
            if sorted(o for o, _ in buffers) != offsets:
                print(f"{path.name}: the debug text's last block is not @{path.stem}'s",
                      file=sys.stderr)  # fmt: skip
                return 1
            lines = [f"// ALLOCATOR-BUFFERS {version}: "
                     + " ".join(f"{o}:{n}" for o, n in buffers)]  # fmt: skip
            if "// EXPECT-BUFFER:" not in text:
                lines.append(f"// ALLOCATOR-OFFSETS {version}: " + " ".join(map(str, offsets)))
        except AllocationError as exc:
            version = _version(python)
            lines = [f"// ALLOCATOR-FAILS {version}: {exc}"]
        kept = [ln for ln in text.splitlines() if not re.match(rf"// ALLOCATOR-\w+ {version}:", ln)]
        at = next(i for i, ln in enumerate(kept) if not ln.startswith("//"))
        path.write_text("\n".join([*kept[:at], *(ln.rstrip() for ln in lines), *kept[at:]]) + "\n")
    return 0


def _version(python: str | None) -> str:
    import subprocess

    cmd = [python or sys.executable, "-c", "import triton; print(triton.__version__)"]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("lit", type=Path)
    s.add_argument("--source", required=True, help='"REPO FILE at commit COMMIT"')
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--only", help="comma-separated function names (default: all)")
    s.add_argument("--verdict", default="clean", choices=["clean", "no-false-alarm"])
    a = sub.add_parser("allocate")
    a.add_argument("dir", type=Path)
    a.add_argument("--python", required=True)
    o = sub.add_parser("offsets")
    o.add_argument("dir", type=Path)
    o.add_argument("--python")
    args = ap.parse_args(argv)
    if args.cmd == "split":
        only = set(args.only.split(",")) if args.only else None
        return split(args.lit, args.source, args.out, only, args.verdict)
    if args.cmd == "offsets":
        return record_offsets(args.dir, args.python)
    return allocate_dir(args.dir, args.python)


if __name__ == "__main__":
    sys.exit(main())
