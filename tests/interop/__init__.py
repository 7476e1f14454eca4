"""Other tools on our files: AgentCompass 1.0.1, Ajv, editors, check-jsonschema, pre-commit, the wheel."""
