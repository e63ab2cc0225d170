"""What the project runs by hand, not under pytest: the programs that compile, capture and judge
the test corpora and write their records, and those that run on a GPU machine and report.

Each runs from the checkout's root as a module, ``python -m tools.plan.make_corpus ...``, so that
``tests`` (the kernels and cases they compile or judge) and ``alias_spec`` import from the
checkout. The folders mirror ``tests/``: ``tools/plan/`` writes ``tests/plan/cases/``."""
