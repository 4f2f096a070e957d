#!/usr/bin/env bash
# The agent is built from the action's own source, once per job.
set -euo pipefail
cd "$GITHUB_ACTION_PATH"
if [ ! -f dist/cli.js ]; then
  npm ci --no-audit --no-fund --loglevel=error
  npm run build --silent
fi
