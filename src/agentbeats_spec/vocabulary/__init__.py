"""The vocabulary every layer speaks, at the bottom of the package: issues and their codes, the wording of
messages, the settings of a run, the version, the shipped schemas, the words of credentials and the kind table's
plain data (names, versions, file names).

It imports nothing of the package above it; everything else may import it.
"""
