"""`alias-spec triton-diff`: the triton-* profiles against Triton's real C++ verifiers.

``cases`` builds the view requests and their modules, ``runner`` feeds them to ``worker`` (run
by path inside the interpreter under test, which needs Triton but not this project), ``diff``
compares verdicts and ``report`` keeps the agreement table under docs/.
"""
