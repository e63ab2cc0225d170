"""What aliasing the epilogue tile onto the mainloop ring costs in code, read from the compiled
kernel (SASS, and PTX as a second view), without a GPU.

    python -m benchmarks.bench_reuse_code [--out FILE.json] [--stages 2 3 4]

For every pipeline depth and every way of getting shared memory (``reuse_matmul``: planned
alias, three allocations up front, C allocated late), the kernel is compiled for sm_90 on the
CPU; its cubin is disassembled with the cuobjdump Triton bundles (nvdisasm if that is missing).
Instructions are reduced to opcodes (mnemonic and modifiers; no predicates, operands, NOPs or
labels), counted, and the planned kernel's histogram is compared with the upfront and late
kernels' at the same depth. Every opcode that differs is classed as address arithmetic /
constant materialisation (the explicit lists below) or other: an aliased view should cost
nothing but the address it folds in, so "other" should stay empty.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from benchmarks import scratch

DEFAULT_STAGES = (2, 3, 4)
ADDRESS = "address arithmetic / constant materialisation"
OTHER = "other"

# SASS opcodes, by base mnemonic (the part before the first dot: IMAD.MOV.U32 -> IMAD), that
# only compute integers or move values: what a different buffer offset can change. Integer
# add/multiply-add/shift/logic/LEA in the vector and uniform datapaths, moves, and the special
# register reads and register-to-uniform moves that bring the shared window's base into an
# address. Deliberately absent: loads (LDC/ULDC included), stores, compares, selects, branches,
# barriers, MMA and conversions; if one of those differs it is reported as "other".
SASS_ADDRESS = frozenset(
    {
        # vector integer arithmetic and logic
        "IADD", "IADD3", "IADD32I", "VIADD", "IMAD", "ISCADD", "LEA", "LOP", "LOP3", "LOP32I",
        "SHF", "SHL", "SHR",
        # uniform-datapath counterparts
        "UIADD3", "UIMAD", "ULEA", "ULOP", "ULOP3", "ULOP32I", "USHF", "USHL", "USHR",
        # moves and constant materialisation (CS2R Rx, SRZ zeroes a register pair)
        "MOV", "MOV32I", "UMOV", "CS2R",
        # special-register reads (shared window base, CTA id) and vector -> uniform moves
        "S2R", "S2UR", "R2UR",
    }
)  # fmt: skip

# PTX mnemonics (the part before the first dot) for the same work. add/sub/mul/mad count only
# with an integer type suffix (add.f32 is floating-point work, so "other").
PTX_INTEGER_ONLY = frozenset({"add", "sub", "mul", "mad"})
PTX_ADDRESS = PTX_INTEGER_ONLY | frozenset(
    {"shl", "shr", "and", "or", "xor", "not", "bfe", "bfi", "mov", "cvta"}
)
_PTX_INT_TYPE = re.compile(r"\.(?:[sub](?:16|32|64)|lo|hi|wide)\b")

# A SASS instruction line, in cuobjdump's and nvdisasm's layout: "/*0a40*/  @!UP1 OPCODE ...".
_SASS_LINE = re.compile(
    r"/\*[0-9a-fA-F]{4,}\*/\s+\{?\s*(?:@!?U?P(?:[0-9]|T)\s+)?"
    r"(?P<op>[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)(?=[\s;])"
)
_SASS_SKIP = frozenset({"NOP"})
# PTX: labels at the start of a statement, and a guard predicate (@%p3, @!complete).
_PTX_LABEL = re.compile(r"^[$\w]+:(?!:)\s*")
_PTX_GUARD = re.compile(r"^@!?%?\w+\s+")
_PTX_OP = re.compile(r"^[a-z][\w.:]*")


def sass_opcodes(text: str) -> list[str]:
    """The opcodes of a SASS listing, in order: the mnemonic with its modifiers, no predicate,
    no operands; NOPs (alignment padding) and labels dropped."""
    ops = []
    for line in text.splitlines():
        m = _SASS_LINE.search(line)
        if m and m.group("op") not in _SASS_SKIP:
            ops.append(m.group("op"))
    return ops


def ptx_opcodes(text: str) -> list[str]:
    """The instruction mnemonics of a PTX listing (with their dotted suffixes), in order.

    Comments, directives (.loc, .reg, .param, debug sections), labels, braces and guard
    predicates are dropped; statements end with ';', and a line may hold several. A statement
    continued on the next line counts once: its continuation starts with an operand."""
    ops = []
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        for stmt in line.split(";"):
            stmt = stmt.strip().lstrip("{}() \t")
            while m := _PTX_LABEL.match(stmt):
                stmt = stmt[m.end() :]
            if not stmt or stmt.startswith("."):
                continue
            stmt = _PTX_GUARD.sub("", stmt)
            m = _PTX_OP.match(stmt)
            if m:
                ops.append(m.group(0))
    return ops


def histogram(ops: Iterable[str]) -> dict[str, int]:
    """Opcode -> count, sorted by opcode for stable JSON."""
    return dict(sorted(Counter(ops).items()))


def hist_diff(new: Mapping[str, int], base: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """What ``new`` has more of than ``base`` (added) and less of (removed), by opcode."""
    added, removed = {}, {}
    for op in sorted(set(new) | set(base)):
        d = new.get(op, 0) - base.get(op, 0)
        if d > 0:
            added[op] = d
        elif d < 0:
            removed[op] = -d
    return {"added": added, "removed": removed}


def classify_sass(op: str) -> str:
    """ADDRESS for integer/move/special-register opcodes (``SASS_ADDRESS``), else OTHER."""
    return ADDRESS if op.split(".", 1)[0] in SASS_ADDRESS else OTHER


def classify_ptx(op: str) -> str:
    """ADDRESS for integer arithmetic, logic and moves (``PTX_ADDRESS``), else OTHER."""
    base = op.split(".", 1)[0]
    if base not in PTX_ADDRESS:
        return OTHER
    if base in PTX_INTEGER_ONLY and not _PTX_INT_TYPE.search(op):
        return OTHER
    return ADDRESS


def summarise_diff(
    new: Mapping[str, int], base: Mapping[str, int], classify: Any
) -> dict[str, Any]:
    """The diff of two histograms, its net count, and the differing opcodes classed OTHER."""
    d: dict[str, Any] = hist_diff(new, base)
    changed = sorted(set(d["added"]) | set(d["removed"]))
    d["net"] = sum(d["added"].values()) - sum(d["removed"].values())
    d["other"] = [op for op in changed if classify(op) == OTHER]
    return d


def find_disassembler() -> tuple[str, str] | None:
    """("cuobjdump" | "nvdisasm", path) of the tool Triton ships, or one on PATH; None if
    neither is there."""
    try:
        from triton import knobs
    except ImportError:
        knobs = None
    for name in ("cuobjdump", "nvdisasm"):
        if knobs is not None:
            try:
                return name, getattr(knobs.nvidia, name).path
            except (AttributeError, RuntimeError):
                pass  # Triton raises when its bundled binary does not run
        path = shutil.which(name)
        if path:
            return name, path
    return None


def disassemble(cubin: bytes, tool: tuple[str, str]) -> str:
    """SASS text of a cubin (the tools read files, not stdin)."""
    name, path = tool
    fd, tmp = tempfile.mkstemp(suffix=".cubin")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        args = [path, "-sass", tmp] if name == "cuobjdump" else [path, tmp]
        return subprocess.run(args, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(tmp)


def registers(cubin: bytes, tool: tuple[str, str]) -> int | None:
    """Registers per thread the cubin declares (cuobjdump -res-usage), None without cuobjdump."""
    name, path = tool
    if name != "cuobjdump":
        return None
    fd, tmp = tempfile.mkstemp(suffix=".cubin")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        out = subprocess.run([path, "-res-usage", tmp], check=True, capture_output=True, text=True)
    finally:
        os.unlink(tmp)
    m = re.search(r"REG:(\d+)", out.stdout)
    return int(m.group(1)) if m else None


def modes() -> tuple[str, ...]:
    """The payoff kernel's modes (imported late: the opcode functions need no Triton)."""
    from benchmarks import reuse_matmul as rm

    return rm.MODES


def measure(stages: int, mode: str, tool: tuple[str, str]) -> dict[str, Any]:
    """One kernel compiled on the CPU for sm_90, reduced to its opcode counts."""
    from benchmarks import reuse_matmul as rm

    kernel = rm.compile_cpu(stages, mode)
    sass = sass_opcodes(disassemble(kernel.asm["cubin"], tool))
    ptx = ptx_opcodes(kernel.asm["ptx"])
    return {
        "stages": stages,
        "mode": mode,
        "sass_total": len(sass),
        "ptx_total": len(ptx),
        "shared": kernel.metadata.shared,
        "registers": registers(kernel.asm["cubin"], tool),
        "sass_hist": histogram(sass),
        "ptx_hist": histogram(ptx),
        # Kept out of the JSON: the order, to say whether only operands differ.
        "_sass_seq": sass,
        "_ptx_seq": ptx,
    }


def compare(planned: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """The planned kernel against another mode at the same depth, in both views."""
    return {
        "stages": planned["stages"],
        "against": other["mode"],
        "sass": {
            **summarise_diff(planned["sass_hist"], other["sass_hist"], classify_sass),
            "same_sequence": planned["_sass_seq"] == other["_sass_seq"],
        },
        "ptx": {
            **summarise_diff(planned["ptx_hist"], other["ptx_hist"], classify_ptx),
            "same_sequence": planned["_ptx_seq"] == other["_ptx_seq"],
        },
    }


def _fmt_diff(d: Mapping[str, Any]) -> str:
    plus, minus = sum(d["added"].values()), sum(d["removed"].values())
    return f"{d['net']:+d} (+{plus}/-{minus})"


def _fmt_other(d: Mapping[str, Any]) -> str:
    """The non-address opcodes with their signed counts (-1 X: planned has one X fewer)."""
    parts = [
        f"+{d['added'][op]} {op}" if op in d["added"] else f"-{d['removed'][op]} {op}"
        for op in d["other"]
    ]
    return ", ".join(parts) or "none"


def _fmt_late(d: Mapping[str, Any]) -> str:
    if d["sass"]["same_sequence"] and d["ptx"]["same_sequence"]:
        return "same opcodes, same order"
    return f"SASS {_fmt_diff(d['sass'])}, PTX {_fmt_diff(d['ptx'])}"


def table(kernels: list[dict[str, Any]], diffs: list[dict[str, Any]]) -> str:
    """Markdown: one row per kernel, with the planned rows' difference against upfront (and
    whether their opcode sequence is the late kernel's)."""
    vs_up = {d["stages"]: d for d in diffs if d["against"] == "upfront"}
    vs_late = {d["stages"]: d for d in diffs if d["against"] == "late"}
    rows = [
        "| stages | mode | shared (B) | regs | SASS instr. | PTX instr. "
        "| SASS vs upfront | non-address (SASS) | PTX vs upfront | non-address (PTX) "
        "| vs late |",
        "|---:|---|---:|---:|---:|---:|---:|---|---:|---|---|",
    ]
    for k in kernels:
        planned = k["mode"] == "planned"
        d = vs_up.get(k["stages"]) if planned else None
        late = vs_late.get(k["stages"]) if planned else None
        cols = [
            str(k["stages"]),
            k["mode"],
            str(k["shared"]),
            str(k["registers"] if k["registers"] is not None else "?"),
            str(k["sass_total"]),
            str(k["ptx_total"]),
            _fmt_diff(d["sass"]) if d else "",
            _fmt_other(d["sass"]) if d else "",
            _fmt_diff(d["ptx"]) if d else "",
            _fmt_other(d["ptx"]) if d else "",
            _fmt_late(late) if late else "",
        ]
        rows.append("| " + " | ".join(cols) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="Needs Triton 3.6 (its bundled cuobjdump or nvdisasm) and z3; no GPU.",
    )
    ap.add_argument(
        "--out",
        default=None,
        help=scratch.HELP.format("reuse_code.json"),
    )
    ap.add_argument(
        "--stages",
        type=int,
        nargs="+",
        default=list(DEFAULT_STAGES),
        metavar="N",
        help="pipeline depths to compile (default: %(default)s)",
    )
    args = ap.parse_args(argv)
    if any(s < 2 for s in args.stages):
        ap.error("--stages: each depth must be at least 2 (the prologue fills STAGES-1 slots)")

    import triton

    tool = find_disassembler()
    if tool is None:
        print("no cuobjdump or nvdisasm found (Triton's bundled ones or on PATH)", file=sys.stderr)
        return 2

    kernels, diffs = [], []
    # A cache of its own: Triton keys a compile by the jit sources, not by the frontend's
    # builtins (alloc_reuse and its lowering), so a cached kernel could predate a change to them.
    saved = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="bench-reuse-code-") as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            for stages in args.stages:
                by_mode = {mode: measure(stages, mode, tool) for mode in modes()}
                kernels.extend(by_mode.values())
                for against in ("upfront", "late"):
                    diffs.append(compare(by_mode["planned"], by_mode[against]))
        finally:
            if saved is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = saved

    out = {
        "triton": triton.__version__,
        "date": datetime.date.today().isoformat(),
        "target": "sm_90",
        "disassembler": tool[0],
        "address_opcodes": {"sass": sorted(SASS_ADDRESS), "ptx": sorted(PTX_ADDRESS)},
        "kernels": [{k: v for k, v in kern.items() if not k.startswith("_")} for kern in kernels],
        "diffs": diffs,
    }
    scratch.write(args.out, "reuse_code.json", out)
    print(table(kernels, diffs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
