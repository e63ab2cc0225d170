"""The reuse planner: its placements are right (``reuse.verify``), smallest (against a brute
force over every aligned placement on small declarations) and proved so; the checks a
placement must pass each catch their defect; TLX's greedy rule misaligns nested distinct groups.
"""

from __future__ import annotations

import itertools
import random

import pytest

from alias_spec.model import reuse
from alias_spec.model.reuse import Group, ReuseError
from alias_spec.semantics.reuse import first_fit, plan


def _phases(sizes_aligns_uses: list[tuple[int, int, tuple[str, ...]]]) -> reuse.Declarations:
    bufs, uses = [], {}
    for i, (elems, swz, used) in enumerate(sizes_aligns_uses):
        bufs.append(reuse.buffer(f"b{i}", [elems], 8, swz))
        uses[f"b{i}"] = used
    phases = sorted({p for _, _, u in sizes_aligns_uses for p in u})
    return reuse.declare(bufs, uses=uses, phases=phases, capacity=10**6)


def _brute_force(d: reuse.Declarations, limit: int) -> int:
    """The smallest total over every aligned placement with starts below ``limit``."""
    best = None
    grids = [range(0, limit, b.align) for b in d.buffers]
    for starts in itertools.product(*grids):
        offsets = {b.name: o for b, o in zip(d.buffers, starts, strict=True)}
        total = max(o + b.size for b, o in zip(d.buffers, starts, strict=True))
        if (best is None or total < best) and not reuse.verify(d, offsets, total):
            best = total
    assert best is not None
    return best


def _random_declarations(rng: random.Random) -> reuse.Declarations:
    n = rng.randint(2, 4)
    spec = [
        (rng.choice([16, 48, 80, 256, 272]), rng.choice([0, 0, 32]),
         tuple(rng.sample(["p0", "p1", "p2"], rng.randint(1, 2))))
        for _ in range(n)
    ]  # fmt: skip
    return _phases(spec)


@pytest.mark.parametrize("seed", range(40))
def test_plan_is_the_smallest_aligned_placement(seed: int) -> None:
    d = _random_declarations(random.Random(seed))
    p = plan(d)
    offsets = dict(p.offsets)
    assert reuse.verify(d, offsets, p.total) == []
    ff = first_fit(d)
    limit = max(ff[b.name] + b.size for b in d.buffers)
    assert p.total == _brute_force(d, limit)
    assert p.optimal and p.lower_bound <= p.total


def test_the_search_beats_first_fit_somewhere() -> None:
    """The z3 search is not first fit in disguise: on some declarations it finds less."""
    better = 0
    for seed in range(60):
        d = _random_declarations(random.Random(seed))
        ff = first_fit(d)
        if plan(d).total < max(ff[b.name] + b.size for b in d.buffers):
            better += 1
    assert better > 0


def test_verify_names_each_defect() -> None:
    d = _phases([(256, 32, ("p0",)), (256, 0, ("p0",)), (64, 0, ("p1",))])
    assert reuse.verify(d, {"b0": 0, "b1": 256, "b2": 0}, 512) == []
    assert "not a multiple of 256" in reuse.verify(d, {"b0": 16, "b1": 512, "b2": 0}, 768)[0]
    assert "share bytes [128, 256)" in reuse.verify(d, {"b0": 0, "b1": 128, "b2": 0}, 512)[0]
    assert "ends past" in reuse.verify(d, {"b0": 0, "b1": 256, "b2": 480}, 512)[0]
    small = reuse.declare(d.buffers, uses=dict(d.uses), phases=list(d.phases), capacity=400)
    assert "more than the 400 available" in reuse.verify(small, {"b0": 0, "b1": 256, "b2": 0},
                                                        512)[0]  # fmt: skip


def test_group_conflicts_follow_the_innermost_group() -> None:
    bufs = [reuse.buffer(n, [64], 16) for n in "abcd"]
    tree = Group("shared", (Group("distinct", ("a", Group("shared", ("b", "c")))), "d"))
    d = reuse.declare(bufs, groups=tree)
    assert reuse.conflicts(d) == {frozenset("ab"), frozenset("ac")}
    assert reuse.lower_bound(d) == 256


def test_greedy_misaligns_a_nested_distinct_group() -> None:
    """TLX's rule puts a distinct member right after the one before it: after a 200-byte
    buffer, a 128-byte-swizzled tile lands at byte 200, not on its 1024-byte repeat. The
    planner keeps it aligned in the same footprint."""
    bufs = [reuse.buffer("x", [100], 16), reuse.buffer("y", [64, 64], 16, 128),
            reuse.buffer("z", [128, 64], 16, 128)]  # fmt: skip
    d = reuse.declare(bufs, groups=Group("shared", (Group("distinct", ("x", "y")), "z")))
    offsets, total = reuse.greedy(d)
    assert offsets["y"] == 200
    assert reuse.verify(d, offsets, total) == ["y starts at byte 200, not a multiple of 1024"]
    p = plan(d)
    assert p.total == total and reuse.verify(d, dict(p.offsets), p.total) == []


def test_greedy_needs_groups() -> None:
    with pytest.raises(ReuseError, match="group tree"):
        reuse.greedy(_phases([(16, 0, ("p0",))]))


@pytest.mark.parametrize(
    "call,field",
    [
        (lambda b: reuse.declare(b, uses={"a": ["main"], "b": ["epilog"]}, phases=["main", "epi"]),
         "uses.b"),
        (lambda b: reuse.declare(b, uses={"a": ["main"]}, phases=["main"]), "uses.b"),
        (lambda b: reuse.declare(b, uses={"a": "main", "b": "main", "c": "main"}, phases=["main"]),
         "uses"),
        (lambda b: reuse.declare(b), "uses"),
        (lambda b: reuse.declare(b, uses={}, phases=[], groups=Group("shared", ("a", "b"))), "uses"),
        (lambda b: reuse.declare(b, groups=Group("shared", ("a",))), "buffers.b"),
        (lambda b: reuse.declare(b, groups=Group("shared", ("a", "b", "a"))), "buffers.a"),
        (lambda b: reuse.declare(b, groups=Group("both", ("a", "b"))), "groups"),
        (lambda b: reuse.declare(b, groups=Group("shared", ("a", "q"))), "groups"),
        (lambda b: reuse.declare(b + b, uses={}, phases=["x"]), "buffers.a"),
        (lambda b: reuse.declare(b, uses={"a": "x", "b": "x"}, phases=["x"], capacity=0),
         "capacity"),
    ],
)  # fmt: skip
def test_bad_declarations_name_the_part(call, field: str) -> None:
    bufs = [reuse.buffer("a", [64], 16), reuse.buffer("b", [64], 16)]
    with pytest.raises(ReuseError) as exc:
        call(bufs)
    assert exc.value.field == field, str(exc.value)


@pytest.mark.parametrize(
    "args,field",
    [
        (("1a", [4], 16), "buffers"),
        (("a", [], 16), "buffers.a.shape"),
        (("a", [0], 16), "buffers.a.shape"),
        (("a", [True], 16), "buffers.a.shape"),
        (("a", [4], 4), "buffers.a.dtype"),
        (("a", [4], 12), "buffers.a.dtype"),
        (("a", [4], 16, 48), "buffers.a.layout"),
        (("a", [2**20, 2**20], 16), "buffers.a.shape"),
    ],
)
def test_bad_buffers_name_the_part(args: tuple, field: str) -> None:
    with pytest.raises(ReuseError) as exc:
        reuse.buffer(*args)
    assert exc.value.field == field


def test_a_plan_that_cannot_fit_says_how_much_it_needs() -> None:
    bufs = [reuse.buffer("a", [1024], 8), reuse.buffer("b", [1024], 8)]
    d = reuse.declare(bufs, uses={"a": "x", "b": "x"}, phases=["x"], capacity=1500)
    with pytest.raises(ReuseError, match="at least 2048 bytes, more than the 1500 available"):
        plan(d)


def test_sixty_four_buffers_plan_within_bounds() -> None:
    """The size the benchmark prices: 64 buffers over 8 phases, planned and verified."""
    rng = random.Random(7)
    phases = [f"p{i}" for i in range(8)]
    bufs = [reuse.buffer(f"b{i}", [rng.choice([16, 32, 64, 128]), 64], 16, rng.choice([0, 128]))
            for i in range(64)]  # fmt: skip
    uses = {b.name: rng.sample(phases, 2) for b in bufs}
    d = reuse.declare(bufs, uses=uses, phases=phases, capacity=10**8)
    p = plan(d)
    assert reuse.verify(d, dict(p.offsets), p.total) == []
    assert p.lower_bound <= p.total


def test_root_alignment_covers_every_buffer() -> None:
    """The allocation holding a plan is aligned as its most demanding buffer needs: the
    narrowest NVMMA swizzle whose repeat covers it; past 1024 bytes no layout can."""

    def d(*bufs: reuse.Buffer) -> reuse.Declarations:
        return reuse.declare(list(bufs), groups=Group("shared", tuple(b.name for b in bufs)))

    assert reuse.root_swizzle(d(reuse.buffer("a", [64], 16))) == 0
    assert reuse.root_swizzle(d(reuse.buffer("a", [64], 16, 64))) == 64
    assert reuse.root_swizzle(d(reuse.buffer("a", [64], 16, alignment=128))) == 32
    assert reuse.root_swizzle(d(reuse.buffer("a", [64], 16, 32),
                                reuse.buffer("b", [64], 16, 128))) == 128  # fmt: skip
    with pytest.raises(ReuseError, match="needs 2048-byte alignment") as exc:
        reuse.root_swizzle(d(reuse.buffer("a", [64], 16, alignment=2048)))
    assert exc.value.field == "buffers.a.layout"
    assert reuse.buffer("a", [64], 16, alignment=256).align == 256


def _one_phase(n: int) -> tuple[list[reuse.Buffer], dict[str, str]]:
    return [reuse.buffer(f"b{i}", [16], 8) for i in range(n)], {f"b{i}": "p" for i in range(n)}


def _over_buffers() -> None:
    bufs, uses = _one_phase(reuse.MAX_BUFFERS + 1)
    reuse.declare(bufs, uses=uses, phases=["p"])


def _over_phases() -> None:
    phases = [f"p{i}" for i in range(reuse.MAX_PHASES + 1)]
    reuse.declare([reuse.buffer("a", [16], 8)], uses={"a": "p0"}, phases=phases)


def _over_uses() -> None:
    # Counted as written: a phase named again counts again (the input is what is bounded).
    many = ["p"] * (reuse.MAX_USES + 1)
    reuse.declare([reuse.buffer("a", [16], 8)], uses={"a": many}, phases=["p"])


def _over_paddings() -> None:
    reuse.buffer("a", [64], 16, padding=[[2**i, 1] for i in range(1, reuse.MAX_PADDINGS + 2)])


def _over_depth() -> None:
    g: Group | str = "a"
    for _ in range(reuse.MAX_DEPTH + 1):
        g = Group("shared", (g,))
    reuse.declare([reuse.buffer("a", [16], 8)], groups=g)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call,field,text",
    [
        (_over_buffers, "buffers", f"at most {reuse.MAX_BUFFERS} buffers, got 257"),
        (_over_phases, "phases", f"at most {reuse.MAX_PHASES} phases, got 65537"),
        (_over_uses, "uses", f"at most {reuse.MAX_USES} (buffer, phase) uses"),
        (_over_paddings, "buffers.a.layout", "at most 8 pairs"),
        (_over_depth, "groups", "deeper than 16"),
    ],
)
def test_each_bound_is_one_error_line_naming_the_field(call, field: str, text: str) -> None:
    with pytest.raises(ReuseError) as exc:
        call()
    line = str(exc.value)
    assert exc.value.field == field and line.startswith(f"{field}: ")
    assert text in line and "\n" not in line and len(line) < 200


def test_bounds_are_the_documented_ones() -> None:
    # The reuse planner guide states these numbers; a change must change it too.
    bounds = (reuse.MAX_BUFFERS, reuse.MAX_PHASES, reuse.MAX_USES, reuse.MAX_PADDINGS)
    assert bounds == (256, 65536, 1048576, 8) and reuse.MAX_DEPTH == 16


def test_many_phases_within_the_bound_plan() -> None:
    """4 buffers over 2,000 phases, each in use in every fourth phase from its own: a and c
    share phases, as do b and d (the benchmark's shape, smaller; its timing is benchmarks/)."""
    phases = [f"p{i}" for i in range(2000)]
    bufs = [reuse.buffer(n, [256], 8) for n in "abcd"]
    uses = {n: phases[i % 2 :: 2] for i, n in enumerate("abcd")}
    d = reuse.declare(bufs, uses=uses, phases=phases)
    assert reuse.conflicts(d) == {frozenset("ac"), frozenset("bd")}
    p = plan(d)
    assert p.total == 512 and p.optimal and reuse.verify(d, dict(p.offsets), p.total) == []


def test_groups_nest_exactly_max_depth_deep() -> None:
    g: Group | str = "a"
    for _ in range(reuse.MAX_DEPTH):
        g = Group("shared", (g,))
    d = reuse.declare([reuse.buffer("a", [16], 8)], groups=g)  # type: ignore[arg-type]
    assert plan(d).total == 16
