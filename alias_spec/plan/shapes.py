"""z3 terms read once, through z3's C API, into plain records: what numpy's evaluation of a term
at every point (``exhaust.py``) walks, node by node, many times over.

Walking a term through z3's Python objects costs a wrapper, its reference counting and a
finaliser per node and per question (its kind, its children, its width); read here once, a
node is a tuple of ints, and the walk is a dictionary lookup. Ids are z3's own
(``ExprRef.get_id``); the terms read are kept alive by their ``Shapes``, so that no id is
reused while it holds their nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

MEMO_KEY = "shapes"  # the entry of a memo of values (``exhaust.py``) holding its terms' nodes
NUMERAL = -1  # the op of a bit-vector numeral
OTHER = -2  # the op of a node that is no application (a quantifier, a bound variable)
# Ops whose integer parameters a node keeps (bit positions, widths).
_PARAMS = {z3.Z3_OP_EXTRACT, z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT, z3.Z3_OP_ROTATE_LEFT,
           z3.Z3_OP_ROTATE_RIGHT, z3.Z3_OP_REPEAT}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Node:
    op: int  # z3's Z3_OP_* kind of the application, or NUMERAL, or OTHER
    width: int  # bits of a bit-vector; 0 for a Boolean
    kids: tuple[int, ...] = ()  # the ids of its arguments
    value: int = 0  # a numeral's value
    name: str = ""  # a variable's name (an application of no argument, uninterpreted)
    params: tuple[int, ...] = ()  # EXTRACT's (high, low), an extension's width, and so on


class Shapes:
    """Nodes by id, for every term read here (and every term inside one)."""

    def __init__(self) -> None:
        self.nodes: dict[int, Node] = {}
        self._kept: list[z3.ExprRef] = []

    def read(self, e: z3.ExprRef) -> int:
        """The id of ``e``, its nodes read (once)."""
        ctx = e.ctx_ref()
        root = e.as_ast()
        rid = z3.Z3_get_ast_id(ctx, root)
        if rid in self.nodes:
            return rid
        self._kept.append(e)  # its subterms live as long as it does
        nodes = self.nodes
        todo = [root]
        while todo:
            a = todo.pop()
            i = z3.Z3_get_ast_id(ctx, a)
            if i in nodes:
                continue
            sort = z3.Z3_get_sort(ctx, a)
            bv = z3.Z3_get_sort_kind(ctx, sort) == z3.Z3_BV_SORT
            width = z3.Z3_get_bv_sort_size(ctx, sort) if bv else 0
            kind = z3.Z3_get_ast_kind(ctx, a)
            if kind == z3.Z3_NUMERAL_AST:
                nodes[i] = Node(NUMERAL, width, value=int(z3.Z3_get_numeral_string(ctx, a)))
                continue
            if kind != z3.Z3_APP_AST:
                nodes[i] = Node(OTHER, width)
                continue
            d = z3.Z3_get_app_decl(ctx, a)
            op = z3.Z3_get_decl_kind(ctx, d)
            args = [z3.Z3_get_app_arg(ctx, a, k) for k in range(z3.Z3_get_app_num_args(ctx, a))]
            name = ""
            if not args and op == z3.Z3_OP_UNINTERPRETED:
                name = z3.Z3_get_symbol_string(ctx, z3.Z3_get_decl_name(ctx, d))
            params: tuple[int, ...] = ()
            if op in _PARAMS:
                params = tuple(z3.Z3_get_decl_int_parameter(ctx, d, k)
                               for k in range(z3.Z3_get_decl_num_parameters(ctx, d)))  # fmt: skip
            kids = tuple(z3.Z3_get_ast_id(ctx, x) for x in args)
            nodes[i] = Node(op, width, kids, name=name, params=params)
            todo.extend(x for x, k in zip(args, kids, strict=True) if k not in nodes)
        return rid
