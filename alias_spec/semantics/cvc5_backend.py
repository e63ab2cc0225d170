"""cvc5 as a second, independent decision procedure for the same SMT-LIB queries."""

from __future__ import annotations


def check_smt2(text: str, timeout_ms: int = 60000) -> str:
    """'sat', 'unsat' or 'unknown' for an SMT-LIB 2 script (its check-sat is ours to run)."""
    try:
        import cvc5
    except ImportError:
        return "cvc5 not installed"
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("tlimit-per", str(timeout_ms))
    solver.setLogic("ALL")
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
