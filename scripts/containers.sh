#!/usr/bin/env bash
# The container engine for the container tests (io.stallscope.it.container), on a machine that may
# have none and cannot reach any image registry. See /work/shared/notes/container-runtime.md for why
# each step is needed here (runc instead of crun, ulimits, Ryuk off).
#
#   scripts/containers.sh provision   a Docker engine if `docker info` answers, else podman: install,
#                                     configure, start its Docker-API socket; then the base image
#   scripts/containers.sh env         the exports the tests need for the engine found (eval it)
#   scripts/containers.sh base-image  (re)build the base image if missing or out of date
#   scripts/containers.sh readme-table  copy the matrix the last run wrote into docs/containers.md
#
# Idempotent: a second provision finds the engine answering and the base image current, and does nothing.
set -euo pipefail

PODMAN_SOCK=/run/podman/podman.sock
PODMAN_CONF=/etc/containers/containers.conf
# Must match ContainerImages.BASE_IMAGE in integration-tests.
BASE_IMAGE=localhost/stallscope-base:1
JDK17=/usr/lib/jvm/java-17-openjdk-amd64

log() { echo "containers: $*" >&2; }
die() { echo "containers: $*" >&2; exit 1; }

docker_answers() { command -v docker >/dev/null 2>&1 && timeout 20 docker info >/dev/null 2>&1; }
podman_answers() { [ -S "$PODMAN_SOCK" ] && command -v curl >/dev/null 2>&1 \
  && curl -sf --max-time 10 --unix-socket "$PODMAN_SOCK" http://d/_ping >/dev/null; }

# Which engine the tests talk to: "docker" (an engine behind the docker CLI's default or $DOCKER_HOST,
# unless that is our own podman socket) or "podman".
engine() {
  if [ "${DOCKER_HOST:-}" != "unix://$PODMAN_SOCK" ] && docker_answers; then
    echo docker
  elif podman_answers; then
    echo podman
  else
    echo none
  fi
}

cli() {
  case "$(engine)" in
    docker) docker "$@" ;;
    podman) podman "$@" ;;
    *) die "no container engine answers; run scripts/containers.sh provision" ;;
  esac
}

provision_podman() {
  [ "$(id -u)" = 0 ] || die "no Docker engine answers and podman needs root to install; run as root"
  local need=()
  command -v podman >/dev/null 2>&1 || need+=(podman)
  command -v runc >/dev/null 2>&1 || need+=(runc)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]} from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  # crun cannot set podman's default nofile limit here and fails in hybrid cgroups; runc with capped
  # nproc works. The CLI and the API service both read this file.
  local want
  want='# written by stallscope scripts/containers.sh (see docs in that script)
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"'
  if [ ! -f "$PODMAN_CONF" ] || [ "$(cat "$PODMAN_CONF")" != "$want" ]; then
    if [ -f "$PODMAN_CONF" ] && ! grep -q 'written by stallscope' "$PODMAN_CONF"; then
      cp "$PODMAN_CONF" "$PODMAN_CONF.before-stallscope"
      log "kept the previous $PODMAN_CONF as $PODMAN_CONF.before-stallscope"
    fi
    mkdir -p "$(dirname "$PODMAN_CONF")"
    printf '%s\n' "$want" >"$PODMAN_CONF"
    log "wrote $PODMAN_CONF (runc, nofile/nproc ulimits)"
  fi
  if ! podman_answers; then
    mkdir -p /run/podman /var/log/stallscope
    log "starting podman's Docker-API service on $PODMAN_SOCK (log /var/log/stallscope/podman-service.log)"
    # Detached from this shell so it outlives the test command; --time=0: never exits when idle.
    # Started in / : conmon inherits the service's working directory, and containers stop starting
    # ("Failed to get working directory") once a checkout it was started from is deleted.
    # Every descriptor above 2 is closed first: the service would otherwise keep whatever its caller held
    # open (a runner's pipe it waits on for EOF, a flock(1) lock) for as long as it runs.
    (cd / && close_inherited_fds && setsid nohup podman system service --time=0 "unix://$PODMAN_SOCK" \
      >>/var/log/stallscope/podman-service.log 2>&1 </dev/null &)
    for _ in $(seq 1 100); do podman_answers && break; sleep 0.2; done
    podman_answers || die "podman's service did not answer on $PODMAN_SOCK; see /var/log/stallscope/podman-service.log"
  fi
}

# Closes this shell's descriptors above 2 (call it in the subshell that starts a daemon).
close_inherited_fds() {
  local fd
  for fd in $(ls /proc/$BASHPID/fd); do
    [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
  done
  return 0
}

# A hash of what goes into the base image, so a changed JDK rebuilds it.
base_stamp() {
  local homes=("$JDK17")
  local newest; newest=$(newest_jdk)
  [ -n "$newest" ] && [ "$newest" != "$JDK17" ] && homes+=("$newest")
  { echo "v1"; for h in "${homes[@]}"; do echo "$h"; cat "$h/release"; done; } | sha256sum | cut -c1-16
}

# The JDK under /usr/lib/jvm with the highest feature version, as KafkaJdks.newest() picks it.
newest_jdk() {
  local best="" bestv=0 h v
  for h in /usr/lib/jvm/*/; do
    h=$(readlink -f "${h%/}")
    [ -x "$h/bin/java" ] && [ -f "$h/release" ] || continue
    v=$(sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9]*\).*/\1/p' "$h/release")
    [ -n "$v" ] && [ "$v" -gt "$bestv" ] && { best=$h; bestv=$v; }
  done
  echo "$best"
}

# The base image, built without a registry: the host's JDK 17 and its newest JDK at their host paths
# (so a BrokerSpec's javaHome means the same inside), /bin/sh, and every library ldd names for them.
base_image() {
  local stamp; stamp=$(base_stamp)
  local have; have=$(cli image inspect --format '{{ index .Config.Labels "stallscope.stamp" }}' "$BASE_IMAGE" 2>/dev/null || true)
  if [ "$have" = "$stamp" ]; then
    log "base image $BASE_IMAGE is current (stamp $stamp)"
    return
  fi
  [ -x "$JDK17/bin/java" ] || die "no JDK 17 at $JDK17"
  local t0=$SECONDS homes=("$JDK17") newest
  newest=$(newest_jdk)
  [ -n "$newest" ] && [ "$newest" != "$JDK17" ] && homes+=("$newest")
  log "building $BASE_IMAGE from ${homes[*]} (no registry needed)"
  local list; list=$(mktemp)
  {
    for h in "${homes[@]}"; do echo "$h"; done
    [ -d /etc/java-17-openjdk ] && echo /etc/java-17-openjdk
    [ -e /etc/ssl/certs/java/cacerts ] && readlink -f /etc/ssl/certs/java/cacerts && echo /etc/ssl/certs/java/cacerts
    echo /bin/sh; readlink -f /bin/sh
    # the dynamic loader and every library the JDKs' executables and libraries need
    find "${homes[@]}" -type f \( -name '*.so' -o -path '*/bin/*' \) -print0 \
      | xargs -0 ldd 2>/dev/null | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' | sort -u \
      | while read -r lib; do echo "$lib"; readlink -f "$lib"; done
  } | sort -u >"$list"
  local root; root=$(mktemp -d)
  mkdir -p "$root/tmp" "$root/etc" "$root/opt/kafka" "$root/var/tmp"
  chmod 1777 "$root/tmp" "$root/var/tmp"
  # a passwd and group so the JVM knows user.name/user.home for root
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
  printf 'root:x:0:\n' >"$root/etc/group"
  mkdir -p "$root/root"
  # /lib, /lib64, /bin are symlinks into /usr on Debian 12 (merged /usr): keep them as links
  for l in /bin /lib /lib64 /sbin; do
    [ -L "$l" ] || continue
    mkdir -p "$root/$(readlink -f "$l")"
    ln -s "$(readlink "$l")" "$root$l"
  done
  tar -C / --exclude='src.zip' -cf - --files-from="$list" 2>/dev/null \
    | tar -C "$root" --keep-directory-symlink -xf -
  tar -C "$root" -cf - . | cli import \
    -c "ENV PATH=$JDK17/bin:/usr/bin:/bin" \
    -c "ENV JAVA_HOME=$JDK17" \
    -c "LABEL stallscope.stamp=$stamp" \
    - "$BASE_IMAGE" >/dev/null
  rm -rf "$root" "$list"
  cli run --rm --network host "$BASE_IMAGE" "$JDK17/bin/java" -version >/dev/null 2>&1 \
    || die "the base image $BASE_IMAGE cannot run java; see: $(engine) run --rm $BASE_IMAGE $JDK17/bin/java -version"
  log "built $BASE_IMAGE in $((SECONDS - t0)) s ($(cli image inspect --format '{{.Size}}' "$BASE_IMAGE" | awk '{printf "%d MB", $1/1e6}'))"
}

env_exports() {
  case "$(engine)" in
    docker)
      # Ryuk off here too: every test stops its own containers, and Ryuk's image may not be pullable.
      echo "export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_CHECKS_DISABLE=true" ;;
    podman)
      echo "export DOCKER_HOST=unix://$PODMAN_SOCK"
      echo "export TESTCONTAINERS_RYUK_DISABLED=true"
      # Testcontainers' start-up checks pull alpine from Docker Hub: no registry here, no traffic there
      echo "export TESTCONTAINERS_CHECKS_DISABLE=true"
      echo "export TESTCONTAINERS_HOST_OVERRIDE=localhost" ;;
    *)
      echo "# containers: no container engine answers (scripts/containers.sh provision installs podman)" ;;
  esac
}

readme_table() {
  local root; root=$(cd "$(dirname "$0")/.." && pwd)
  local table=$root/integration-tests/target/version-matrix.md readme=$root/docs/containers.md
  [ -f "$table" ] || die "no $table: run the container suite first (see docs/containers.md)"
  grep -q '<!-- version-matrix: begin -->' "$readme" || die "no version-matrix markers in $readme"
  awk -v table="$table" '
    /<!-- version-matrix: begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /<!-- version-matrix: end -->/ { skip = 0 }
    !skip { print }' "$readme" >"$readme.tmp"
  mv "$readme.tmp" "$readme"
  log "docs/containers.md: matrix table replaced from $table"
}

case "${1:-}" in
  provision)
    if [ "$(engine)" = docker ]; then
      log "a Docker engine answers (docker info): using it"
    else
      provision_podman
    fi
    base_image
    log "engine $(engine); $(cli --version 2>/dev/null | head -1)"
    ;;
  env) env_exports ;;
  engine) engine ;;
  base-image) base_image ;;
  readme-table) readme_table ;;
  *) echo "usage: $0 provision|env|engine|base-image|readme-table" >&2; exit 2 ;;
esac
