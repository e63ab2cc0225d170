"""Generator: the catalogue as one self-contained C++17 header (``tle_alias::check``).

Integer semantics. Facts are int64; every arithmetic subexpression is evaluated in
``__int128`` through a small value type (``detail::Int``), so ``+ - *`` on the catalogue's
formulas cannot overflow for any int64 inputs (the deepest term is a sum of a few products of
an int64 and ``ceil(int64 / 8)``). ``//`` and ``%`` follow Python's floor semantics, so the
header agrees with the reference interpreter wherever the interpreter is defined; a zero
divisor yields 0 instead of trapping (guards and short-circuits keep it unreachable on
well-formed facts; ``alias_spec/difftest/bv_proof.py`` proves the arithmetic against the
integer spec).

The trees printed here come from :func:`cpp_trees`; the proof walks the same trees.
"""

from __future__ import annotations

from alias_spec.backends.syntax import CPP, CPP_HEADER, cstr
from alias_spec.model import dsl
from alias_spec.model.catalogue import Rule, Spec, spec
from alias_spec.model.facts import FACTS

HEADER = CPP_HEADER


def nnf(e: dsl.Expr, negate: bool = False) -> dsl.Expr:
    """Push ``not`` down to boolean leaves.

    C++'s ``!`` binds tighter than comparisons, and the shared printer only parenthesises by
    the target-neutral precedence table, so the C++ trees carry ``not`` only on leaves. De
    Morgan keeps both the value and the left-to-right short-circuit order, hence also which
    subterms are evaluated."""
    op = e.op
    flip = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
    if op == "not":
        return nnf(e.args[0], not negate)
    if op in ("and", "or"):
        new_op = {"and": "or", "or": "and"}[op] if negate else op
        return dsl.Expr(new_op, tuple(nnf(a, negate) for a in e.args))
    if op == "ite":
        c, t, f = e.args
        return dsl.Expr("ite", (nnf(c), nnf(t, negate), nnf(f, negate)))
    if op == "const" and isinstance(e.value, bool):
        return dsl.const(e.value != negate)
    # Comparisons and arithmetic: normalise conditions nested inside (an int-valued ite).
    kids = tuple(nnf(a) for a in e.args)
    if op in flip and negate:
        # Integer comparisons negate exactly; a bool == or != just swaps.
        return dsl.Expr(flip[op], kids)
    out = dsl.Expr(op, kids, e.value)
    return dsl.Expr("not", (out,)) if negate else out


def cpp_trees(rule_id: str, sp: Spec | None = None) -> tuple[dsl.Expr, dsl.Expr]:
    """(guard, negated formula) exactly as printed into the header: the rule fires when
    both are true, evaluated left to right with short-circuits."""
    sp = sp or spec()
    guard, formula = sp.compiled(sp.rule(rule_id))
    return nnf(guard), nnf(formula, negate=True)


def enum_name(rule_id: str) -> str:
    """alias.offset.nonneg -> OffsetNonneg."""
    parts = rule_id.split(".")
    if parts[0] == "alias":
        parts = parts[1:]
    return "".join(p[:1].upper() + p[1:] for part in parts for p in part.split("_"))


def profile_enum(name: str) -> str:
    """A C++ identifier for a profile name: "triton-3.6" becomes "Triton_3_6"."""
    ident = "".join(ch if ch.isalnum() else "_" for ch in name)
    return ident[:1].upper() + ident[1:]


def _fn(rule_id: str) -> str:
    return "fires_" + rule_id.replace(".", "_")


def rule_function(sp: Spec, r: Rule) -> list[str]:
    """The rule's C++ function, line by line, as the header holds it (the docs show it)."""
    guard, fire = cpp_trees(r.id, sp)
    body = [f"  return {dsl.render(fire, CPP)};"]
    if guard != dsl.const(True):
        body.insert(0, f"  if (!({dsl.render(guard, CPP)})) return false;")
    if any("I(" in line for line in body):
        body.insert(0, "  using namespace detail;")
    return [f"inline bool {_fn(r.id)}(const Facts &f) {{", *body, "}"]


def masks(sp: Spec | None = None) -> dict[str, int]:
    sp = sp or spec()
    index = {r.id: i for i, r in enumerate(sp.rules)}
    return {p: sum(1 << index[r.id] for r in sp.rules_for(p)) for p in sp.profiles}


_PRELUDE = """\
namespace detail {

__extension__ typedef __int128 i128;

// Exact integers for rule arithmetic. Facts are int64 and are widened on read; the
// catalogue's deepest terms (sums of a few int64 x ceil(int64 / 8) products) stay far below
// 2^127, so + - * never overflow.
struct Int {
  i128 v;
};

constexpr Int I(std::int64_t x) { return Int{x}; }

// Python floor division and modulo. A zero divisor gives 0: every division in the catalogue
// sits behind a guard or short-circuit that makes its divisor positive on well-formed facts,
// so this branch is unreachable there; it only keeps malformed input from trapping.
constexpr i128 floor_div(i128 a, i128 b) {
  if (b == 0) return 0;
  i128 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

constexpr i128 floor_mod(i128 a, i128 b) {
  if (b == 0) return 0;
  i128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

constexpr Int operator+(Int a, Int b) { return Int{a.v + b.v}; }
constexpr Int operator-(Int a, Int b) { return Int{a.v - b.v}; }
constexpr Int operator*(Int a, Int b) { return Int{a.v * b.v}; }
constexpr Int operator/(Int a, Int b) { return Int{floor_div(a.v, b.v)}; }
constexpr Int operator%(Int a, Int b) { return Int{floor_mod(a.v, b.v)}; }
constexpr bool operator<(Int a, Int b) { return a.v < b.v; }
constexpr bool operator<=(Int a, Int b) { return a.v <= b.v; }
constexpr bool operator>(Int a, Int b) { return a.v > b.v; }
constexpr bool operator>=(Int a, Int b) { return a.v >= b.v; }
constexpr bool operator==(Int a, Int b) { return a.v == b.v; }
constexpr bool operator!=(Int a, Int b) { return a.v != b.v; }

}  // namespace detail
"""


def generate(sp: Spec | None = None) -> str:
    """The header of ``sp`` (default: the catalogue)."""
    sp = sp or spec()
    if len(sp.rules) > 64:
        raise ValueError("profile masks are 64-bit: at most 64 rules")
    n = len(sp.rules)
    out = [HEADER]
    out += [
        "// Alias rules for tle.memdesc_alias / tle.gpu.alloc(alias=...): facts in, violated",
        "// rules out. Self-contained C++17 (GCC or Clang: uses __int128).",
        "",
        "#ifndef TLE_ALIAS_RULES_H",
        "#define TLE_ALIAS_RULES_H",
        "",
        "#include <cstddef>",
        "#include <cstdint>",
        "#include <string>",
        "#include <vector>",
        "",
        "namespace tle_alias {",
        "",
        "// The primitive facts every rule is written over (see alias_spec/model/facts.py).",
        "struct Facts {",
    ]
    for f in FACTS:
        ty = "bool" if f.sort == dsl.BOOL else "std::int64_t"
        init = "false" if f.sort == dsl.BOOL else "0"
        out.append(f"  {ty} {f.name} = {init};  // {f.doc}")
    out += ["};", "", f"inline constexpr std::size_t kNumFacts = {len(FACTS)};", ""]
    out += ["inline constexpr const char *kFactNames[kNumFacts] = {"]
    out += [f"    {cstr(f.name)}," for f in FACTS]
    out += [
        "};",
        "",
        "// Sets fact `index` (kFactNames order); bool facts take 0 or 1. False if no such fact.",
        "inline bool set_fact(Facts &f, std::size_t index, std::int64_t value) {",
        "  switch (index) {",
    ]
    for i, f in enumerate(FACTS):
        value = "value != 0" if f.sort == dsl.BOOL else "value"
        out.append(f"    case {i}: f.{f.name} = {value}; return true;")
    out += [
        "  }",
        "  return false;",
        "}",
        "",
        "// Catalogue order; also the order of violations returned by check().",
        "enum class RuleId : int {",
    ]
    out += [f"  {enum_name(r.id)} = {i}," for i, r in enumerate(sp.rules)]
    out += ["};", "", f"inline constexpr std::size_t kNumRules = {n};", ""]
    out += ["inline constexpr const char *kRuleIds[kNumRules] = {"]
    out += [f"    {cstr(r.id)}," for r in sp.rules]
    out += ["};", "", "inline constexpr const char *kMessages[kNumRules] = {"]
    out += [f"    {cstr(r.message)}," for r in sp.rules]
    out += ["};", ""]
    out += ["enum class Profile : int {"]
    out += [f"  {profile_enum(p)} = {i}," for i, p in enumerate(sp.profiles)]
    out += ["};", "", f"inline constexpr std::size_t kNumProfiles = {len(sp.profiles)};", ""]
    out += ["inline constexpr const char *kProfileNames[kNumProfiles] = {"]
    out += [f"    {cstr(p)}," for p in sp.profiles]
    out += [
        "};",
        "",
        "// Bit i set: the profile enforces rule i.",
        "inline constexpr std::uint64_t kProfileMasks[kNumProfiles] = {",
    ]
    out += [f"    0x{m:x}u,  // {p}" for p, m in masks(sp).items()]
    out += [
        "};",
        "",
        "struct Violation {",
        "  RuleId rule;",
        "  std::string id;",
        "  std::string message;",
        "};",
        "",
        _PRELUDE,
    ]
    for r in sp.rules:
        out += [f"// {r.id}: {r.title}.", *rule_function(sp, r), ""]
    out += [
        "// Whether one rule fires (its guard holds and its formula does not).",
        "inline bool fires(RuleId rule, const Facts &f) {",
        "  switch (rule) {",
    ]
    out += [f"    case RuleId::{enum_name(r.id)}: return {_fn(r.id)}(f);" for r in sp.rules]
    out += [
        "  }",
        "  return false;",
        "}",
        "",
        "// Every rule of the profile that fires, in catalogue order.",
        "inline std::vector<Violation> check(const Facts &f, Profile profile) {",
        "  std::vector<Violation> out;",
        "  const std::uint64_t mask = kProfileMasks[static_cast<int>(profile)];",
        "  for (std::size_t i = 0; i < kNumRules; ++i) {",
        "    const RuleId rule = static_cast<RuleId>(i);",
        "    if (((mask >> i) & 1u) != 0 && fires(rule, f))",
        "      out.push_back(Violation{rule, kRuleIds[i], kMessages[i]});",
        "  }",
        "  return out;",
        "}",
        "",
        "}  // namespace tle_alias",
        "",
        "#endif  // TLE_ALIAS_RULES_H",
        "",
    ]
    return "\n".join(out)
