"""Differential test of the triton-* profiles against Triton's real verifiers."""
