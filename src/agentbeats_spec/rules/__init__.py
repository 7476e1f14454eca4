"""Cross-field rules that JSON Schema cannot state, one module per family.

Each rule function takes the parsed document and yields findings; it must tolerate documents that
failed schema validation (wrong types are the schema's to report, not the rules').
"""
