"""`alias-spec plan`: a compiled kernel's shared-memory plan and the addresses its code computes."""
