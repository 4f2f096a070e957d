#!/usr/bin/env bash
# For sandbox: 'true' on Linux: bubblewrap, and the unprivileged user namespaces it needs.
set -euo pipefail
sudo=''
[ "$(id -u)" = 0 ] || sudo='sudo'
if ! command -v bwrap >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "bubblewrap (bwrap) is not installed, and there is no apt-get to install it: install bubblewrap before this step." >&2
    exit 1
  fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi
# Ubuntu 24.04 lets AppArmor deny unprivileged user namespaces, which bubblewrap needs. The switch is for the whole
# machine: it is only turned on a GitHub-hosted runner, which is thrown away after the job.
if [ "$(sysctl -n kernel.apparmor_restrict_unprivileged_userns 2>/dev/null || true)" = 1 ]; then
  if [ "${RUNNER_ENVIRONMENT:-}" != github-hosted ]; then
    echo "AppArmor keeps bubblewrap from unprivileged user namespaces on this self-hosted runner" \
      "(kernel.apparmor_restrict_unprivileged_userns = 1). The action does not change that on a machine it does not own:" \
      "allow bwrap with an AppArmor profile, or set the switch to 0, or set sandbox: 'false'." >&2
    exit 1
  fi
  $sudo sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0
fi
