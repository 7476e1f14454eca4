"""Trajectories to and from ATIF, the field's trajectory format: the conversion with its loss report, the
checks ATIF's validator makes, and the files ``convert`` writes.
"""
