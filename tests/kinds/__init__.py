"""One module per artifact kind: its schema and rules, asserted code, pointer and line."""
