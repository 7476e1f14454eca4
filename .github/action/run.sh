#!/usr/bin/env bash
# The logic of action.yml: one `agentbeats-spec validate` run that prints GitHub annotations on stdout and
# writes the SARIF log and the Markdown job summary with --output; the step exits with the command's status.
# Inputs come as INPUT_* variables (action.yml); tests/output/test_action.py runs this script as the runner would.
set -uo pipefail

python="${INPUT_PYTHON:-python3}"
if [ "${INPUT_INSTALL:-true}" = "true" ]; then
  "$python" -m pip install --quiet --disable-pip-version-check "$GITHUB_ACTION_PATH" || {
    echo "::error title=agentbeats-spec::could not install agentbeats-spec from $GITHUB_ACTION_PATH"
    exit 3
  }
fi

summary="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agentbeats-spec-summary-$$.md"
arguments=(validate --format github --output "markdown:$summary")
# The summary's links to the checked lines: the command takes the commit from GITHUB_SERVER_URL, GITHUB_REPOSITORY,
# GITHUB_SHA and GITHUB_WORKSPACE itself (--link-base), as it does in any workflow step.
if [ -n "${INPUT_SARIF_FILE:-}" ]; then
  arguments+=(--output "sarif:$INPUT_SARIF_FILE")
fi
if [ "${INPUT_STRICT:-false}" = "true" ]; then
  arguments+=(--strict)
fi
# The checkout may be a pull request's: the settings it carries (a configuration, ./agentbeats-secrets.allow)
# never decide its own verdict unless `config:` names the file to read (docs/security.md).
if [ -n "${INPUT_CONFIG:-}" ]; then
  arguments+=(--config "$INPUT_CONFIG")
else
  arguments+=(--no-config)
fi
set -f  # spaces and new lines separate the paths and the options; no glob is expanded here
extra=(${INPUT_ARGS:-})
paths=(${INPUT_PATHS:-.})
set +f
arguments+=("${extra[@]}" -- "${paths[@]}")

"$python" -m agentbeats_spec "${arguments[@]}"
status=$?

if [ -f "$summary" ]; then
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$summary" >> "$GITHUB_STEP_SUMMARY"
  fi
  rm -f "$summary"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "exit-code=$status" >> "$GITHUB_OUTPUT"
fi
exit "$status"
