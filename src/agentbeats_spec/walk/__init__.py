"""Walking trees: folder listings that never follow a link out, the units a tree is cut into, running them here
or in worker processes, and the verdict cache of unchanged folders.
"""
