"""cvc5 as a second, independent decision procedure for the same SMT-LIB queries."""

from __future__ import annotations

# cvc5's configurations, tried in turn while the answer is unknown. Its default nonlinear
# integer search gives up on products of unknowns equated across a hypothesis (a recipe
# theorem's ``src_elems * src_bits == count * res_elems * res_bits`` on Triton 3.8: unknown
# after 240 s); tangent planes, interleaved with its other lemmas, prove it in seconds. Either
# answer is cvc5's own; only a query the first leaves unknown pays for the second.
CONFIGS: tuple[dict[str, str], ...] = (
    {},
    {"nl-ext-tplanes": "true", "nl-ext-tplanes-interleave": "true"},
)


# Each configuration first gets this much (the whole budget, if that is less), then, while the
# answer is unknown, each again the whole budget. Given the whole budget first, the default
# search spent two minutes to all of its 240 s on a part of the 3.8 index recipe that tangent
# planes prove in seconds. A query both leave unknown at first pays at most 2 x FIRST_MS more
# than before; a decided answer is still cvc5's own, from one configuration within its budget.
FIRST_MS = 15_000


def check_smt2(text: str, timeout_ms: int = 60000) -> str:
    """'sat', 'unsat' or 'unknown' for an SMT-LIB 2 script (its check-sat is ours to run):
    each of ``CONFIGS`` gets ``FIRST_MS``, then each ``timeout_ms``, until one decides."""
    try:
        import cvc5  # noqa: F401
    except ImportError:
        return "cvc5 not installed"
    budgets = [timeout_ms] if timeout_ms <= FIRST_MS else [FIRST_MS, timeout_ms]
    for budget in budgets:
        for options in CONFIGS:
            result = _check(text, budget, options)
            if result != "unknown":
                return result
    return "unknown"


def _check(text: str, timeout_ms: int, options: dict[str, str]) -> str:
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("tlimit-per", str(timeout_ms))
    solver.setLogic("ALL")
    for key, value in options.items():
        solver.setOption(key, value)
    parser = cvc5.InputParser(solver)
    parser.setStringInput(
        cvc5.InputLanguage.SMT_LIB_2_6, text.replace("(check-sat)", ""), "theorem"
    )
    symbols = parser.getSymbolManager()
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        cmd.invoke(solver, symbols)
    result = solver.checkSat()
    if result.isSat():
        return "sat"
    if result.isUnsat():
        return "unsat"
    return "unknown"
