#!/usr/bin/env bash
# Installs what the tests need beyond Java 17 and Maven, on a fresh Debian machine (as root):
# Debian's Chromium, for the analyzer's HTML timeline test. Idempotent: a second run does nothing.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v gcc >/dev/null 2>&1 || need+=(gcc)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "provision: missing ${need[*]}; run as root or install them: apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "provision: installing ${need[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "provision: $(java -version 2>&1 | head -1); $(mvn -v 2>/dev/null | head -1); $(chromium --version 2>/dev/null)"
