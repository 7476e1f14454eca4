"""The vocabulary every layer speaks, at the bottom of the package: issues and their codes, the wording of
messages, the settings of a run, the version, the shipped schemas and the words of credentials.

It imports nothing of the package above it; everything else may import it.
"""
