"""Formulas as MathML presentation markup: rendered natively by browsers, no script, offline."""

from __future__ import annotations

import html
import re

from alias_spec.model import dsl
from alias_spec.model.facts import CONSTANTS

_PREC = {"ite": 0, "or": 1, "and": 2, "not": 3, "+": 5, "-": 5, "*": 6, "%": 6}
_PREC.update({op: 4 for op in dsl.CMPOPS.values()})
_PREC.update({"//": 9, "const": 9, "var": 9})
_SYM = {"+": "+", "-": "\u2212", "*": "\u00b7", "%": "mod", "and": "\u2227", "or": "\u2228"}
_SYM.update({"<": "&lt;", "<=": "\u2264", ">": "&gt;", ">=": "\u2265", "==": "=", "!=": "\u2260"})
_FLOOR = ("\u230a", "\u230b")
_WIDE = 64  # formulas longer than this (as text) break their top-level and/or into rows


def _mo(s: str) -> str:
    return f"<mo>{s}</mo>"


def _paren(inner: str) -> str:
    return f"<mrow>{_mo('(')}{inner}{_mo(')')}</mrow>"


def _pow2_minus_1(bits: int) -> str:
    return f"<mrow><msup><mn>2</mn><mn>{bits}</mn></msup>{_mo(_SYM['-'])}<mn>1</mn></mrow>"


# Named constants: (MathML, precedence of what it prints).
_NAMED: dict[str, tuple[str, int]] = {
    "INT32_MAX": (_pow2_minus_1(31), 5),
    "INT64_MAX": (_pow2_minus_1(63), 5),
}


def mi(name: str) -> str:
    if name in _NAMED:
        return _NAMED[name][0]
    if name in CONSTANTS:
        return f'<mi mathvariant="normal">{html.escape(name)}</mi>'
    m = re.fullmatch(r"([a-z])(\d)", name)
    if m:  # c0 -> c with subscript 0
        return f"<msub><mi>{m.group(1)}</mi><mn>{m.group(2)}</mn></msub>"
    return f"<mi>{html.escape(name)}</mi>"


def _prec(e: dsl.Expr) -> int:
    if e.op == "var" and str(e.value) in _NAMED:
        return _NAMED[str(e.value)][1]
    if e.op == "const" and not isinstance(e.value, bool) and int(e.value) < 0:  # type: ignore[arg-type]
        return 9  # printed in parentheses
    return _PREC[e.op]


def mathml_inline(e: dsl.Expr, parent: int = -1) -> str:
    """MathML presentation markup (no <math> wrapper) for one formula, on one line."""
    op = e.op
    prec = _prec(e)
    if op == "const":
        if isinstance(e.value, bool):
            text = f'<mi mathvariant="normal">{"true" if e.value else "false"}</mi>'
        elif int(e.value) < 0:  # type: ignore[arg-type]
            text = _paren(f"{_mo(_SYM['-'])}<mn>{-int(e.value)}</mn>")  # type: ignore[arg-type]
        else:
            text = f"<mn>{int(e.value)}</mn>"  # type: ignore[arg-type]
    elif op == "var":
        text = mi(str(e.value))
    elif op in ("and", "or"):
        text = _mo(_SYM[op]).join(mathml_inline(a, prec) for a in e.args)
    elif op == "not":
        text = _mo("\u00ac") + mathml_inline(e.args[0], prec)
    elif op == "ite":
        c, t, f = (mathml_inline(a, prec + 1) for a in e.args)
        text = f"<mtext>if\u00a0</mtext>{c}<mtext>\u00a0then\u00a0</mtext>{t}"
        text += f"<mtext>\u00a0else\u00a0</mtext>{f}"
    elif op == "//":  # floor brackets delimit it: no parentheses needed around or inside
        a, b = mathml_inline(e.args[0], 5), mathml_inline(e.args[1], 6)
        text = f"{_mo(_FLOOR[0])}{a}{_mo('/')}{b}{_mo(_FLOOR[1])}"
    else:
        arith = op in ("+", "-", "*", "%")
        left = mathml_inline(e.args[0], prec - 1 if arith else prec)
        right = mathml_inline(e.args[1], prec - 1 if op == "+" else prec)
        text = f"{left}{_mo(_SYM[op])}{right}"
    text = f"<mrow>{text}</mrow>"
    return _paren(text) if prec <= parent else text


def _rows(e: dsl.Expr, parent: int) -> list[str]:
    """A long and/or split into one row per operand (the operator leads each later row)."""
    if e.op not in ("and", "or") or len(dsl.to_text(e)) <= _WIDE:
        return [mathml_inline(e, parent)]
    prec = _PREC[e.op]
    rows: list[str] = []
    for i, a in enumerate(e.args):
        sub = _rows(a, prec)
        if i:
            sub[0] = _mo(_SYM[e.op]) + sub[0]
        rows += sub
    if prec <= parent:
        indent = '<mspace width="1em"/>'
        rows = [_mo("(") + rows[0]] + [indent + r for r in rows[1:]]
        rows[-1] += _mo(")")
    return rows


def mathml(e: dsl.Expr, lhs: str | None = None, block: bool = True) -> str:
    """A <math> element; ``lhs`` (MathML) is prefixed as ``lhs =``."""
    if not block:
        body = mathml_inline(e)
        if lhs is not None:
            body = f"{lhs}{_mo('=')}{body}"
        return f'<math class="rule-formula">{body}</math>'
    rows = _rows(e, -1)
    if lhs is not None:
        rows[0] = f"{lhs}{_mo('=')}{rows[0]}"
    if len(rows) == 1:
        body = rows[0]
    else:
        body = "<mtable>" + "".join(f"<mtr><mtd>{r}</mtd></mtr>" for r in rows) + "</mtable>"
    return f'<math display="block" class="rule-formula">{body}</math>'


def math_div(e: dsl.Expr, lhs: str | None = None) -> str:
    return f'<div class="formula" markdown="0">{mathml(e, lhs)}</div>'
