"""The `alias-spec` command line."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

from alias_spec.commands import DESCRIPTION, DEV_TOOLS, EPILOG, PROG, SUMMARY, version_line
from alias_spec.commands import EXAMPLE as EXAMPLE  # importable from here, as before
from alias_spec.engines import registry
from alias_spec.engines.cpp_engine import CppEngineError
from alias_spec.engines.registry import DEFAULT as DEFAULT_ENGINE
from alias_spec.engines.registry import NAMES as ENGINES
from alias_spec.engines.registry import EngineUnavailable

# Importable from here before 0.2.0 (an engine by name); kept for one release.
from alias_spec.engines.registry import implications as implications
from alias_spec.engines.registry import judge as judge
from alias_spec.ir.inputs import MAX_INPUT_BYTES, MAX_INPUT_MIB, InputError, read_text, shown
from alias_spec.model.catalogue import DEFAULT_PROFILE, PROFILES, RULES, rule, rules_for
from alias_spec.model.errors import RequestError, one_line
from alias_spec.model.request import Request, load_requests
from alias_spec.model.verdict import Verdict
from alias_spec.semantics.verdict import verdict_json

_CHUNK = 2**20


class UsageError(Exception):
    """Bad input: printed as one line on stderr, exit status 2."""


def _input_name(path: str) -> str:
    """How an error names the input: its path, or ``input`` for stdin."""
    return shown(path)


def _read(path: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a file, or of stdin for ``-`` (``ir.inputs``); a UsageError naming
    the input when it cannot be read."""
    try:
        return read_text(path, limit)
    except InputError as exc:
        raise UsageError(str(exc)) from None


def _printable(text: str, stream: IO[str]) -> str:
    """``text`` as ``stream`` can encode it: what it cannot (a lone surrogate from a JSON
    escape, any non-ASCII under an ASCII locale) becomes a backslash escape."""
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(enc)
        return text
    except (UnicodeEncodeError, LookupError):
        return text.encode(enc, "backslashreplace").decode(enc, "replace")


_reader = {"gone": False}  # set once stdout's reader has closed the pipe


def _out(text: str) -> None:
    """Print one block on stdout. A reader that stops early (``| head -1``) is not an error:
    the rest of the output goes nowhere and the command still ends with its own status."""
    try:
        print(_printable(text, sys.stdout), flush=True)
    except BrokenPipeError:
        _reader["gone"] = True
        _drop_stdout()


def _drop_stdout() -> None:
    """Send what is left of stdout to the null device, so the exit's final flush cannot raise
    again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _fmt_values(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _human(verdict: Verdict, name: str, implied: dict[str, str] | None = None) -> str:
    from alias_spec.model.describe import describe

    implied = implied or {}
    head = f"{name}: " if name else ""
    k = len(verdict.not_judged)
    unjudged = f"{k} rule{'s' * (k != 1)} not judged: {', '.join(verdict.not_judged)}"
    if verdict.valid and not k:
        lines = [f"{head}valid under {verdict.profile}"]
    elif verdict.valid:
        lines = [f"{head}PARTIAL: valid under {verdict.profile} for the judged rules; {unjudged}"]
    else:
        n = len(verdict.violations)
        also = f" ({len(implied)} implied by another)" if implied else ""
        lines = [f"{head}INVALID under {verdict.profile}: {n} rule{'s' * (n != 1)} violated"
                 + also + (f"; {unjudged}" if k else "")]  # fmt: skip
    for v in verdict.violations:
        r = rule(v.rule)
        cause = implied.get(v.rule)
        lines.append(f"  [{v.rule}] {'also: ' if cause else ''}{v.message}")
        if v.values:
            lines.append(f"      values: {describe(v.values)}")
        if cause:
            # Same bytes as the rule that implies it: its why and fix are that rule's.
            lines.append(f"      implied by {cause}: it fails only where {cause} fails "
                         "on these sizes, and that rule's fix fixes it")  # fmt: skip
            continue
        lines.append(f"      why: {r.prose}")
        if v.fix:
            lines.append(f"      fix: {_fmt_values(v.fix)}")
    if k:
        lines.append(f"  not judged because {verdict.not_judged_reason}")
    lines += [f"  note: {n}" for n in verdict.notes]
    return "\n".join(lines)


# A list's bad entries are reported on one stderr line; past this many characters the rest
# are counted, not shown.
BAD_SHOWN_CHARS = 300


def _bad_line(where: str, bad: list[RequestError], total: int) -> str:
    parts: list[str] = []
    for exc in bad:
        if parts and sum(len(p) + 2 for p in parts) + len(str(exc)) > BAD_SHOWN_CHARS:
            break
        parts.append(str(exc))
    more = len(bad) - len(parts)
    line = where + "; ".join(parts) + (f"; and {more} more" if more else "")
    if total > 1:
        line += f" ({len(bad)} of {total} requests not judged)"
    return line


def cmd_check(args: argparse.Namespace) -> int:
    from alias_spec.model.request import parse_requests

    name = _input_name(args.file)
    where = "" if args.file == "-" else f"{args.file}: "
    try:
        items = load_requests(_read(args.file))
    except RequestError as exc:
        if exc.field == "input":  # the whole input: named by its file
            raise UsageError(f"{name}: {exc.problem}") from None
        raise UsageError(f"{where}{exc}") from None
    if not items:
        raise UsageError(f"{name}: no requests (an empty list)")
    parsed = parse_requests(items)
    bad = [p for p in parsed if isinstance(p, RequestError)]
    verdicts: list[tuple[int, Request, Verdict, dict[str, str]]] = []
    registry.get(args.engine)  # an engine that cannot run here: one line, exit 2, at once
    for i, p in enumerate(parsed):
        if isinstance(p, Request):
            v = registry.judge(p, args.profile, args.engine, not args.no_fix)
            verdicts.append((i, p, v, {} if args.no_fix else implications(p, v)))
    if verdicts and args.json:
        out: list[dict[str, Any]] = []
        by_index = {i: (req, v, imp) for i, req, v, imp in verdicts}
        for i, p in enumerate(parsed):
            item_name = items[i].get("name") if isinstance(items[i], dict) else None
            item_name = item_name if isinstance(item_name, str) else None
            if isinstance(p, RequestError):
                # Not judged: no verdict, and never "valid".
                named = {"name": item_name} if item_name is not None else {}
                out.append({**named, "valid": None, "status": "error", "error": str(p)})
            else:
                req, v, imp = by_index[i]
                out.append(verdict_json(v, item_name, imp))
        _out(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    elif verdicts:
        for i, req, v, imp in verdicts:
            label = req.raw.get("name") or (f"request[{i}]" if len(parsed) > 1 else "")
            _out(_human(v, one_line(str(label)), imp))
    if bad:
        raise UsageError(_bad_line(where, bad, len(parsed)))
    if not all(v.valid for _, _, v, _ in verdicts):
        return 1
    return 3 if any(v.not_judged for _, _, v, _ in verdicts) else 0


def cmd_rules(args: argparse.Namespace) -> int:
    chosen = rules_for(args.profile) if args.profile else RULES
    if args.json:
        _out(json.dumps({"rules": [r.model_dump() for r in chosen]}, indent=2))
        return 0
    lines = []
    for r in chosen:
        lines.append(f"{r.id:<26} [{', '.join(r.profiles)}] {r.title}")
        lines.append(f"{'':<26} holds when: {r.display_formula()}")
        if r.guard != "True":
            lines.append(f"{'':<26} evaluated when: {r.display_guard()}")
    _out("\n".join(lines))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from alias_spec.model.schema import schema_text

    _out(schema_text().rstrip("\n"))
    return 0


def _err(text: str) -> None:
    """A progress or summary line on stderr, flushed at once."""
    print(_printable(text, sys.stderr), file=sys.stderr, flush=True)


def cmd_prove(args: argparse.Namespace) -> int:
    import time

    from alias_spec.semantics import theorems, triton_theorems

    solvers = ("z3", "cvc5") if args.solver == "both" else (args.solver,)
    modules = {"alias": [theorems], "triton": [triton_theorems], "all": [theorems,
               triton_theorems]}[args.set]  # fmt: skip
    plan = [
        (mod, t.id)
        for mod in modules
        for t in mod.all_theorems()
        if args.only is None or t.id.startswith(args.only)
    ]
    if not plan:
        raise UsageError(f"--only: no theorem id in set {args.set!r} starts with {args.only!r}")
    start = time.perf_counter()
    outcomes: list[Any] = []
    done: set[str] = set()
    for mod, tid in plan:
        if tid in done:
            continue
        # One theorem at a time through the module's own prove (which adds the witnesses its
        # findings keep), so each is shown as soon as it is decided; the id as prefix may
        # bring theorems whose ids extend it, shown then too.
        for o in mod.prove(solvers, tid):
            if o.theorem.id in done:
                continue
            done.add(o.theorem.id)
            outcomes.append(o)
            _show_outcome(o, len(outcomes), len(plan), args.json)
            if _reader["gone"]:  # nobody reads the rest: stop, not minutes of solving
                raise BrokenPipeError
    took = time.perf_counter() - start
    if args.json:
        measured = {"seconds": round(took, 3), **_solver_versions(solvers),
                    "cpus": os.cpu_count()}  # fmt: skip
        _out(json.dumps({"theorems": [o.to_json() for o in outcomes], "measured": measured},
                        indent=1))  # fmt: skip
    statuses = [o.status for o in outcomes]
    findings = statuses.count("finding")
    summary = (f"{len(outcomes)} theorems in {took:.1f} s: "
               f"{statuses.count('proved')} proved, {findings} finding{'s' * (findings != 1)}, "
               f"{statuses.count('failed')} failed")  # fmt: skip
    if args.json:
        _err(summary)
    else:
        _out(summary)
    return 0 if "failed" not in statuses else 1


def _solver_versions(solvers: Sequence[str]) -> dict[str, str]:
    """The release of each solver used: a theorem's time depends on it."""
    out = {}
    if "z3" in solvers:
        import z3

        out["z3"] = z3.get_version_string()
    if "cvc5" in solvers:
        import cvc5

        out["cvc5"] = str(getattr(cvc5, "__version__", "unknown"))
    return out


def _show_outcome(o: Any, k: int, n: int, as_json: bool) -> None:
    j = o.to_json()
    if as_json:  # stdout holds the one JSON document: progress goes to stderr
        _err(f"[{k}/{n}] {j['status'].upper()} {j['id']} ({j['seconds']:.2f}s)")
        return
    via = ", ".join(f"{s}: {r}" for s, r in j["solvers"].items())
    lines = [f"{j['status'].upper():<8} {j['id']} ({via}; {j['seconds']:.2f}s)",
             f"         {j['statement']}"]  # fmt: skip
    if j["status"] != "proved" or j["id"].startswith("unsafe_accept."):
        for role, ex in (j["counterexample"] or {}).items():
            shown = ex.get("request", ex.get("facts"))
            lines.append(f"         {role}: {json.dumps(shown)}")
    _out("\n".join(lines))


def cmd_gen(args: argparse.Namespace) -> int:
    from pathlib import Path

    from alias_spec.gen import run

    return run(check=args.check, root=Path(args.root))


def cmd_prove_cpp(args: argparse.Namespace) -> int:
    from alias_spec.difftest.bv_proof import main

    ids = [r.id for r in RULES if args.only is None or r.id.startswith(args.only)]
    if not ids:
        raise UsageError(f"--only: no rule id starts with {args.only!r}")
    if args.timeout_ms < 1:
        raise UsageError("--timeout-ms: must be at least 1")
    return main(ids, args.timeout_ms)


def cmd_fuzz(args: argparse.Namespace) -> int:
    from alias_spec.difftest.fuzz import main

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES]
    if bad or len(engines) < 2:
        raise UsageError(f"--engines: needs two or more of {', '.join(ENGINES)}")
    if args.cases < 1:
        raise UsageError("--cases: must be at least 1")
    from pathlib import Path

    regressions = Path(args.regressions) if args.regressions else None
    if regressions is not None and regressions.exists() and not regressions.is_dir():
        raise UsageError(f"--regressions: {regressions} is not a directory")
    seed_cases = Path(args.seed_cases) if args.seed_cases else None
    if seed_cases is not None and not seed_cases.is_dir():
        raise UsageError(f"--seed-cases: {seed_cases} is not a directory")
    _err(f"fuzzing {args.cases:,} cases (seed {args.seed}) with {', '.join(engines)}")
    return main(args.cases, args.seed, engines, save_dir=regressions, seed_cases=seed_cases)


def cmd_lint(args: argparse.Namespace) -> int:
    import warnings

    from alias_spec.ir.kind import ReleaseWarning, problem, profile_warning
    from alias_spec.lint.lint import exit_status, lint_text, to_json, to_sarif, to_text
    from alias_spec.lint.mlir_views import MlirError

    text = _read(args.file)
    why = problem(text)  # another stage of the compiler, or a literal MLIR refuses
    if why is not None:
        raise UsageError(f"{_input_name(args.file)}: {why}")
    other = profile_warning(text, args.profile)  # judged all the same
    if other is not None:
        warnings.warn(f"{_input_name(args.file)}: {other}", ReleaseWarning, stacklevel=1)
    try:
        report = lint_text(text, args.file, args.profile)
    except MlirError as exc:  # read, but not a module lint understands
        raise UsageError(f"{_input_name(args.file)}: {exc}") from None
    if args.format == "json":
        _out(json.dumps(to_json(report), indent=2))
    elif args.format == "sarif":
        _out(json.dumps(to_sarif(report), indent=2))
    else:
        _out(to_text(report))
    return exit_status(report)


def cmd_triton_diff(args: argparse.Namespace) -> int:
    from alias_spec.difftest.triton.diff import BadInput, command

    try:
        return command(
            python=args.python,
            write=args.write,
            docs=args.docs_dir,
            seed=args.seed,
            near=args.near,
            random=args.random,
            limit=args.limit,
            show=args.show,
            as_json=args.json,
        )
    except BadInput as exc:
        raise UsageError(str(exc)) from None


TRITON_DIFF_HELP = """\
Judge about 1800 view requests (ttg.memdesc_reinterpret, _subslice, _index: each rule's
boundary, near misses of valid views, random draws) twice: by the spec profile of a Triton
release and by that release's own C++ verifiers (parse and verify of a one-op module; an abort
counts as a rejection), and report where they differ. Releases with a profile: {releases}.

Another release runs in its own virtual environment, which needs only Triton:
  python -m venv v38 && v38/bin/pip install triton==3.8.0
  alias-spec triton-diff --python v38/bin/python --write

--write replaces that release's row of docs/triton-agreement.json and .md and keeps the
other releases' rows. Exit status: 0 every case agrees (or differs as a known Triton
finding), 1 an unexplained disagreement (a bug in the model), 2 bad input (e.g. an
interpreter without Triton).""".format(
    # From the catalogue, so a new triton-* profile shows up here by itself.
    releases=", ".join(p.removeprefix("triton-") for p in PROFILES if p.startswith("triton-"))
)


def cmd_docs(args: argparse.Namespace) -> int:
    from pathlib import Path

    from alias_spec.docgen.docsite import main

    return main(args.action, Path(args.root), dev_addr=args.addr)


def cmd_plan_run(args: argparse.Namespace) -> int:
    from alias_spec.plan.hook import main

    return int(main(args.rest))


def cmd_dev(args: argparse.Namespace) -> int:
    import importlib

    module, _ = DEV_TOOLS[args.tool]
    try:
        return int(importlib.import_module(module).main(args.rest))
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "triton":
            raise  # an extra's module (z3, pydantic): the entry point names the extra
        raise UsageError(f"triton is not installed, and {PROG} dev {args.tool} needs it: "
                         "pip install 'tle-alias-spec[triton]'") from None  # fmt: skip


DEV_HELP = """\
The project's own tools, for a checkout: they regenerate the committed corpora and measure the
test suite and the model against Triton releases. Each takes its own arguments, which
'alias-spec dev TOOL --help' lists; exit status as each tool says (2 for bad arguments)."""


def _add_passing_on(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A command whose module parses the rest of the line itself (``main(argv)``): its own
    --help and errors are the module's, which is imported only when the command runs."""
    p = sub.add_parser(name, add_help=False, **kwargs)
    p.set_defaults(passes_on=True)
    return p


class _Formatter(argparse.HelpFormatter):
    """Help that shows each option's default (unless the help text already says it, or the
    option is a flag or has no default)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or isinstance(action, argparse._HelpAction)
        ):
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


class _RawFormatter(_Formatter, argparse.RawDescriptionHelpFormatter):
    """The same, keeping the description's own line breaks."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        fmt = kwargs["formatter_class"]
        if fmt is argparse.RawDescriptionHelpFormatter:  # a subcommand's own choice
            kwargs["formatter_class"] = _RawFormatter
        super().__init__(**kwargs)


PROFILE_HELP = "the rule set to judge by: " + ", ".join(PROFILES)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("--version", action="version", version=version_line())
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser(
        "check",
        help=SUMMARY["check"],
        description="Judge each request (a tle.memdesc_alias request, or a stock Triton view "
        "with an 'op' field) by the profile's rules. A layout whose byte placement the spec "
        "does not model (padded_shared, shared_linear, a tensor memory encoding) or tensor "
        "memory leaves the rules that need byte positions not judged: the verdict names them. "
        "A list is judged entry by entry: a malformed entry is reported by its index and the "
        "others are still judged. The verdict comes from --engine; fix suggestions and which "
        "violation implies which come from z3 whatever the engine. "
        "Exit status: 0 every request valid with every rule judged, 1 a rule fires in some "
        "request, 2 malformed input (one line on stderr naming the field), 3 no rule fires "
        "but some rules were not judged (status 'partial' in --json).",
    )
    c.add_argument(
        "file",
        help=f"a JSON request, a list of requests, or - for stdin (at most {MAX_INPUT_MIB} MiB)",
    )
    c.add_argument("--profile", choices=list(PROFILES), default=DEFAULT_PROFILE, help=PROFILE_HELP)
    c.add_argument(
        "--engine",
        choices=ENGINES,
        default=DEFAULT_ENGINE,
        help="which engine gives the verdicts (all give the same ones; python is the fastest, "
        "z3 the slowest)",
    )
    c.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    c.add_argument(
        "--no-fix", action="store_true", help="skip z3's fix suggestions and implications"
    )
    c.set_defaults(func=cmd_check)

    r = sub.add_parser(
        "rules",
        help=SUMMARY["rules"],
        description="List every rule (or one profile's): its id, the profiles enforcing it, "
        "its title, the formula that must hold and the guard under which it is evaluated.",
    )
    r.add_argument("--profile", choices=list(PROFILES), help="only this profile's rules")
    r.add_argument("--json", action="store_true", help="the rules as JSON, formulas included")
    r.set_defaults(func=cmd_rules)

    sc = sub.add_parser(
        "schema",
        help=SUMMARY["schema"],
        description="Print the JSON Schema (draft 2020-12) of what check reads: one request or "
        "a non-empty list of requests. It is generated from the request models "
        "(alias_spec/model/schema.py) and published as docs/request.schema.json. It says what "
        "is a request, not what is valid: values the rules judge are allowed.",
    )
    sc.set_defaults(func=cmd_schema)

    pr = sub.add_parser(
        "prove",
        help=SUMMARY["prove"],
        description="Decide every theorem about the rule set with z3 and again with cvc5. "
        "Set 'alias': satisfiability, independence of each rule, guards, soundness, "
        "composition, refinement of the alias profiles. Set 'triton': views each Triton "
        "release accepts that are unsafe (smallest witness), 3.8 reinterprets as aliases, "
        "and the frontend's Gluon recipes per release. A theorem is PROVED (holds, as "
        "expected), a FINDING (refuted, as expected: the counterexample is kept) or FAILED "
        "(a solver disagrees or gives up). Each theorem is printed as soon as it is decided "
        "(with --json, a progress line per theorem goes to stderr), then a summary line. "
        "Exit 0 when nothing failed, 1 otherwise. Everything took 74 s on 2 CPUs with z3 5.4.1 "
        "and cvc5 1.4.2; docs/theorems.md gives each theorem's time. "
        "--json output is what docs/data/theorems.json holds. When the reader of the output "
        "goes away (prove | head), prove stops (exit 141).",
    )
    pr.add_argument(
        "--set", choices=("alias", "triton", "all"), default="all", help="which theorems"
    )
    pr.add_argument(
        "--solver", choices=("z3", "cvc5", "both"), default="both", help="which solvers decide"
    )
    pr.add_argument("--only", metavar="PREFIX", help="only theorems whose id starts so")
    pr.add_argument("--json", action="store_true", help="one JSON document on stdout")
    pr.set_defaults(func=cmd_prove)

    g = sub.add_parser(
        "gen",
        help=SUMMARY["gen"],
        description="Write every file generated from the catalogue: the checks under "
        "alias_spec/generated/ (alias_checks.py, alias_rules.h, MemDescAliasOpVerify.cpp, "
        "recipes.py) and the docs pages (docs/rules/*.md, docs/profiles.md, docs/theorems.md, "
        "docs/guides/lowering-recipes.md, docs/data/examples.json, docs/request-schema.md, "
        "docs/request.schema.json). With --check nothing is "
        "written: exit 1 and list the stale files if any differs from what the catalogue "
        "generates, else 0.",
    )
    g.add_argument("--check", action="store_true", help="exit 1 if any generated file is stale")
    g.add_argument("--root", default=".", metavar="DIR", help="the checkout to generate into")
    g.set_defaults(func=cmd_gen)

    b = sub.add_parser(
        "prove-cpp",
        help=SUMMARY["prove-cpp"],
        description="Prove, with z3 over 64-bit bit-vectors, that every rule's generated C++ "
        "(alias_rules.h) computes what the rule says: no intermediate overflows int64, no "
        "division by zero, and the checked result equals the formula over mathematical "
        "integers. One line per rule as it is decided, then a summary line. Exit 0 when "
        "every rule is proved, 1 otherwise. Takes seconds (7.6 s for all 56 rules on 2 CPUs).",
    )
    b.add_argument(
        "--only", metavar="PREFIX", help="only rules whose id starts so (default: every rule)"
    )
    b.add_argument(
        "--timeout-ms", type=int, default=60_000, metavar="MS", help="solver time limit per query"
    )
    b.set_defaults(func=cmd_prove_cpp)

    f = sub.add_parser(
        "fuzz",
        help=SUMMARY["fuzz"],
        description="Judge the same cases with every engine named by --engines and report any "
        "disagreement, shrunk to a minimal repro. Cases: z3 boundary cases (computed once, then "
        "read from the cache), valid-by-construction, random and perturbed facts, parsed "
        "requests and an exhaustive small-scope sweep. z3 judges the boundary cases and a "
        "sample of 20,000 of the others. Prints cases per second per engine; exit 0 when all "
        "agree, 1 on a divergence.",
    )
    f.add_argument(
        "--cases", type=int, required=True, metavar="N", help="how many cases (e.g. 10000)"
    )
    f.add_argument("--seed", type=int, default=0, help="random seed of the campaign")
    f.add_argument(
        "--engines",
        default=",".join(registry.FUZZ),
        help=f"two or more of {','.join(ENGINES)}, comma-separated",
    )
    f.add_argument("--regressions", metavar="DIR", help="save shrunk divergences here")
    f.add_argument(
        "--seed-cases", metavar="DIR", help="verdict-case files whose requests seed the inputs"
    )
    f.set_defaults(func=cmd_fuzz)

    li = sub.add_parser(
        "lint",
        help=SUMMARY["lint"],
        description="Follow every ttg.memdesc_reinterpret, _subslice, _index and "
        "tle.memdesc_alias in a TTGIR or MLIR dump back to its ttg.local_alloc and judge it "
        "by the profile; each violated rule is a finding with its values, a fix and the "
        "kernel's source line when the dump has locations. --format text, json or "
        "sarif (SARIF 2.1.0, for code-scanning upload). Exit status, as check's: 0 every "
        "view judged and no finding, 1 findings, 2 unreadable input (also what is not TTGIR: "
        "TTIR or asm['source'], Python source, PTX, LLVM IR; an integer literal its type cannot "
        "hold), 3 no finding but some view or rule not judged (each named by a note). A dump "
        "written by another release than a triton-X profile's is judged with a warning.",
    )
    li.add_argument(
        "file", help=f"a .ttgir or .mlir file, or - for stdin (at most {MAX_INPUT_MIB} MiB)"
    )
    li.add_argument("--profile", choices=list(PROFILES), default=DEFAULT_PROFILE, help=PROFILE_HELP)
    li.add_argument(
        "--format", choices=("text", "json", "sarif"), default="text", help="output format"
    )
    li.set_defaults(func=cmd_lint)

    from alias_spec.plan.cli import add_parser as add_plan_parser

    add_plan_parser(sub)

    from alias_spec.plan.cli import RUN_HELP

    run = _add_passing_on(sub, "plan-run", help=SUMMARY["plan-run"], description=RUN_HELP,
                          formatter_class=_RawFormatter)  # fmt: skip
    run.set_defaults(func=cmd_plan_run)

    td = sub.add_parser(
        "triton-diff",
        help=SUMMARY["triton-diff"],
        description=TRITON_DIFF_HELP,
        formatter_class=_RawFormatter,
    )
    td.add_argument(
        "--python",
        metavar="PY",
        help="interpreter of the Triton release to test (default: this one)",
    )
    td.add_argument(
        "--write", action="store_true", help="record the release's row in the agreement table"
    )
    td.add_argument(
        "--docs-dir",
        metavar="DIR",
        help="where --write keeps triton-agreement.json/.md (default: ./docs)",
    )
    td.add_argument("--seed", type=int, help="seed of near-miss and random cases (default 0)")
    td.add_argument("--near", type=int, metavar="N", help="near-miss pairs (default 150)")
    td.add_argument("--random", type=int, metavar="N", help="random cases (default 600)")
    td.add_argument(
        "--limit", type=int, metavar="N", help="judge only N cases, spread over the set"
    )
    td.add_argument("--show", type=int, default=20, metavar="N", help="disagreements to print")
    td.add_argument("--json", action="store_true", help="print the summary as JSON")
    td.set_defaults(func=cmd_triton_diff)

    d = sub.add_parser(
        "docs",
        help=SUMMARY["docs"],
        description="Bring the generated docs pages up to date, then run mkdocs (needs "
        "mkdocs-material): 'build' writes the site to DIR/site with --strict, 'serve' serves it "
        "with live reload until Ctrl-C (which stops mkdocs too).",
    )
    d.add_argument("action", choices=("build", "serve"), help="build the site, or serve it")
    d.add_argument("--root", default=".", metavar="DIR", help="the checkout holding mkdocs.yml")
    d.add_argument(
        "--addr",
        metavar="HOST:PORT",
        help="where serve listens (default: mkdocs.yml's dev_addr, else 127.0.0.1:8000)",
    )
    d.set_defaults(func=cmd_docs)

    dv = sub.add_parser(
        "dev", help=SUMMARY["dev"], description=DEV_HELP, formatter_class=_RawFormatter
    )
    tools = dv.add_subparsers(dest="tool", required=True, metavar="TOOL", parser_class=_Parser,
                              title="tools", help="the tool, then its own arguments")  # fmt: skip
    for name, (_, summary) in DEV_TOOLS.items():
        _add_passing_on(tools, name, help=summary, description=summary).set_defaults(func=cmd_dev)
    return p


def _warning(message: Warning | str, *_: object, **__: object) -> None:
    """A warning as one line on stderr, in the form of the errors (not Python's two lines
    naming this package's source)."""
    print(_printable(f"alias-spec: warning: {one_line(str(message))}", sys.stderr),
          file=sys.stderr, flush=True)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    parser = build_parser()
    # parse_args, but what a command that parses its own arguments (dev's tools, plan-run)
    # does not know is left for it.
    args, rest = parser.parse_known_args(argv)
    if rest and not getattr(args, "passes_on", False):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")  # parse_args's own words
    args.rest = rest
    with warnings.catch_warnings():
        warnings.showwarning = _warning  # restored when the command ends
        return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except (UsageError, RequestError, EngineUnavailable) as exc:
        print(_printable(f"alias-spec: error: {one_line(str(exc))}", sys.stderr), file=sys.stderr)
        return 2
    except CppEngineError as exc:  # the harness broke mid-run: its first line, not a traceback
        first = next((ln for ln in str(exc).splitlines() if ln.strip()), "failed")
        text = f"alias-spec: error: engine cpp: {one_line(first)}"
        print(_printable(text, sys.stderr), file=sys.stderr)
        return 2
    except BrokenPipeError:
        # A command printing through print() rather than _out, cut short by its reader: its
        # status is unknown, so it is not one of the verdict statuses (128 + SIGPIPE).
        _drop_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
