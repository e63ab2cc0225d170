"""The rules as SMT constraints: checking, fixes, theorems and boundary cases."""
