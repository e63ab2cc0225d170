"""The generated FlagTree verifier glue, compiled against the MLIR stand-in and run on types.

The glue reads its facts from memdesc types itself, so these tests compare what it emits with
the interpreter on the facts the request parser extracts (two independent extractions of the
same facts), and its first-error build with a transcription of FlagTree's verifier sequence.
"""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

import pytest

from alias_spec.engines import cpp_glue
from alias_spec.model.catalogue import RULES
from alias_spec.model.dtypes import dtype_bits
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INT32_MAX, INT64_MAX
from alias_spec.model.interp import check_facts
from alias_spec.model.request import parse_request
from tests.paths import CASES as CASE_DIR

CASES = sorted(CASE_DIR.glob("*.json"))
PROFILES = cpp_glue.GLUE_PROFILES
pytestmark = pytest.mark.skipif(not cpp_glue.glue_available(), reason="no C++ compiler (g++)")


def _alias_cases() -> list[dict[str, Any]]:
    out = []
    for path in CASES:
        case = json.loads(path.read_text())
        req = case.get("request", case)
        if isinstance(req, dict) and req.get("op", "tle.memdesc_alias") == "tle.memdesc_alias":
            out.append(req)
    return out


def _interp(obj: Any, profile: str) -> list[str] | RequestError:
    try:
        return check_facts(parse_request(obj).facts, profile).rule_ids()
    except RequestError as exc:
        return exc


def _req(src_shape: list[Any], res_shape: list[Any], off: int = 0, **kw: Any) -> dict[str, Any]:
    src = {"shape": src_shape, "dtype": kw.pop("src_dtype", "i8")}
    res = {"shape": res_shape, "dtype": kw.pop("res_dtype", "i8")}
    src.update(kw.pop("src", {}))
    res.update(kw.pop("res", {}))
    return {"source": src, "result": res, "alias_offset_bytes": off, **kw}


# --- a transcription of FlagTree's MemDescAliasOp::verify (first error only) ----------------


def _byte_size(shape: list[int | None], bits: int) -> int | None:
    """FlagTree's static byte size: count dim by dim, overflow checked before each multiply,
    then times the element bytes (None for a zero-width element or an int64 overflow)."""
    count = 1
    for d in shape:
        if d is None or d < 0:
            return None
        if d != 0 and count > INT64_MAX // d:
            return None
        count *= d
    eb = (bits + 7) // 8
    if eb <= 0 or count > INT64_MAX // eb:
        return None
    return count * eb


def _side(obj: dict[str, Any], who: str) -> tuple[list[int | None], int, str, bool]:
    side = obj[who]
    bits = dtype_bits(side["dtype"], f"{who}.dtype")
    return side["shape"], bits, side.get("space", "smem"), side.get("mutable", True)


def flagtree_first_error(obj: dict[str, Any]) -> list[str]:
    src_shape, src_bits, src_space, src_mut = _side(obj, "source")
    res_shape, res_bits, res_space, res_mut = _side(obj, "result")
    off = obj["alias_offset_bytes"]
    if src_space != res_space:
        return ["alias.space.match"]
    if src_space != "smem":
        return ["alias.scope.smem"]
    if res_mut and not src_mut:
        return ["alias.mutability"]
    if off < 0:
        return ["alias.offset.nonneg"]
    if off > INT32_MAX:
        return ["alias.offset.i32"]
    res_eb = (res_bits + 7) // 8
    if res_eb <= 0:
        return ["alias.dtype.addressable"]
    if off % res_eb:
        return ["alias.offset.aligned"]
    src_bytes, res_bytes = _byte_size(src_shape, src_bits), _byte_size(res_shape, res_bits)
    if src_bytes is None or res_bytes is None:
        return ["alias.size.static"]
    if res_bytes > src_bytes or off > src_bytes - res_bytes:
        return ["alias.range.fits"]
    return []


# --- random requests ------------------------------------------------------------------------

BIG = [2**31, 2**32 + 1, 2**62, 2**63 - 1, 3037000500, 3037000499]


def _dim(rng: random.Random) -> int | None:
    r = rng.random()
    if r < 0.55:
        return rng.choice([1, 2, 4, 8, 16, 32, 64, 3, 5])
    if r < 0.7:
        return 0
    if r < 0.8:
        return rng.choice([None, -1])
    return rng.choice(BIG)


def _dtype(rng: random.Random) -> Any:
    return rng.choice(
        ["i8", "fp16", "fp32", "i1", "f64", {"bits": 0}, {"bits": 9}, {"bits": 2**31}]
    )


def _layout(rng: random.Random) -> Any:
    return rng.choice([None, None, {"kind": "swizzled"}] + [{"kind": "nvmma", "swizzle_bytes": w} for w in (0, 32, 64, 128)])  # fmt: skip


def random_request(rng: random.Random) -> dict[str, Any]:
    src: dict[str, Any] = {"dtype": _dtype(rng), "mutable": rng.random() < 0.9}
    if rng.random() < 0.4:
        # A subslice view of a static allocation, sometimes with extra leading buffer dims.
        alloc = [rng.choice([1, 2, 4, 8, 16, 64]) for _ in range(rng.randint(1, 3))]
        rank = rng.randint(1, len(alloc))
        shape = [rng.randint(0, a) for a in alloc[len(alloc) - rank :]]
        padded = [1] * (len(alloc) - rank) + shape
        offsets = [rng.randint(0, a - s) if i >= len(alloc) - rank else 0
                   for i, (a, s) in enumerate(zip(alloc, padded, strict=True))]  # fmt: skip
        src.update(shape=shape, alloc_shape=alloc, view_offsets=offsets)
    else:
        src["shape"] = [_dim(rng) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.8:
        src["layout"] = _layout(rng)
    res: dict[str, Any] = {
        "shape": [_dim(rng) for _ in range(rng.randint(1, 3))],
        "dtype": _dtype(rng),
        "mutable": rng.random() < 0.9,
        "layout": _layout(rng),
    }
    space = rng.choice(["smem"] * 8 + ["tmem", "global"])
    src["space"] = space
    res["space"] = space if rng.random() < 0.9 else rng.choice(["smem", "tmem", "global"])
    off = rng.choice([0, 0, 1, 2, 64, 128, 1024, 4096, -1, INT32_MAX, INT32_MAX + 1,
                      INT64_MAX, -(2**63), rng.randint(0, 1 << 16)])  # fmt: skip
    if rng.random() < 0.35:
        # Steer towards requests that pass most checks, so valid verdicts get exercised too.
        src.update(space="smem", mutable=True, dtype=rng.choice(["i8", "fp16", "fp32"]))
        res.update(space="smem", mutable=True, dtype=rng.choice(["i8", "fp16"]))
        res["shape"] = [rng.choice([0, 1, 2, 4]) for _ in range(rng.randint(1, 2))]
        off = rng.choice([0, 2, 4, 16, 64])
    return {"source": src, "result": res, "alias_offset_bytes": off}


# --- tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_case_requests_agree_with_the_interpreter(profile: str) -> None:
    reqs = _alias_cases()
    got = cpp_glue.judge(reqs, profile, sanitize=True)
    judged = 0
    for req, g in zip(reqs, got, strict=True):
        want = _interp(req, profile)
        if isinstance(g, RequestError):
            assert "outside the glue's domain" in g.problem or isinstance(want, RequestError), g
            continue
        assert g == want, (req, g, want)
        judged += 1
    assert judged >= 25  # most shipped cases are expressible as an op


def _overflow_edges() -> list[dict[str, Any]]:
    m = INT64_MAX
    return [
        _req([2**62, 4, 0], [1]),  # zero dim after the count overflowed: not static
        _req([0, 2**62, 4], [1]),  # zero dim first: static, 0 bytes
        _req([2**62, 0, 4], [0]),
        _req([3037000500, 3037000500], [1]),  # count just over INT64_MAX
        _req([3037000499, 3037000499], [1]),  # count just under
        _req([m], [1]),  # dims at INT64_MAX
        _req([m, 1], [m]),
        _req([m, 2], [1]),
        _req([1], [m]),
        _req([m], [1], src_dtype="fp16"),  # count fits, bytes do not
        _req([m // 2], [1], src_dtype="fp16"),  # bytes exactly INT64_MAX - 1
        _req([16], [4], src_dtype={"bits": 0}),  # zero-width source elements
        _req([0], [0], src_dtype={"bits": 0}),
        _req([16], [4], res_dtype={"bits": 0}),
        _req([16], [0], src_dtype={"bits": 0}, off=INT64_MAX),
        _req([None, 0], [1]),
        _req([-1, 2**62, 4], [1]),
        _req([2**62, 4, -1], [1]),
    ]


@pytest.mark.parametrize("profile", PROFILES)
def test_overflow_edges_agree_with_the_interpreter(profile: str) -> None:
    reqs = _overflow_edges()
    got = cpp_glue.judge(reqs, profile, sanitize=True)
    for req, g in zip(reqs, got, strict=True):
        assert not isinstance(g, RequestError), (req, g)
        assert g == _interp(req, profile), req
    # The verdicts the edges exist for, stated independently of both engines.
    assert "alias.size.static" in got[0] and "alias.size.static" not in got[1]
    assert "alias.size.static" in got[3] and "alias.size.static" not in got[4]
    assert got[5] == [] and "alias.size.static" not in got[6] and "alias.size.static" in got[7]
    assert "alias.size.static" in got[9] and "alias.size.static" not in got[10]


def test_dims_and_offsets_outside_int64_are_rejected() -> None:
    reqs = [_req([0, 2**63], [1]), _req([1], [2**64]), _req([16], [1], off=2**63)]
    got = cpp_glue.judge(reqs, "flagtree")
    fields = ["source.shape[1]", "result.shape[0]", "alias_offset_bytes"]
    for g, fld in zip(got, fields, strict=True):
        assert isinstance(g, RequestError) and g.field == fld, g
    # No int64 shape holds such a dim: the model rejects the request too. An offset past
    # int64 is judged by the model (alias.offset.i32), but no i64 attribute can hold it.
    for req, fld in zip(reqs[:2], fields, strict=False):
        want = _interp(req, "flagtree")
        assert isinstance(want, RequestError) and want.field == fld
    assert "alias.offset.i32" in _interp(reqs[2], "flagtree")  # type: ignore[operator]


def test_requests_the_op_cannot_express_say_why() -> None:
    base = _req([64], [16])
    outside = {
        "init_value": {**base, "init_value": 0},
        "source.kind": {**base, "source": {**base["source"], "kind": "tensor"}},
        "scope": {**base, "scope": "tmem"},
        "alias_offset_bytes": {**base, "alias_offset_bytes": 1.0},
        "source.base_offset_bytes": {**base, "source": {**base["source"], "base_offset_bytes": 16}},
        "source.alloc_alignment": {**base, "source": {**base["source"], "alloc_alignment": 8}},
        "op": {"op": "ttg.memdesc_reinterpret", "source": base["source"], "result": base["result"]},
        "source.view_offsets": _req(
            [16], [4], src={"alloc_shape": [2, 16], "view_offsets": [1, 0]}
        ),
    }
    got = cpp_glue.judge(list(outside.values()), "safe")
    for (fld, _), g in zip(outside.items(), got, strict=True):
        assert isinstance(g, RequestError) and g.field == fld, (fld, g)
    # Stating what the glue derives is not outside it.
    same = {**base, "source": {**base["source"], "alloc_alignment": 16, "base_offset_bytes": 0}}
    assert cpp_glue.judge([same, base], "safe") == [[], []]
    assert cpp_glue.judge([], "safe") == []
    with pytest.raises(ValueError, match="only for profiles"):
        cpp_glue.judge([base], "triton-3.6")


@pytest.mark.parametrize("profile", PROFILES)
def test_random_requests_agree_with_the_interpreter(profile: str) -> None:
    rng = random.Random(20240917)
    reqs, wants = [], []
    while len(reqs) < 600:
        req = random_request(rng)
        want = _interp(req, profile)
        if isinstance(want, RequestError):
            continue
        reqs.append(req)
        wants.append(want)
    got = cpp_glue.judge(reqs, profile, sanitize=True)
    bad = [(r, g, w) for r, g, w in zip(reqs, got, wants, strict=True) if g != w]
    assert not bad, bad[:3]
    assert sum(1 for w in wants if not w) > 30  # valid verdicts are exercised too
    assert sum(1 for w in wants if "alias.size.static" in w) > 30


def test_first_error_build_matches_flagtree_sequence() -> None:
    rng = random.Random(5)
    reqs = [random_request(rng) for _ in range(800)] + _overflow_edges()
    reqs = [r for r in reqs if not isinstance(_interp(r, "flagtree"), RequestError)]
    reqs += [_req([16], [4], src={"space": "tmem"})]  # both checks fail: spaces come first
    got = cpp_glue.judge(reqs, "flagtree", sanitize=True, first_error_only=True)
    want = [flagtree_first_error(r) for r in reqs]
    bad = [(r, g, w) for r, g, w in zip(reqs, got, want, strict=True) if g != w]
    assert not bad, bad[:3]
    assert got[-1] == ["alias.space.match"]
    assert len({tuple(w) for w in want}) >= 8  # most of FlagTree's checks come first somewhere


def test_zero_width_source_is_not_static_as_in_flagtree() -> None:
    # FlagTree finds no static byte size for a zero-width source element type.
    reqs = [_req([16], [4], src_dtype={"bits": 0}), _req([0], [0], src_dtype={"bits": 0})]
    got = cpp_glue.judge(reqs, "flagtree", first_error_only=True)
    assert got == [flagtree_first_error(r) for r in reqs] == [["alias.size.static"]] * 2


def test_messages_are_flagtree_verifier_texts() -> None:
    from alias_spec.backends.gen_mlir import verifier_message

    line = cpp_glue.encode(_req([16], [4], off=-1, src={"mutable": False}, src_dtype="fp16"))
    (row,) = cpp_glue.run_lines([line], "flagtree", messages=True)
    texts = row.split("\t")
    by_id = {r.id: r for r in RULES}
    assert len(texts) == 2
    for text, rule_id in zip(texts, ["alias.mutability", "alias.offset.nonneg"], strict=True):
        assert text == f"'tle.memdesc_alias' op {verifier_message(by_id[rule_id])} [{rule_id}]"


def test_subslice_chain_sums_offsets() -> None:
    # A 16x16 i8 view of a 32x32 allocation, 3 columns in: one subslice, or a chain of two.
    # An fp32 alias at its start sits 3 bytes into the allocation: misaligned (safe profile).
    head = "src shape=16,16 alloc=32,32 elem=8 enc=other space=smem mutable=1"
    tail = "res shape=4 elem=32 enc=other space=smem mutable=1 off=0:64"
    lines = [
        f"{head} sub=0,3 {tail}",
        f"{head} sub=0,1 sub=0,2 {tail}",
        f"{head} sub=0,4 {tail}",
        f"{head} {tail}",
    ]
    got = cpp_glue.run_lines(lines, "safe", sanitize=True)
    assert got == ["alias.address.aligned", "alias.address.aligned", "", ""]
    assert cpp_glue.run_lines(lines, "flagtree", sanitize=True) == ["", "", "", ""]


@pytest.mark.parametrize(
    "line",
    [
        "",
        "src shape=1 elem=8 enc=other space=smem mutable=1",
        "src shape=1 elem=8 enc=other space=smem mutable=1 res shape=1 elem=8 enc=other "
        "space=smem mutable=1",  # no off
        "src shape=x elem=8 enc=other space=smem mutable=1 res shape=1 elem=8 enc=other "
        "space=smem mutable=1 off=0:64",
        "src shape=99999999999999999999 elem=8 enc=other space=smem mutable=1 res shape=1 "
        "elem=8 enc=other space=smem mutable=1 off=0:64",
        "src shape=1 elem=8 enc=other space=smem mutable=1 res shape=1 elem=8 enc=other "
        "space=smem mutable=1 off=128:8",  # does not fit in i8
        "src shape=1 sub=2147483648 elem=8 enc=other space=smem mutable=1 res shape=1 elem=8 "
        "enc=other space=smem mutable=1 off=0:64",
        "src shape=1 elem=8 enc=other space=smem mutable=1 res shape=1 sub=0 elem=8 enc=other "
        "space=smem mutable=1 off=0:64",  # sub on the result
        "src shape=1 shape=2 elem=8 enc=other space=smem mutable=1 res shape=1 elem=8 "
        "enc=other space=smem mutable=1 off=0:64",
        "src shape=1 elem=8 enc=nvmma space=smem mutable=1 res shape=1 elem=8 enc=other "
        "space=smem mutable=2 off=0:64",
    ],
)
def test_malformed_driver_lines_exit_2(line: str) -> None:
    binary = cpp_glue.build("flagtree", sanitize=True)
    proc = subprocess.run(
        [str(binary)],
        input=line + "\n",
        capture_output=True,
        text=True,
        env=cpp_glue.sanitizer_env(),
        check=False,
        timeout=60,
    )
    assert proc.returncode == 2, (line, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("glue_main: line 1: ") and proc.stderr.count("\n") == 1
    assert proc.stdout == ""


def test_a_wide_offset_attribute_is_reported_without_a_rule() -> None:
    line = ("src shape=4 elem=8 enc=other space=smem mutable=1 res shape=4 elem=8 enc=other "
            "space=smem mutable=1 off=0:65")  # fmt: skip
    assert cpp_glue.run_lines([line], "flagtree", sanitize=True) == [
        "!'tle.memdesc_alias'_op_expects_an_i64_offset_bytes_attribute"
    ]
