"""The one error type for malformed requests."""

from __future__ import annotations


class RequestError(ValueError):
    """A request that cannot be judged: names the field and what is wrong with it."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
