"""AgentCompass records as the released writer and reader shape them: the persisted (masked, sparse) task
record, the task states and which state a task is filed under, and the conversion of v2 results. Pure functions
over parsed data.
"""
