"""The Hopper operations of the lowering check: TMA copies, wgmma operand descriptors, the TMEM
address slot.

``plan/llir.py`` judges every bracketed shared address of inline PTX; three Hopper forms need
facts the instruction does not carry, and this module supplies them:

- A TMA copy (``cp.async.bulk.tensor``) moves a box whose size lives in the tensor map, not in
  the instruction. The box is taken from the TTGIR copy op at the same source location (its
  memdesc gives shape and element type, its NVMMA layout the swizzle width), divided into the
  messages Triton issues for one op: every dimension clamped to 256 elements, the contiguous one
  to the swizzle width. Each message's destination (or source) must then lie in range. Where the
  op is not found, or the ops at that location disagree, the size is unknown (a note).
- wgmma reads its shared operands through 64-bit matrix descriptors (a value, not a bracketed
  address). The descriptor is decoded from the evaluator's term of it: bits 0-13 hold the start
  address >> 4 (an 18-bit shared address), bits 16-29 and 32-45 the leading and stride byte
  offsets >> 4, bits 49-51 the base offset and bits 62-63 the swizzle mode (1: 128 bytes, 2: 64,
  3: 32), as the PTX ISA's matrix-descriptor format gives them. The bytes one instruction reads
  follow from its shape ``mMnNkK``, the element type, the operand's major-ness and the strides
  (the ISA's canonical layouts); swizzling permutes 16-byte chunks inside an aligned row of the
  swizzle width, so the read lies between the start's row and the last row's end. Both ends
  must lie in range. A field that is not a constant is not decoded (a note).
- Both a wgmma operand and a TMA copy's box must also lie in their own buffer: the one the
  TTGIR op at the same location names (the dot's A or B, the copy's destination or source),
  traced back through views and loop-carried values by the liveness' value graph. Where the
  ops there are not the kernel's own or name different buffers, the function's range alone
  is judged.
- ``tcgen05.alloc`` writes the 4-byte tensor-memory address into shared memory; Triton reserves
  at least those 4 bytes for a kernel that allocates tensor memory even where its allocation
  pass gave ``ttg.shared = 0``, so the kernel's range is at least [0, 4) there. Tensor memory
  itself is not shared memory: tcgen05 operations on it are not judged here (their shared
  operands, other than the slot, are notes).

Every decision that cannot be made returns None (a note, the run partial), never a size or an
extent guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import z3

from alias_spec.ir.llir import split_top
from alias_spec.ir.memdesc_type import first_memdesc
from alias_spec.model.dtypes import DTYPE_BITS, PTX_DTYPES
from alias_spec.model.facts import elem_bytes
from alias_spec.plan.terms import WIDTH, Access, Value, address_arg, as_bool, fit

if TYPE_CHECKING:
    from alias_spec.ir.llir import Function, Instruction, Operand
    from alias_spec.ir.ttgir import Module, Op
    from alias_spec.plan.evaluator import Evaluator  # for types only: it calls into this module

__all__ = [
    "Descriptor",
    "decode_descriptor",
    "operand_extent",
    "tma_message_bytes",
    "bulk_copy_size",
    "shared_address_as_value",
    "box_dim_note",
    "tcgen05_size",
    "tmem_slot_range",
]

MBARRIER_BYTES = 8
PROOF_TIMEOUT_MS = 5_000  # one proof that a descriptor field is a constant
TMEM_SLOT_BYTES = 4  # tcgen05.alloc writes a b32 address
TMA_DIM_MAX = 256  # a TMA box's largest extent in any dimension
# Swizzle-mode field (bits 62-63) -> bytes of one swizzled row (0: no swizzle, 16-byte cores).
SWIZZLE_BYTES = {0: 0, 1: 128, 2: 64, 3: 32}
CORE_BYTES = 128  # a core matrix without swizzle: 8 rows of 16 bytes
_TRANSPOSABLE = ("f16", "bf16")  # only these take imm-trans operands
_WGMMA = re.compile(r"^wgmma\.mma_async(\.sp)?\.sync\.aligned\.m(\d+)n(\d+)k(\d+)((?:\.\w+)+)$")
_TMA_LOAD = re.compile(r"^cp\.async\.bulk\.tensor\.(\d)d\.shared::(?:cluster|cta)\.global"
                       r"((?:\.[\w:]+)*)$")  # fmt: skip
_TMA_STORE = re.compile(r"^cp\.async\.bulk\.tensor\.(\d)d\.global\.shared::cta((?:\.[\w:]+)*)$")
_BULK = re.compile(r"^cp\.async\.bulk\.(shared::(?:cluster|cta)|global)\.(global|shared::cta)"
                   r"((?:\.[\w:]+)*)$")  # fmt: skip
# Qualifiers of a TMA copy that keep the box a plain tile of the tensor map.
_TMA_PLAIN = {"tile", "mbarrier::complete_tx::bytes", "bulk_group", "L2::cache_hint",
              "multicast::cluster", "cta_group::1", "cta_group::2"}  # fmt: skip
_TMA_LOAD_OPS = ("ttng.async_tma_copy_global_to_local",)
_TMA_STORE_OPS = ("ttng.async_tma_copy_local_to_global",)
_TENSORDESC = re.compile(
    r"!tt\.tensordesc<(?:tensor<)?((?:\d+x)+)(\w+)\s*,\s*(#[\w.]+(?:<\{[^}]*\}>)?)"
)
_NVMMA = re.compile(r"#ttg\.nvmma_shared<\{([^}]*)\}>")
_FILE_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')
_LOC_REF = re.compile(r"#loc\d*\b")
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_SIMPLE = re.compile(r"^\s*\$(\d+)\s*(?:\+\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*)?$")
_PRED = re.compile(r"^@(!?)\$(\d+)\s+")


# --- per-evaluator state -----------------------------------------------------------------------


@dataclass
class _State:
    by_args: dict[int, Instruction]  # id(ins.operands) -> ins: the hooks get the operand list
    notes: dict[int, str] = field(default_factory=dict)


def _state(ev: Evaluator) -> _State:
    st = getattr(ev, "_hopper_state", None)
    if st is None:
        st = _State({id(ins.operands): ins for ins in ev.fn.instructions})
        ev._hopper_state = st  # type: ignore[attr-defined]
    return st


def _instruction(args: list[Operand], ev: Evaluator) -> Instruction | None:
    return _state(ev).by_args.get(id(args))


def _outputs(ins: Instruction) -> int:
    assert ins.callee is not None
    return sum(1 for c in ins.callee.constraints.split(",") if c.strip().startswith("="))


def _statement(ins: Instruction, ptx: str) -> str | None:
    """The asm statement (predicate included) that ``ptx`` is, as written in ``ins``."""
    assert ins.callee is not None
    text = re.sub(r"//[^\n]*", "", ins.callee.text)
    for s in re.split(r"[;\n]", text):
        s = re.sub(r"^(?:[{}]\s*|[\w$]+:\s*)+", "", s.strip()).strip()
        if s.endswith(ptx) and (s == ptx or s[: len(s) - len(ptx)].rstrip().startswith("@")):
            return s
    return None


def _predicate(ins: Instruction, ptx: str, ev: Evaluator) -> z3.BoolRef | None:
    """The statement's guard (``@$k`` / ``@!$k``) as a term; None: unguarded or unread (an
    access without its guard is judged on more threads: never fewer)."""
    s = _statement(ins, ptx)
    pm = _PRED.match(s) if s else None
    if not pm:
        return None
    i = int(pm.group(2)) - _outputs(ins)
    if not 0 <= i < len(ins.operands):
        return None
    c = as_bool(ev.operand(ins.operands[i]).expr)
    return z3.Not(c) if pm.group(1) else c


def _add(ev: Evaluator, acc: Any) -> None:
    """Add a modelled access once per evaluation of the function (the hooks may be asked for
    the same statement once per bracketed operand)."""
    for a in ev.modelled:
        if a.line == acc.line and a.kind == acc.kind and a.addr.expr.eq(acc.addr.expr):
            return
    ev.modelled.append(acc)


# --- wgmma descriptors -------------------------------------------------------------------------


@dataclass(frozen=True)
class Descriptor:
    """A decoded wgmma matrix descriptor. ``start``: the operand's first byte as an offset from
    ``@global_smem`` (32-bit term); offsets in bytes; ``swizzle``: bytes of a swizzled row, 0
    for none; ``base_offset``: the pattern's base offset field."""

    start: z3.BitVecRef
    lbo: int
    sbo: int
    swizzle: int
    base_offset: int


Prover = Callable[[z3.BitVecRef], "int | None"]


def _field(desc: z3.BitVecRef, hi: int, lo: int, prove: Prover | None) -> int | None:
    v = z3.simplify(z3.Extract(hi, lo, desc))
    if z3.is_bv_value(v):
        return v.as_long()  # type: ignore[attr-defined]
    # The prover gets the term as built: interval arithmetic reads its zero-extensions.
    return prove(z3.Extract(hi, lo, desc)) if prove is not None else None


def decode_descriptor(desc: z3.BitVecRef, prove: Prover | None = None) -> Descriptor | None:
    """The descriptor's fields, when every one but the start address is a constant: of the
    term itself (Triton ORs the strides and mode in as constants), or proved one by ``prove``
    (a start advanced by an ``add`` could carry into the fields: proved not to); else None."""
    if desc.size() != 64:
        return None
    lbo, sbo = _field(desc, 29, 16, prove), _field(desc, 45, 32, prove)
    mode, base = _field(desc, 63, 62, prove), _field(desc, 51, 49, prove)
    if lbo is None or sbo is None or mode is None or base is None:
        return None
    start = z3.ZeroExt(WIDTH - 14, z3.Extract(13, 0, desc)) << 4
    return Descriptor(start, lbo << 4, sbo << 4, SWIZZLE_BYTES[mode], base)


def operand_extent(d: Descriptor, mn: int, k: int, bits: int, mn_major: bool) -> int | None:
    """Bytes from the start's first byte to one past the last byte the operand's unswizzled
    layout names (rows at their strides; swizzling then moves chunks only inside aligned rows
    of ``d.swizzle`` bytes). ``mn``: the operand's M (A) or N (B) extent, ``k`` its K extent,
    in elements. None where the layout is not one modelled here (a base offset, partial rows)."""
    if d.base_offset or bits % 8 or mn <= 0 or k <= 0:
        return None
    kb, mnb = k * elem_bytes(bits), mn * elem_bytes(bits)
    s = d.swizzle
    if s:
        if not mn_major:
            # Rows along M/N, 8 to a group at SBO, each row s bytes apart holding K's bytes.
            if kb > s or mn % 8:
                return None
            return (mn // 8 - 1) * d.sbo + 7 * s + kb
        # Atoms of s bytes along M/N at LBO; K's rows 8 to a group at SBO, s bytes apart.
        if k % 8:
            return None
        if mnb < s and s % mnb == 0:
            # Part of one atom's rows (a narrow N split over instructions): counted from the
            # start's row, whole rows (see _bounds).
            return (k // 8 - 1) * d.sbo + 8 * s
        if mnb % s:
            return None
        return (mnb // s - 1) * d.lbo + (k // 8 - 1) * d.sbo + 8 * s
    # No swizzle: 8x16-byte core matrices; LBO and SBO step between cores along the two
    # dimensions (which is which depends on major-ness: the larger reach is taken).
    if kb % 16 or mnb % 16 or (mn if not mn_major else k) % 8:
        return None
    along_k = kb // 16 if not mn_major else k // 8
    along_mn = mn // 8 if not mn_major else mnb // 16
    reach = max((along_k - 1) * d.lbo + (along_mn - 1) * d.sbo,
                (along_k - 1) * d.sbo + (along_mn - 1) * d.lbo)  # fmt: skip
    return reach + CORE_BYTES


def _bounds(d: Descriptor, extent: int,
            from_row: bool = False) -> tuple[z3.BitVecRef, z3.BitVecRef]:  # fmt: skip
    """First and last byte (terms) the operand can touch. ``from_row``: the extent counts
    from the start's swizzled row (the start may lie inside the row)."""
    if not d.swizzle:
        return d.start, d.start + (extent - 1)
    mask = z3.BitVecVal(~(d.swizzle - 1) & ((1 << WIDTH) - 1), WIDTH)
    if from_row:
        return d.start & mask, (d.start & mask) + (extent - 1)
    return d.start & mask, ((d.start + (extent - 1)) & mask) + (d.swizzle - 1)


def _descriptor_value(op: Operand, ev: Evaluator) -> Any:
    """The descriptor operand as one 64-bit term over a shared address: an i64, or a
    ``<2 x i32>`` of (low, high) words bitcast to one (how 3.9 builds it); None otherwise."""
    v = address_arg(ev, op)
    if v is not None and isinstance(v.expr, z3.BitVecRef) and v.expr.size() == 64:
        return v
    if not op.type.startswith("i64"):
        return None
    w = ev.operand(op)
    lanes = [(w.fields or {}).get(i) for i in (0, 1)]
    if len(w.fields or {}) != 2 or not all(
        x is not None and isinstance(x.expr, z3.BitVecRef) and x.expr.size() == 32 for x in lanes
    ):
        return None
    lo, hi = lanes  # lane 0 is the low word (little-endian bitcast)
    assert lo is not None and hi is not None
    if not (lo.smem or hi.smem):
        return None
    return Value(z3.Concat(hi.expr, lo.expr), True, lo.opaque or hi.opaque)


def _wgmma(ptx: str, ins: Instruction, ev: Evaluator) -> str | None:
    """Model one wgmma statement's descriptor operands (accesses added to ``ev.modelled``);
    the note when it cannot be modelled, None when it is."""
    head, _, rest = ptx.partition(" ")
    m = _WGMMA.match(head)
    if not m:
        return f"{head}: a wgmma form not modelled (its operand descriptors not decoded)"
    if m.group(1):
        return f"{head}: sparse wgmma operands are not modelled"
    shape_m, shape_n, shape_k = int(m.group(2)), int(m.group(3)), int(m.group(4))
    types = [t for t in m.group(5).split(".") if t]
    ab = [t for t in types if t in PTX_DTYPES]
    if len(ab) < 2:
        return f"{head}: element types not modelled (operand descriptors not decoded)"
    atype, btype = ab[-2], ab[-1]
    ops = split_top(rest.rstrip(";").strip())
    if len(ops) < 3:
        return f"{head}: operands not read (descriptors not decoded)"
    a_desc = not ops[1].startswith("{")
    trans_a = trans_b = 0
    if atype in _TRANSPOSABLE:
        imms = ops[-2:] if a_desc else ops[-1:]
        if not all(x in ("0", "1") for x in imms):
            return f"{head}: its transpose operands are not immediates (not modelled)"
        trans_b = int(imms[-1])
        trans_a = int(imms[0]) if a_desc else 0
    outputs = _outputs(ins)
    roles = [("B", ops[2], shape_n, btype, trans_b)]
    if a_desc:
        roles.insert(0, ("A", ops[1], shape_m, atype, trans_a))
    modelled: set[int] = set()
    for role, text, mn, dtype, trans in roles:
        om = re.fullmatch(r"\$(\d+)", text)
        i = int(om.group(1)) - outputs if om else -1
        if not 0 <= i < len(ins.operands):
            return f"{head}: operand {role}'s descriptor is not an operand (not decoded)"
        v = _descriptor_value(ins.operands[i], ev)
        if v is None:
            return f"{head}: operand {role}'s descriptor is not a term of a shared address"
        d = decode_descriptor(v.expr, lambda e: _constant(e, ev))
        if d is None:
            return f"{head}: operand {role}'s descriptor has fields that are not constants"
        bits = DTYPE_BITS[PTX_DTYPES[dtype]]
        extent = operand_extent(d, mn, shape_k, bits, bool(trans))
        if extent is None:
            return f"{head}: operand {role}'s layout is not one modelled here"
        narrow = bool(trans) and 0 < mn * elem_bytes(bits) < d.swizzle
        lo, last = _bounds(d, extent, from_row=narrow)
        within = _operand_buffer(ins, 0 if role == "A" else 1, ev)
        for what, e in (("first", lo), ("last", last)):
            _add(ev, Access(ins.line, ins.column, f"wgmma operand {role} ({what} byte)", 1,
                            Value(z3.simplify(e), True, v.opaque), ins.dbg,
                            within=[within] if within else None))  # fmt: skip
        modelled.add(int(om.group(1)))  # type: ignore[union-attr]
    # Any other operand carrying a shared address is not modelled.
    for k in re.findall(r"\$(\d+)", rest):
        j = int(k) - outputs
        if int(k) not in modelled and 0 <= j < len(ins.operands) and ev.uses_shared(
                ins.operands[j]):  # fmt: skip
            return f"{head}: ${k} takes a shared address as a value (not modelled)"
    return None


_DOT_OPS = ("ttng.warp_group_dot",)


def _operand_buffer(ins: Instruction, index: int, ev: Evaluator) -> tuple[int, int, str] | None:
    """The buffer operand ``index`` of the TTGIR dot at the wgmma's location reads."""
    return _own_buffer(ins, _DOT_OPS, index, ev)


def _own_buffer(ins: Instruction, names: tuple[str, ...], index: int,
                ev: Evaluator) -> tuple[int, int, str] | None:  # fmt: skip
    """The buffer (offset, end, label) that operand ``index`` of the TTGIR ops named so at the
    instruction's location is derived from, when all of them name the one buffer."""
    att = ev.attribution
    return att.operand_at(ins.dbg, names, index) if att is not None else None


def _constant(e: z3.BitVecRef, ev: Evaluator) -> int | None:
    """The one value ``e`` takes under the function's constraints (proved), else None.
    Interval arithmetic first: a start address advanced by an ``add`` that cannot carry past
    its field leaves the fields above it constant, which bit-blasting a 64-bit sum is slow to
    show."""
    a, b = ev.interval(e)
    if a == b:
        return a
    facts = ev.relevant([e])
    s = z3.Solver()
    s.set("timeout", PROOF_TIMEOUT_MS)
    s.add(*facts)
    if s.check() != z3.sat:
        return None
    c = s.model().eval(e, model_completion=True)
    if not z3.is_bv_value(c):
        return None
    s.add(e != c)
    if s.check() == z3.unsat:
        return c.as_long()  # type: ignore[attr-defined]
    if ev.bound([e]):  # the loop-carried values it depends on, bounded: once more
        return _constant(e, ev) if not ev.gave_up else None
    return None


def shared_address_as_value(ptx: str, args: list[Operand], ev: Evaluator) -> str | None:
    """The note for a PTX statement that takes a shared address as a value, outside brackets;
    None when modelled: wgmma's operand descriptors are decoded and their reads judged."""
    what = ptx.split()[0] if ptx.split() else ptx
    ins = _instruction(args, ev)
    if what.startswith("wgmma.mma_async") and ins is not None and ins.callee is not None:
        return _wgmma(ptx, ins, ev)
    if what.startswith("wgmma"):
        return "wgmma operand descriptors take a shared address as a value (not modelled)"
    return f"{what} take a shared address as a value (not modelled)"


# --- TMA ---------------------------------------------------------------------------------------


def _layout(ref: str, module: Module) -> dict[str, str] | None:
    text = module.aliases.get(ref, ref) if ref.startswith("#") and "<" not in ref else ref
    m = _NVMMA.search(text)
    if not m:
        return None
    out = {}
    for part in m.group(1).split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def tma_message_bytes(op: Op, module: Module, rank: int) -> int | None:
    """Bytes one message of this TTGIR TMA op moves: the op's shared tile (its memdesc) split
    into the boxes Triton issues, each dimension clamped to 256 elements and the contiguous one
    to the swizzle width. None where the op's types do not give it exactly (a tile that does
    not split evenly, a layout that is not NVMMA, a descriptor block unlike the tile, a rank
    unlike the instruction's)."""
    # A load's tile is its result type (after the mbarrier's memdesc); a store's, its source.
    tile = op.result_types() if op.name in _TMA_LOAD_OPS else op.text
    md, td = first_memdesc(tile), _TENSORDESC.search(op.text)
    if md is None or not td:
        return None
    shape = md["shape"]
    block = [int(x) for x in td.group(1).rstrip("x").split("x")]
    if shape != block or md["dtype"] != td.group(2) or len(shape) != rank:
        return None
    bits = DTYPE_BITS.get(md["dtype"])
    layout = _layout(md["layout"], module)
    if bits is None or bits % 8 or layout is None:
        return None
    if layout.get("transposed", "false") != "false" or layout.get("fp4Padded", "false") != "false":
        return None
    if int(layout.get("elementBitWidth", bits)) != bits:
        return None
    swizzle = int(layout.get("swizzlingByteWidth", "0"))
    box = [min(d, TMA_DIM_MAX) for d in shape]
    if swizzle:
        contig = swizzle * 8 // bits
        if shape[-1] < contig:
            return None
        box[-1] = contig
    if any(d % b for d, b in zip(shape, box, strict=True)):
        return None
    return math.prod(box) * elem_bytes(bits)


def _tma_bytes(ins: Instruction, ev: Evaluator, load: bool, rank: int) -> int | None:
    """Bytes one message of the TTGIR TMA op at the instruction's location moves; None when
    no op or ops that disagree are found there."""
    if ev.attribution is None:
        return None
    names = _TMA_LOAD_OPS if load else _TMA_STORE_OPS
    found = [op for _, op in ev.attribution.ops_at(ins.dbg, names)]
    sizes = {tma_message_bytes(op, ev.ttgir, rank) for op in found}  # type: ignore[attr-defined]
    if len(sizes) != 1:
        return None
    return sizes.pop()


def _shared_brackets(ptx: str, ins: Instruction, ev: Evaluator) -> list[tuple[int, int]] | None:
    """(operand index into ``ins.operands``, constant offset) of each bracketed operand that is
    a shared address, in order; None when a bracket is not a plain operand."""
    outputs, out = _outputs(ins), []
    for bm in _BRACKETS.finditer(ptx):
        sm = _SIMPLE.match(bm.group(1))
        if not sm:
            continue  # a tensor map with coordinates: the global side
        i = int(sm.group(1)) - outputs
        if 0 <= i < len(ins.operands) and address_arg(ev, ins.operands[i]) is not None:
            out.append((i, int(sm.group(2), 0) if sm.group(2) else 0))
    return out


def bulk_copy_size(ptx: str, args: list[Operand], ev: Evaluator) -> int | None:
    """Bytes a ``cp.async.bulk`` instruction surely touches at each of its shared operands;
    None when not readable (a note). A TMA store's one shared operand is its source box; a
    TMA load's are its destination box and its mbarrier: 8 bytes is returned for both, and
    the destination's whole box is added as its own access (``ev.modelled``)."""
    ins = _instruction(args, ev)
    head = ptx.split()[0] if ptx.split() else ""
    if ins is None or ins.callee is None:
        return None
    load, store = _TMA_LOAD.match(head), _TMA_STORE.match(head)
    if load or store:
        m = load or store
        assert m is not None
        quals = {q for q in m.group(2).split(".") if q}
        if not quals <= _TMA_PLAIN:
            return None  # im2col, gather4 and the like: boxes of another shape
        size = _tma_bytes(ins, ev, bool(load), int(m.group(1)))
        if size is None:
            return None
        brackets = _shared_brackets(ptx, ins, ev)
        if store:
            return size if brackets is not None and len(brackets) == 1 else None
        if brackets is None or len(brackets) != 2:
            return None
        i, off = brackets[0]
        # The destination: the TTGIR copy's operand after the descriptor and its coordinates.
        within = _own_buffer(ins, _TMA_LOAD_OPS, 1 + int(m.group(1)), ev)
    else:
        within = None
        bm = _BULK.match(head)
        if not bm:
            return None
        ops = split_top(ptx[len(head) :].rstrip(";"))
        if len(ops) < 3:
            return None
        size = _immediate(ops[2], ins, ev)
        brackets = _shared_brackets(ptx, ins, ev)
        if size is None or brackets is None or not brackets:
            return None
        if bm.group(1) == "global" or len(brackets) == 1:
            return size if len(brackets) == 1 else None  # a store: its one shared operand
        if len(brackets) != 2:
            return None
        i, off = brackets[0]
    v = address_arg(ev, ins.operands[i])
    assert v is not None
    expr = fit(v.expr, WIDTH) + off  # type: ignore[arg-type]
    _add(ev, Access(ins.line, ins.column, f"asm {head} ({size}-byte box)", size,
                    Value(expr, True, v.opaque), ins.dbg, _predicate(ins, ptx, ev),
                    [within] if within else None))  # fmt: skip
    return min(size, MBARRIER_BYTES)


def store_source_buffer(ptx: str, args: list[Operand],
                        ev: Evaluator) -> tuple[int, int, str] | None:  # fmt: skip
    """The buffer a TMA store (``cp.async.bulk.tensor`` from shared memory) reads its box from:
    its TTGIR op's source, the operand after the descriptor and its coordinates."""
    m = _TMA_STORE.match(ptx.split()[0] if ptx.split() else "")
    ins = _instruction(args, ev)
    if not m or ins is None:
        return None
    return _own_buffer(ins, _TMA_STORE_OPS, 1 + int(m.group(1)), ev)


def _immediate(text: str, ins: Instruction, ev: Evaluator) -> int | None:
    """An operand's constant value (a literal, or an asm operand the evaluator reads as one)."""
    text = text.strip()
    if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", text):
        return int(text, 0)
    om = re.fullmatch(r"\$(\d+)", text)
    if not om:
        return None
    i = int(om.group(1)) - _outputs(ins)
    if not 0 <= i < len(ins.operands):
        return None
    e = ev.operand(ins.operands[i]).expr
    e = z3.simplify(e)
    return e.as_long() if z3.is_bv_value(e) else None  # type: ignore[attr-defined]


_BOX_DIM = re.compile(
    r"tensormap\.replace\.tile\.box_dim\S*\s+\[[^\]]*\]\s*,\s*(\S+?)\s*,\s*(\S+?)\s*;?\s*$"
)
_TTGIR_CONSTANT = re.compile(r"arith\.constant\s+(-?\d+)\s*:\s*i\d+")


def _ttgir_box(op: Op, fn_name: str, module: Module) -> list[int] | None:
    """The box dimensions a ``ttng.tensormap_create`` op names (its first bracketed list),
    each an ``arith.constant`` of its function; None where one is not a constant."""
    fn = module.function(fn_name)
    m = re.search(r"\[([^\]]*)\]", op.head[op.name_end :])
    if fn is None or m is None:
        return None
    values = {r: c for o in fn.ops if o.name == "arith.constant" and len(o.results) == 1
              and (c := _TTGIR_CONSTANT.search(o.head)) is not None for r in o.results}  # fmt: skip
    out = []
    for name in (t.strip() for t in m.group(1).split(",")):
        c = values.get(name)
        if c is None:
            return None
        out.append(int(c.group(1)))
    return out


def box_dim_note(ptx: str, args: list[Operand], ev: Evaluator) -> str | None:
    """A device-side tensor map's box dimension written in the LLVM IR must be the one its
    TTGIR ``ttng.tensormap_create`` names: a TMA copy's bytes are taken from the TTGIR, so a
    box the LLVM IR makes larger would write past its buffer unseen. The note when it is not
    (or cannot be) shown equal; None when it is."""
    ins = _instruction(args, ev)
    m = _BOX_DIM.search(ptx.strip())
    if ins is None or m is None or ev.attribution is None:
        return "a tensor map's box dimension not read here (the TMA box is the TTGIR's)"
    ordinal, value = _immediate(m.group(1), ins, ev), _immediate(m.group(2), ins, ev)
    found = ev.attribution.ops_at(ins.dbg, ("ttng.tensormap_create",))
    boxes = {tuple(b) if (b := _ttgir_box(op, fn, ev.ttgir)) is not None else None  # type: ignore[arg-type]
             for fn, op in found}  # fmt: skip
    if ordinal is None or value is None or len(boxes) != 1 or None in boxes:
        return (
            "a tensor map's box dimension not matched to its TTGIR op (the TMA box is the TTGIR's)"
        )
    box = boxes.pop()
    assert box is not None
    if not 0 <= ordinal < len(box) or box[ordinal] != value:
        want = box[ordinal] if 0 <= ordinal < len(box) else "none"
        return (
            f"a tensor map's box dimension {ordinal} is {value} in the LLVM IR but {want} in "
            "its TTGIR op: its TMA copies' bytes are not known (not judged)"
        )
    return None


# --- tensor memory -----------------------------------------------------------------------------


def tcgen05_size(op: str) -> int | None:
    """Bytes a tcgen05 instruction touches at its bracketed shared operand: ``tcgen05.alloc``
    writes the 4-byte tensor-memory address; the others are not modelled (None: a note)."""
    if op.startswith("tcgen05.alloc") and ".shared::cta" in op and op.endswith(".b32"):
        return TMEM_SLOT_BYTES
    return None


def tmem_slot_range(fn: Function, ranges: list[tuple[int, int, str]] | None,
                    ) -> list[tuple[int, int, str]] | None:  # fmt: skip
    """The kernel's range widened to hold the tensor-memory address slot: a function that runs
    ``tcgen05.alloc`` into shared memory gets at least 4 bytes from Triton (measured with 3.6:
    ``ttg.shared`` 0 after the allocation pass, 4 in the compiled kernel's metadata), which the
    slot at offset 0 uses. Other ranges are returned as given."""
    if not ranges or not any(
        ins.callee is not None and ins.callee.kind == "asm" and "tcgen05.alloc" in ins.callee.text
        for ins in fn.instructions
    ):
        return ranges
    return [(lo, max(hi, lo + TMEM_SLOT_BYTES), where + " (at least the 4-byte TMEM slot)")
            if lo == 0 and where == "the kernel's ttg.shared" else (lo, hi, where)
            for lo, hi, where in ranges]  # fmt: skip
