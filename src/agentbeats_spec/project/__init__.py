"""What a project says about its own checks: its configuration (``_config``) and the issues it knows of and has
chosen to fix later (``_known``, the baseline)."""
