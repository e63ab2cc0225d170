"""What the command line offers, said without importing it: the commands, their one-line help
and the extra each one needs. The console script reads this on the base install (no extras),
where the command line itself cannot be imported, to answer ``--help`` and ``--version`` and to
name the extra to install; ``cli.py`` builds its parser from the same text. Standard library
only."""

from __future__ import annotations

import textwrap

from alias_spec import __version__

PROG = "alias-spec"
DESCRIPTION = (
    "Shared-memory alias rules for Triton-family compilers: check requests, list the rules, "
    "prove theorems about them, generate the compiler checks."
)
EXAMPLE = "examples/request.json"
EPILOG = f"Try: {PROG} check {EXAMPLE}"

# Each command's one-line help, in the order the parser lists them. ``plan``'s parser lives in
# alias_spec/plan/cli.py; a test keeps its help equal to the line here.
SUMMARY: dict[str, str] = {
    "check": "judge alias requests (JSON file or - for stdin)",
    "rules": "list the rule catalogue",
    "schema": "print the JSON Schema of a request",
    "prove": "prove the theorems about the rules (z3 and cvc5)",
    "gen": "regenerate the compiler checks, or --check they are fresh",
    "prove-cpp": "prove the generated C++ arithmetic overflow-free",
    "fuzz": "differential fuzzing campaign across engines",
    "lint": "find unsafe memdesc views in a TTGIR/MLIR dump",
    "plan": "validate a compiled kernel's shared-memory plan (and its LLVM IR addresses)",
    "plan-run": "run a Python program with every Triton kernel it compiles judged by plan",
    "triton-diff": "compare the triton-* profiles with a Triton release's real verifiers",
    "docs": "build or serve the documentation site",
    "dev": "the project's own tools: regenerate corpora, mutation score, Triton campaigns",
}

# The extra that installs everything a command needs (pyproject.toml); ``spec`` otherwise.
EXTRA: dict[str, str] = {"plan": "plan", "plan-run": "plan", "docs": "docs"}

# ``alias-spec dev TOOL``: each tool's module and one-line help. A tool's module keeps its own
# parser (``main(argv)``, which gets the rest of the line) and is imported only when the tool
# runs: some need Triton, and the command line must start without it.
DEV_TOOLS: dict[str, tuple[str, str]] = {
    "gpu-corpus": (
        "alias_spec.difftest.gpu_corpus",
        "regenerate tests/gpu/corpus.json (alias chains whose offsets z3 picks at the edges)",
    ),
    "lowering-check": (
        "alias_spec.difftest.lowering_check",
        "compile the GPU corpus with the installed Triton, record each case's recipes",
    ),
    "mutate": (
        "alias_spec.difftest.mutate",
        "the mutation score of the differential suite (each rule broken in each backend)",
    ),
    "random-diff": (
        "alias_spec.difftest.triton.random_diff",
        "random view requests against a Triton release's verifiers, disagreements shrunk",
    ),
    "boundary": (
        "alias_spec.semantics.boundary",
        "regenerate tests/corpus/boundary.jsonl (requests on both sides of each rule's edge)",
    ),
    "campaigns": (
        "alias_spec.difftest.campaigns",
        "the differential campaigns (engines, requests, triton) at CI's sample size or --full",
    ),
    "tiers": (
        "alias_spec.docgen.tiers",
        "regenerate README.md's table of test tiers (counts collected, times measured), or --check",
    ),
}


def extra_for(command: str | None) -> str:
    return EXTRA.get(command or "", "spec")


def install_line(command: str | None) -> str:
    """How to install what ``command`` needs (every command when None)."""
    return f"pip install 'tle-alias-spec[{extra_for(command)}]'"


def version_line() -> str:
    return f"{PROG} {__version__}"


def base_help(missing: str) -> str:
    """The top-level help without the command line: the commands, and what to install because
    ``missing`` (a module) is not here."""
    width = max(map(len, SUMMARY))
    lines = [
        f"usage: {PROG} [-h] [--version] COMMAND ...",
        "",
        textwrap.fill(DESCRIPTION, 88),
        "",
        "commands:",
        *(f"  {name:<{width}}  {text}" for name, text in SUMMARY.items()),
        "",
        f"{missing} is not installed here, and every command needs it: {install_line(None)}",
        f"(plan: {install_line('plan')}; docs: {install_line('docs')}).",
        EPILOG,
    ]
    return "\n".join(lines)
