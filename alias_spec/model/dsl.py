"""The rule expression language.

Formulas are written in a small subset of Python expression syntax (integers, names,
``+ - * // %``, comparisons, ``and or not``, ``a if c else b``) and parsed into an immutable
tree. The tree is the single thing every backend renders: the interpreter evaluates it, the
solver turns it into z3 terms, the generators print it as Python or C++ and the docs as math.

Integers are mathematical (unbounded). In the catalogue ``//`` and ``%`` only divide by
a positive number on facts that meet ``facts.INVARIANTS`` (every parsed request does; the
guards keep the left side non-negative), so floor and Euclidean division agree there.
Outside the invariants they may differ: the interpreter and generated code floor, z3 is
Euclidean (see tests/regressions/).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass

INT = "int"
BOOL = "bool"

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class FormulaError(ValueError):
    """A formula text that is not in the language, or is ill-sorted."""


@dataclass(frozen=True)
class Expr:
    """A node: ``op`` is 'const', 'var', an arithmetic or comparison operator, 'and', 'or',
    'not' or 'ite'; ``args`` holds child nodes; ``value`` the constant or variable name."""

    op: str
    args: tuple[Expr, ...] = ()
    value: int | bool | str | None = None

    def __str__(self) -> str:
        return to_text(self)


def const(v: int | bool) -> Expr:
    return Expr("const", value=v)


def var(name: str) -> Expr:
    return Expr("var", value=name)


def parse(text: str) -> Expr:
    """Parse formula text into a tree (no name resolution yet)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse formula {text!r}: {exc.msg}") from None
    return _convert(tree.body, text)


def _convert(node: ast.AST, text: str) -> Expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int)):
        return const(node.value)
    if isinstance(node, ast.Name):
        return var(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return Expr("not", (_convert(node.operand, text),))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return Expr("-", (const(0), _convert(node.operand, text)))
    if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
        return Expr(BINOPS[type(node.op)], (_convert(node.left, text), _convert(node.right, text)))
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return Expr(op, tuple(_convert(v, text) for v in node.values))
    if isinstance(node, ast.Compare):
        parts = []
        left = _convert(node.left, text)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            if type(op) not in CMPOPS:
                raise FormulaError(f"unsupported comparison in {text!r}")
            right = _convert(right_node, text)
            parts.append(Expr(CMPOPS[type(op)], (left, right)))
            left = right
        return parts[0] if len(parts) == 1 else Expr("and", tuple(parts))
    if isinstance(node, ast.IfExp):
        return Expr(
            "ite",
            (_convert(node.test, text), _convert(node.body, text), _convert(node.orelse, text)),
        )
    raise FormulaError(f"unsupported syntax {ast.dump(node)[:60]} in {text!r}")


def free_vars(e: Expr) -> set[str]:
    if e.op == "var":
        return {str(e.value)}
    out: set[str] = set()
    for a in e.args:
        out |= free_vars(a)
    return out


def substitute(e: Expr, env: Mapping[str, Expr]) -> Expr:
    """Replace variables by expressions (used to inline definitions)."""
    if e.op == "var":
        return env.get(str(e.value), e)
    if not e.args:
        return e
    return Expr(e.op, tuple(substitute(a, env) for a in e.args), e.value)


def sort_of(e: Expr, sorts: Mapping[str, str]) -> str:
    """Type-check ``e`` against variable sorts; return its sort or raise FormulaError."""
    op = e.op
    if op == "const":
        return BOOL if isinstance(e.value, bool) else INT
    if op == "var":
        if e.value not in sorts:
            raise FormulaError(f"unknown name {e.value!r}")
        return sorts[str(e.value)]
    kids = [sort_of(a, sorts) for a in e.args]
    if op in ("+", "-", "*", "//", "%"):
        _expect(kids, INT, e)
        return INT
    if op in ("<", "<=", ">", ">="):
        _expect(kids, INT, e)
        return BOOL
    if op in ("==", "!="):
        if kids[0] != kids[1]:
            raise FormulaError(f"comparison of {kids[0]} with {kids[1]} in {to_text(e)}")
        return BOOL
    if op in ("and", "or", "not"):
        _expect(kids, BOOL, e)
        return BOOL
    if op == "ite":
        if kids[0] != BOOL or kids[1] != kids[2]:
            raise FormulaError(f"ill-sorted conditional {to_text(e)}")
        return kids[1]
    raise FormulaError(f"unknown operator {op}")


def _expect(kids: list[str], want: str, e: Expr) -> None:
    if any(k != want for k in kids):
        raise FormulaError(f"operator {e.op} expects {want} operands in {to_text(e)}")


def evaluate(e: Expr, env: Mapping[str, int | bool]) -> int | bool:
    """Interpret ``e`` over concrete values (Python ints are unbounded, as the spec is).

    ``and``/``or``/``ite`` short-circuit, so a guarded division is never reached."""
    op = e.op
    if op == "const":
        return e.value  # type: ignore[return-value]
    if op == "var":
        return env[str(e.value)]
    if op == "and":
        return all(evaluate(a, env) for a in e.args)
    if op == "or":
        return any(evaluate(a, env) for a in e.args)
    if op == "not":
        return not evaluate(e.args[0], env)
    if op == "ite":
        c, t, f = e.args
        return evaluate(t, env) if evaluate(c, env) else evaluate(f, env)
    a, b = (evaluate(x, env) for x in e.args)
    return _ARITH[op](a, b)


_ARITH: dict[str, Callable[[int, int], int | bool]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}

# Binding strength, loosest first, for printing without redundant parentheses.
_PREC = {"ite": 0, "or": 1, "and": 2, "not": 3}
for _op in CMPOPS.values():
    _PREC[_op] = 4
_PREC.update({"+": 5, "-": 5, "*": 6, "//": 6, "%": 6, "const": 9, "var": 9})


@dataclass(frozen=True)
class Syntax:
    """How one target language spells the operators; ``name`` maps a variable name."""

    and_: str
    or_: str
    not_: str
    ite: Callable[[str, str, str], str]
    true: str
    false: str
    name: Callable[[str], str]
    ops: Mapping[str, str]
    integer: Callable[[int], str] = str


PYTHON = Syntax(
    and_=" and ",
    or_=" or ",
    not_="not ",
    ite=lambda c, t, f: f"{t} if {c} else {f}",
    true="True",
    false="False",
    name=lambda n: n,
    ops={},
)


def render(e: Expr, syn: Syntax, parent: int = -1) -> str:
    """Print ``e`` in a C-like or Python-like target, parenthesising by precedence."""
    op = e.op
    prec = _PREC[op]
    if op == "const":
        if isinstance(e.value, bool):
            return syn.true if e.value else syn.false
        text = syn.integer(int(e.value))  # type: ignore[arg-type]
        return f"({text})" if int(e.value) < 0 else text  # type: ignore[arg-type]
    if op == "var":
        return syn.name(str(e.value))
    if op in ("and", "or"):
        sep = syn.and_ if op == "and" else syn.or_
        text = sep.join(render(a, syn, prec) for a in e.args)
    elif op == "not":
        text = syn.not_ + render(e.args[0], syn, prec)
    elif op == "ite":
        c, t, f = (render(a, syn, prec + 1) for a in e.args)
        text = syn.ite(c, t, f)
    else:
        sym = syn.ops.get(op, op)
        # Arithmetic is left-associative; comparisons never chain unparenthesised.
        arith = op in ("+", "-", "*", "//", "%")
        left = render(e.args[0], syn, prec - 1 if arith else prec)
        right = render(e.args[1], syn, prec - 1 if op == "+" else prec)
        text = f"{left} {sym} {right}"
    # An ``and`` directly under an ``or`` needs no parentheses, but C compilers warn about it
    # (-Wparentheses), and the generated header builds with -Werror.
    nested_and = op == "and" and parent == _PREC["or"]
    return f"({text})" if prec <= parent or nested_and else text


def to_text(e: Expr) -> str:
    """Canonical formula text (parseable again by :func:`parse`)."""
    return render(e, PYTHON)
