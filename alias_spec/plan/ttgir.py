"""Deprecated: the TTGIR reader lives in ``alias_spec.ir.ttgir`` (kept here for one release)."""

from alias_spec.ir.ttgir import *  # noqa: F403
from alias_spec.ir.ttgir import Function, Module, Op, TtgirError, read_module, resolve_loc

__all__ = ["Function", "Module", "Op", "TtgirError", "read_module", "resolve_loc"]
