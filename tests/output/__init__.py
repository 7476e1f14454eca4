"""The command line and the CI formats."""
