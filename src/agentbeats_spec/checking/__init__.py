"""One document's check: tell its kind, validate it against the schema of that kind, apply the kind's rules,
and turn every finding into a located issue. Also the bundle of the schemas and what a tree's check gathers.
"""
