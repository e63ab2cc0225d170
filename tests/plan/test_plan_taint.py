"""Which LLVM values may carry a shared address (``find_taint`` of ``alias_spec/plan/llir.py``):
field by field through aggregates, through register-fence asm, merged by phis; and the interval
arithmetic the evaluator proves descriptor fields with.

Each module is small and hand-written: a use the evaluator does not model (``fadd``,
``uitofp``) of a value that may carry a shared address is a note (partial), of one that cannot
is nothing (clean). A taint that is not field-sensitive turns the clean cases partial."""

from __future__ import annotations

import random

import pytest
import z3

from alias_spec.plan.evaluator import Evaluator
from alias_spec.plan.llir import check_lowering, read_llir
from alias_spec.plan.plan import Report
from alias_spec.plan.taint import asm_pass_through, find_taint

_HEAD = "@global_smem = external addrspace(3) global [0 x i8], align 16\n\n"
# A shared pointer and its address as an integer, as constant expressions.
_PTR = "ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 64)"
_ADDR = f"i32 ptrtoint ({_PTR} to i32)"


def _module(body: str, params: str = "float %f, i32 %n") -> str:
    return f'{_HEAD}define void @k({params}) "nvvm.reqntid"="128" {{\n{body}  ret void\n}}\n'


def _judge(text: str) -> Report:
    report = Report("k.ttgir", "test", 1024)
    check_lowering(text, "k.llir", report, 4)
    return report


def _taint(text: str, name: str) -> object:
    """The taint ``find_taint`` gives the value ``%name`` ("clean" when it has none)."""
    fn = read_llir(text).functions[0]
    (ins,) = [i for i in fn.instructions if i.name == "%" + name]
    return find_taint(fn).get(ins.index, "clean")


# --- aggregates -----------------------------------------------------------------------------------

_STRUCT = f"""\
  %s0 = insertvalue {{ ptr addrspace(3), float }} undef, {_PTR}, 0
  %s1 = insertvalue {{ ptr addrspace(3), float }} %s0, float %f, 1
  %x = extractvalue {{ ptr addrspace(3), float }} %s1, FIELD
"""


def test_float_field_of_a_struct_with_a_shared_pointer_is_clean() -> None:
    text = _module(_STRUCT.replace("FIELD", "1") + "  %y = fadd float %x, 1.0\n")
    assert _taint(text, "s1") == frozenset({0})
    assert _taint(text, "x") == "clean"
    report = _judge(text)
    assert report.status == "clean", [n.message for n in report.notes]


def test_pointer_field_used_by_an_unmodelled_op_is_a_note() -> None:
    text = _module(_STRUCT.replace("FIELD", "0") + "  store ptr addrspace(3) %x, ptr %g\n",
                   "float %f, ptr %g")  # fmt: skip
    assert _taint(text, "x") is None
    report = _judge(text)
    assert report.status == "partial"
    assert "a shared pointer stored to memory" in report.notes[0].message


_INT_STRUCT = f"""\
  %s0 = insertvalue {{ i32, float }} undef, {_ADDR}, 0
  %s1 = insertvalue {{ i32, float }} %s0, float %f, 1
"""


def test_address_carried_as_an_integer_field_is_a_note() -> None:
    """Not typed as a pointer: the field is tainted by what was inserted, not by its type."""
    text = _module(_INT_STRUCT + "  %x = extractvalue { i32, float } %s1, 0\n"
                   "  %y = uitofp i32 %x to float\n")  # fmt: skip
    assert _taint(text, "s1") == frozenset({0})
    report = _judge(text)
    assert report.status == "partial"
    assert "uitofp uses a value computed from a shared address" in report.notes[0].message


def test_insertvalue_overwriting_the_address_field_clears_it() -> None:
    text = _module(_INT_STRUCT + "  %s2 = insertvalue { i32, float } %s1, i32 %n, 0\n"
                   "  %x = extractvalue { i32, float } %s2, 0\n"
                   "  %y = uitofp i32 %x to float\n")  # fmt: skip
    assert _taint(text, "s2") == "clean"
    assert _judge(text).status == "clean"
    # Overwriting the other field leaves the address where it was.
    other = text.replace("%s1, i32 %n, 0", "%s1, float %f, 1")
    assert _taint(other, "s2") == frozenset({0})
    assert _judge(other).status == "partial"


def test_phi_of_aggregates_merges_their_fields() -> None:
    """Both incoming structs carry the address in field 0 only: field 1 of the phi is clean.
    Where the other incoming struct carries it in field 1, field 1 of the phi is tainted."""
    body = f"""\
  %c = icmp eq i32 %n, 0
  br i1 %c, label %a, label %b
a:
  %sa0 = insertvalue {{ i32, i32 }} undef, {_ADDR}, 0
  %sa = insertvalue {{ i32, i32 }} %sa0, i32 %n, 1
  br label %j
b:
  %sb0 = insertvalue {{ i32, i32 }} undef, i32 %n, 0
  %sb = insertvalue {{ i32, i32 }} %sb0, SECOND, 1
  br label %j
j:
  %p = phi {{ i32, i32 }} [ %sa, %a ], [ %sb, %b ]
  %x = extractvalue {{ i32, i32 }} %p, 1
  %y = uitofp i32 %x to float
"""
    clean = _module(body.replace("SECOND", "i32 %n"))
    assert _taint(clean, "p") == frozenset({0})
    assert _judge(clean).status == "clean"
    mixed = _module(body.replace("SECOND", _ADDR))
    assert _taint(mixed, "p") == frozenset({0, 1})
    report = _judge(mixed)
    assert report.status == "partial"
    assert "uitofp" in report.notes[0].message


# --- inline asm ------------------------------------------------------------------------------------

_FENCE = f"""\
  %a = add {_ADDR}, 0
  %r = call {{ i32, float }} asm sideeffect "TEXT", "CONS"(i32 %a, float %f)
  %x = extractvalue {{ i32, float }} %r, FIELD
  %y = uitofp USE to float
"""


def _fence(text: str, cons: str, field: int) -> str:
    use = "i32 %x" if field == 0 else "float %x"
    if field == 1:
        body = _FENCE.replace("  %y = uitofp USE to float\n", "  %y = fadd float %x, 1.0\n")
    else:
        body = _FENCE.replace("USE", use)
    return _module(body.replace("TEXT", text).replace("CONS", cons).replace("FIELD", str(field)))


def test_register_fence_asm_passes_each_tied_input_to_its_output() -> None:
    """Text that names no operand (a comment may): each output is its tied input's value."""
    for text in ("", "// wait $0"):
        fence = _fence(text, "=r,=f,0,1", 1)
        assert _taint(fence, "r") == frozenset({0}), text
        assert _judge(fence).status == "clean", text
        addr = _fence(text, "=r,=f,0,1", 0)
        assert _judge(addr).status == "partial", text


def test_asm_that_names_an_operand_taints_all_its_outputs() -> None:
    fence = _fence("mov.b32 $0, 0;", "=r,=f,0,1", 1)
    assert _taint(fence, "r") is None
    report = _judge(fence)
    assert report.status == "partial"
    assert "fadd uses a value computed from a shared address" in report.notes[0].message


_GF = "ptr elementtype(i32) %g, "


@pytest.mark.parametrize("cons,mem,want", [
    ("=r,=f,0,1", "", {0: 0, 1: 1}),
    ("=r,=f,1,0", "", {1: 0, 0: 1}),
    ("=r,=f,r,1", "", {1: 1}),
    ("=*m,=r,=f,r,2", _GF, None),  # writes memory: its outputs are not its inputs alone
    ("=r,=f,*m,0,1", _GF, None),  # reads memory through an operand
])  # fmt: skip
def test_asm_pass_through_of_constraints(cons: str, mem: str,
                                         want: dict[int, int] | None) -> None:  # fmt: skip
    """Output -> the input it carries; none for asm with an indirect (memory) operand."""
    text = _module(f'  %r = call {{ i32, float }} asm sideeffect "", "{cons}"({mem}i32 %n, '
                   "float %f)\n", "float %f, i32 %n, ptr %g")  # fmt: skip
    ins = [i for i in read_llir(text).functions[0].instructions if i.name == "%r"][0]
    assert asm_pass_through(ins) == want


def test_asm_writing_memory_is_not_a_pass_through() -> None:
    """The same fence as above with a ``=*m`` output: the float it returns may be anything
    computed from its inputs, the shared address among them."""
    text = _module(f"""\
  %a = add {_ADDR}, 0
  %r = call {{ i32, float }} asm sideeffect "", "=*m,=r,=f,r,2"(ptr elementtype(i32) %g, \
i32 %a, float %f)
  %x = extractvalue {{ i32, float }} %r, 1
  %y = fadd float %x, 1.0
""", "float %f, ptr %g")  # fmt: skip
    assert _taint(text, "r") is None
    report = _judge(text)
    assert report.status == "partial"
    assert "fadd uses a value computed from a shared address" in report.notes[0].message


# --- interval arithmetic of the evaluator --------------------------------------------------------


def _evaluator() -> Evaluator:
    return Evaluator(read_llir(_module("")).functions[0], 128)


@pytest.mark.parametrize("hi,lo,rng,want", [
    (7, 0, (0x1010, 0x1020), (0x10, 0x20)),  # the bits above the field are constant
    (7, 4, (0x30, 0x3F), (3, 3)),  # a field above bit 0
    (13, 0, (0, 0x3FFF), (0, 0x3FFF)),
    (7, 0, (0xFF, 0x101), (0, 0xFF)),  # wraps inside the range: any byte
])  # fmt: skip
def test_interval_of_extract(hi: int, lo: int, rng: tuple[int, int],
                             want: tuple[int, int]) -> None:  # fmt: skip
    ev = _evaluator()
    x = z3.BitVec("x", 32)
    ev.var_range["x"] = rng
    assert ev.interval(z3.Extract(hi, lo, x)) == want


def test_interval_of_concat() -> None:
    ev = _evaluator()
    x, y = z3.BitVec("x", 8), z3.BitVec("y", 4)
    ev.var_range["x"] = (3, 5)
    # A constant high part: the low part's range, shifted up by it.
    assert ev.interval(z3.Concat(z3.BitVecVal(1, 2), x)) == (256 + 3, 256 + 5)
    # A varying high part: from the least high with the least low to the greatest of both.
    assert ev.interval(z3.Concat(x, y)) == (3 << 4, (5 << 4) + 15)
    z = z3.BitVec("z", 4)
    ev.var_range["z"] = (2, 6)
    assert ev.interval(z3.Concat(x, z)) == ((3 << 4) + 2, (5 << 4) + 6)
    # A descriptor's high word constant, its low word an address field of 14 bits.
    a = z3.BitVec("a", 32)
    ev.var_range["a"] = (64, 4096)
    d = z3.Concat(z3.BitVecVal(0x40000040, 32), z3.LShR(a, 4) & 0x3FFF)
    assert ev.interval(z3.Extract(63, 32, d)) == (0x40000040, 0x40000040)


def test_interval_of_a_select_under_its_condition() -> None:
    """A ring's wrap-around, i + 1 <= 2 ? i + 1 : 0 over i in [0, 2], stays in [0, 2]: the
    taken branch is judged under what its condition says of i, either side of the compare."""
    ev = _evaluator()
    i = z3.BitVec("i", 32)
    ev.var_range["i"] = (0, 2)
    zero = z3.BitVecVal(0, 32)
    assert ev.interval(z3.If(i + 1 <= 2, i + 1, zero)) == (0, 2)
    assert ev.interval(z3.If(2 < i + 1, zero, i + 1)) == (0, 2)
    assert ev.interval(z3.If(z3.Not(z3.ULT(i, 1)), i, zero)) == (0, 2)
    assert ev.interval(z3.If(z3.ULT(i, 2), i + 4, zero)) == (0, 5)  # strict: i <= 1
    # Lossless extensions and truncations of the compared value count too.
    assert ev.interval(
        z3.If(z3.ZeroExt(32, i) + 1 <= 2, z3.ZeroExt(32, i), z3.BitVecVal(0, 64))
    ) == (0, 1)
    # A signed compare of a value that may be negative says nothing of its unsigned range.
    ev.var_range["j"] = (0, 0xFFFFFFFF)
    j = z3.BitVec("j", 32)
    assert ev.interval(z3.If(j <= 2, j, zero)) == (0, 0xFFFFFFFF)
    # A branch the condition never takes adds nothing.
    assert ev.interval(z3.If(z3.UGT(i, 7), z3.BitVecVal(1000, 32), i)) == (0, 2)
    # A branch that is the compared term itself is bounded by the comparison, even over a
    # value without a range whose sum may wrap (u = 2^32 - 1 gives u + 1 = 0, still <= 4).
    u = z3.BitVec("u", 32)
    assert ev.interval(z3.If(z3.ULT(4, u + 1), zero, u + 1)) == (0, 4)
    assert ev.interval(z3.If(z3.ULE(u + 1, 4), u + 1, zero)) == (0, 4)
    assert ev.interval(z3.If(z3.UGE(u + 1, 9), u + 1, zero)) == (0, 0xFFFFFFFF)
    assert ev.interval(z3.If(4 < u + 1, zero, u + 1)) == (0, 0xFFFFFFFF)  # signed: negative


@pytest.mark.parametrize("seed", range(12))
def test_interval_contains_every_value(seed: int) -> None:
    """Soundness against concrete evaluation: for random small terms over two 6-bit variables
    with random ranges, every value the term takes (z3 evaluates it on every point) lies in
    the interval."""
    rnd = random.Random(seed)
    ev = _evaluator()
    x, y = z3.BitVec("x", 6), z3.BitVec("y", 6)
    rx = sorted(rnd.randrange(64) for _ in range(2))
    ry = sorted(rnd.randrange(64) for _ in range(2))
    ev.var_range["x"], ev.var_range["y"] = (rx[0], rx[1]), (ry[0], ry[1])

    def term(depth: int) -> z3.BitVecRef:
        if depth == 0 or rnd.random() < 0.25:
            return rnd.choice([x, y, z3.BitVecVal(rnd.randrange(64), 6)])
        a, b = term(depth - 1), term(depth - 1)
        k = z3.BitVecVal(rnd.randrange(64), 6)
        cmp = rnd.choice([z3.ULE, z3.ULT, z3.UGE, z3.UGT, lambda p, q: p <= q,
                          lambda p, q: p > q])  # fmt: skip
        return rnd.choice([
            lambda: a + b, lambda: a - b, lambda: a * b, lambda: a & b, lambda: a | b,
            lambda: a ^ b, lambda: z3.LShR(a, 2), lambda: a << 1, lambda: z3.UDiv(a, 3),
            lambda: z3.URem(a, 5), lambda: z3.Extract(5, 0, z3.ZeroExt(2, a) + 1),
            lambda: z3.If(cmp(a, k), b, a), lambda: z3.If(cmp(k, a + 1), a + 1, b),
        ])()  # fmt: skip

    for _ in range(20):
        e = term(4)
        lo, hi = ev.interval(e)
        for vx in range(rx[0], rx[1] + 1, max(1, (rx[1] - rx[0]) // 7)):
            for vy in range(ry[0], ry[1] + 1, max(1, (ry[1] - ry[0]) // 7)):
                v = z3.simplify(z3.substitute(e, (x, z3.BitVecVal(vx, 6)),
                                              (y, z3.BitVecVal(vy, 6)))).as_long()  # fmt: skip
                assert lo <= v <= hi, (e, vx, vy, v, (lo, hi))


# --- vectors ---------------------------------------------------------------------------------------

_VECTOR_SLOT = """\
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = zext i32 %t to i64
  %v0 = insertelement <2 x i64> poison, i64 %w, i64 0
  %v1 = insertelement <2 x i64> %v0, i64 %m, i64 1
  %v = trunc <2 x i64> %v1 to <2 x i32>
  %r = urem <2 x i32> %v, splat (i32 MOD)
  %s = extractelement <2 x i32> %r, i64 LANE
  %o = shl i32 %s, 11
  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o
  store i32 0, ptr addrspace(3) %p, align 4
"""


@pytest.mark.parametrize("mod,lane,want", [(3, 0, "clean"), (3, 1, "clean"), (4, 0, "findings")])
def test_vector_cast_keeps_its_lanes(mod: int, lane: int, want: str) -> None:
    """Ring slots computed as one vector ``urem`` of a truncated vector (3.9's form): each
    lane's slot is bounded by its modulus. 3 slots of 2 KiB fit in 6144 bytes, 4 do not (the
    thread id lane: an exact witness)."""
    body = _VECTOR_SLOT.replace("MOD", str(mod)).replace("LANE", str(lane))
    report = Report("k.ttgir", "test", 6144)
    check_lowering(_module(body, "i64 %m"), "k.llir", report, 4)
    assert report.status == want, ([f.message for f in report.findings], report.notes)
    if want == "findings":
        assert report.findings[0].values["address"] == 3 * 2048


def test_a_merge_equation_is_relevant_through_the_merge_only() -> None:
    """A query about the thread id needs not the equation of a merge computed from it (the
    merge is free otherwise); a query about the merge needs it and, through it, the thread
    id's bound. Pulling merges in through their operands made each query hold a function's
    whole arithmetic (3.8's flattened persistent matmul: 17 s, out of time)."""
    text = _module("""\
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp eq i32 %n, 0
  br i1 %c, label %a, label %b
a:
  %x = add i32 %t, 1
  br label %j
b:
  %y = mul i32 %t, 3
  br label %j
j:
  %m = phi i32 [ %x, %a ], [ %y, %b ]
""")
    fn = read_llir(text).functions[0]
    ev = Evaluator(fn, 128)
    (phi,) = [i for i in fn.instructions if i.name == "%m"]
    merge = ev.value(phi.index, 32).expr
    assert ev.tid is not None
    bound = z3.ULT(ev.tid, 128)
    assert [str(c) for c in ev.relevant([ev.tid])] == [str(bound)]
    got = ev.relevant([merge])
    assert len(got) == 2 and str(bound) in [str(c) for c in got]
