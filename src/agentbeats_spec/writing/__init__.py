"""Writing documents without loss: atomic replacement that never damages what was there, and TOML written in
the style of the file it replaces.
"""
