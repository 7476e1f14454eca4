"""Running a check: the one front door every caller comes in by (``_front_door``: the request, its settings, the
target), and the check of a tree it runs (``_tree_check``: plan, run the units, reduce, assemble).
"""
