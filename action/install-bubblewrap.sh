#!/usr/bin/env bash
# For sandbox: 'true': bubblewrap, and the unprivileged user namespaces it needs.
set -euo pipefail
sudo=''
[ "$(id -u)" = 0 ] || sudo='sudo'
if ! command -v bwrap >/dev/null 2>&1; then
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi
# Ubuntu 24.04 lets AppArmor deny unprivileged user namespaces, which bubblewrap needs.
if [ "$(sysctl -n kernel.apparmor_restrict_unprivileged_userns 2>/dev/null || true)" = 1 ]; then
  $sudo sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0
fi
