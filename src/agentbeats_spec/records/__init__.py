"""AgentCompass records as the released writer and reader shape them: the persisted (masked, sparse) task
record and the conversion of v2 results. Pure functions over parsed data.
"""
