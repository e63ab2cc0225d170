"""The one shrinker (``difftest.shrink.shrink_greedy``) every differential tester shrinks with:
one candidate at a time or a step's candidates in one batch reach the same case, within the
budget asked for."""

from __future__ import annotations

from collections.abc import Sequence

from alias_spec.difftest.shrink import shrink_greedy


def _halves(n: int) -> list[int]:
    return sorted({0, n // 2, n - 1} - {n})


def test_batched_and_single_judging_reach_the_same_case() -> None:
    asked: list[int] = []

    def keeps(_: int, cands: Sequence[int]) -> list[bool]:
        asked.append(len(cands))
        return [c >= 37 for c in cands]

    single = shrink_greedy(1000, _halves, keeps)
    assert single == 37 and set(asked) == {1}
    asked.clear()
    assert shrink_greedy(1000, _halves, keeps, batch=True) == 37
    assert max(asked) > 1  # a step's candidates in one call


def test_the_budget_bounds_the_candidates_judged_and_the_moves() -> None:
    judged: list[int] = []

    def keeps(_: int, cands: Sequence[int]) -> list[bool]:
        judged.extend(cands)
        return [c >= 37 for c in cands]

    for batch in (False, True):
        judged.clear()
        shrink_greedy(1000, _halves, keeps, tries=4, batch=batch)
        assert len(judged) == 4
    assert shrink_greedy(1000, _halves, keeps, rounds=1) == 500  # one move: 1000 -> 500
    assert shrink_greedy(1000, _halves, keeps, rounds=0) == 1000
