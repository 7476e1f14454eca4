#!/bin/sh
export DB_PASSWORD="${DB_PASSWORD:-}"
export API_KEY=$API_KEY_FROM_VAULT
export GITHUB_TOKEN=$(cat /run/secrets/token)
PASSWORD_FILE=/run/secrets/db
TOKEN=********
MAX_TOKENS=4096
