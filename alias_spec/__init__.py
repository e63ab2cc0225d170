"""tle-alias-spec: the shared-memory alias rules as data, one source of truth."""

from .catalogue import DEFAULT_PROFILE, PROFILES, RULES, Rule, rule, rules_for
from .errors import RequestError
from .request import Request, load_requests, parse_request
from .verdict import Verdict, Violation

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "RULES",
    "Request",
    "RequestError",
    "Rule",
    "Verdict",
    "Violation",
    "load_requests",
    "parse_request",
    "rule",
    "rules_for",
]
