"""Compiler artifacts generated from the spec (C++ verifier, Python checks, Gluon frontend)."""
