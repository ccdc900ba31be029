#!/usr/bin/env bash
# Installs what the tests need beyond Java 17 and Maven, on a fresh Debian machine (as root):
# Debian's Chromium, for the analyzer's HTML timeline test; xfsprogs, for the real-disk tests' XFS
# (io.stallscope.it.realdisk: loop devices and the cgroup I/O controller, which need root); a container engine and the base image for
# the container suite (scripts/containers.sh: a Docker engine if `docker info` answers, else podman).
# Idempotent: a second run does nothing.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v mkfs.xfs >/dev/null 2>&1 || [ -x /usr/sbin/mkfs.xfs ] || [ -x /sbin/mkfs.xfs ] || need+=(xfsprogs)
# promtool, for the examples' alert rules (io.stallscope.it.examples.PromtoolTest), is in Debian's prometheus
# package: installed without its recommends (node exporter), and its server is not left running.
lean=()
command -v promtool >/dev/null 2>&1 || lean+=(prometheus)

if [ $((${#need[@]} + ${#lean[@]})) -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "provision: missing ${need[*]} ${lean[*]}; run as root or install them: apt-get install -y ${need[*]} ${lean[*]}" >&2
    exit 1
  fi
  echo "provision: installing ${need[*]} ${lean[*]} from Debian's packages"
  apt-get update -qq
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  if [ ${#lean[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${lean[@]}" >/dev/null
    if [ -d /run/systemd/system ]; then systemctl disable --now prometheus >/dev/null 2>&1 || true; fi
  fi
fi
# Containers: CI must run the container suite, so there a failure here fails the test command.
# Elsewhere a machine without root or podman still runs the rest; the container tests then say why they skip.
if ! "$(dirname "$0")/containers.sh" provision; then
  if [ "${CI:-}" = true ]; then
    echo "provision: CI=true and no container engine could be provisioned (see above)" >&2
    exit 1
  fi
  echo "provision: WARNING: no container engine; the container suite will be skipped (see above)" >&2
fi
echo "provision: $(java -version 2>&1 | head -1); $(mvn -v 2>/dev/null | head -1); $(chromium --version 2>/dev/null); $(promtool --version 2>/dev/null | head -1)"
