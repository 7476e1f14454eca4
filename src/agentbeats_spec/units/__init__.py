"""A tree cut into units and run: folder listings that never follow a link out (``_fs``), the plan of a tree's
units and the protocol of a unit's check (``_plan``), running them here or in worker processes (``_running``),
and the verdict cache of unchanged folders (``_cache``).
"""
