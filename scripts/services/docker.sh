#!/usr/bin/env bash
# A private Docker daemon for the docker backend tests: Debian's docker.io started by hand on a
# project socket (no bridge, no iptables, nothing system-wide), plus a small local image built
# from a debootstrap rootfs, because no registry is reachable from here.
#
#   eval "$(scripts/services/docker.sh start)"   # install if needed, start, build the image, print exports
#   scripts/services/docker.sh env                # print the exports again (starts nothing)
#   scripts/services/docker.sh stop               # remove the test containers, stop dockerd
#
# HERMES_DOCKER_STORAGE=btrfs (what scripts/services/docker-quota.sh sets) puts the data-root on a
# loop-mounted btrfs image with quotas on and uses the btrfs driver, the one storage driver that
# keeps `--storage-opt size` here (overlay2 needs XFS project quotas, which this kernel lacks); it
# prints HERMES_TEST_DOCKER_QUOTA_SOCKET instead of HERMES_TEST_DOCKER_SOCKET.
#
# Everything (data-root, exec-root, pidfile, log, rootfs cache) lives under .tmp/services/docker/
# (HERMES_DOCKER_STATE_DIR); the image name is HERMES_DOCKER_TEST_IMAGE, the Debian mirror for
# debootstrap HERMES_DEBIAN_MIRROR. Progress goes to stderr; stdout carries only `export` lines.
# Timings here: first image build ~23 s (debootstrap, needs a Debian mirror, no registry), then the
# rootfs tarball is cached and a re-import takes ~1 s; dockerd answers within ~0.5 s.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
STATE="${HERMES_DOCKER_STATE_DIR:-$ROOT/.tmp/services/docker}"
SOCKET="$STATE/docker.sock"
PIDFILE="$STATE/dockerd.pid"
LOG="$STATE/dockerd.log"
IMAGE="${HERMES_DOCKER_TEST_IMAGE:-hermes-test:bookworm}"
ROOTFS_TAR="${HERMES_DOCKER_ROOTFS_TAR:-$STATE/rootfs-bookworm.tar}"
MIRROR="${HERMES_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
STORAGE="${HERMES_DOCKER_STORAGE:-overlay2}"
DATA_IMAGE="$STATE/data-btrfs.img"
NAMESPACE=hermes-test
[ "$STORAGE" = btrfs ] && NAMESPACE=hermes-test-quota
# The session containers' label (src/environments/docker/container-spec.ts).
SESSION_LABEL="hermes-temporal.session"

log() { echo "[docker.sh] $*" >&2; }

docker_cli() {
  # The docker.io client matches the daemon; another `docker` on PATH may be newer (still works).
  local cli=/usr/bin/docker
  [ -x "$cli" ] || cli="$(command -v docker)"
  DOCKER_HOST="unix://$SOCKET" "$cli" "$@"
}

print_env() {
  if [ "$STORAGE" = btrfs ]; then
    echo "export HERMES_TEST_DOCKER_QUOTA_SOCKET=$SOCKET"
  else
    echo "export HERMES_TEST_DOCKER_SOCKET=$SOCKET"
  fi
  echo "export HERMES_TEST_DOCKER_IMAGE=$IMAGE"
}

running() {
  [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

install_packages() {
  local missing=()
  command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  if [ "$STORAGE" = btrfs ]; then command -v mkfs.btrfs >/dev/null 2>&1 || missing+=(btrfs-progs); fi
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

start_daemon() {
  if running; then
    log "dockerd already running (pid $(cat "$PIDFILE"))"
  else
    launch_daemon
  fi
  local deadline=$((SECONDS + 30))
  until docker_cli version >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "dockerd did not answer within 30 s; last log lines:"
      tail -n 20 "$LOG" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# A 4 GiB sparse btrfs image with quotas on, mounted as the data-root (once per boot).
mount_btrfs_data() {
  mountpoint -q "$STATE/data" && return 0
  if [ ! -s "$DATA_IMAGE" ]; then
    truncate -s 4G "$DATA_IMAGE"
    mkfs.btrfs -q "$DATA_IMAGE" >&2
  fi
  mount -o loop "$DATA_IMAGE" "$STATE/data"
  btrfs quota enable "$STATE/data"
}

launch_daemon() {
  mkdir -p "$STATE/data" "$STATE/exec"
  [ "$STORAGE" = btrfs ] && mount_btrfs_data
  rm -f "$SOCKET" "$PIDFILE"
  log "starting dockerd on $SOCKET (log: $LOG)"
  # setsid: the daemon must outlive the shell that started it (and not get its signals).
  setsid dockerd \
    --host "unix://$SOCKET" \
    --data-root "$STATE/data" --exec-root "$STATE/exec" --pidfile "$PIDFILE" \
    --iptables=false --ip6tables=false --bridge=none --ip-forward=false --ip-masq=false \
    --storage-driver="$STORAGE" \
    --containerd-namespace "$NAMESPACE" --containerd-plugins-namespace "$NAMESPACE-plugins" \
    >>"$LOG" 2>&1 </dev/null &
}

build_rootfs_tar() {
  [ -s "$ROOTFS_TAR" ] && return 0
  local work="$STATE/rootfs-build"
  rm -rf "$work" && mkdir -p "$work" "$STATE/deb-cache"
  # minbase has bash, coreutils, util-linux (setsid, script), findutils; procps adds ps/pgrep.
  log "building a Debian bookworm rootfs with debootstrap (about 20-30 s)"
  debootstrap --variant=minbase --include=procps --cache-dir="$STATE/deb-cache" \
    bookworm "$work/rootfs" "$MIRROR" >"$STATE/debootstrap.log" 2>&1 || {
    log "debootstrap failed; see $STATE/debootstrap.log"
    exit 1
  }
  # Halve the image: package lists, caches, docs and translations are not needed by commands.
  rm -rf "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/cache/apt/* \
    "$work/rootfs"/usr/share/doc "$work/rootfs"/usr/share/man "$work/rootfs"/usr/share/locale
  mkdir -p "$work/rootfs/workspace"
  tar -C "$work/rootfs" -cf "$ROOTFS_TAR.partial" . && mv "$ROOTFS_TAR.partial" "$ROOTFS_TAR"
  rm -rf "$work"
}

build_image() {
  if docker_cli image inspect "$IMAGE" >/dev/null 2>&1; then
    log "image $IMAGE already present"
    return 0
  fi
  build_rootfs_tar
  log "importing $IMAGE"
  docker_cli import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' \
    "$ROOTFS_TAR" "$IMAGE" >/dev/null
}

remove_test_containers() {
  local ids
  ids="$(docker_cli ps -aq --filter "label=$SESSION_LABEL" 2>/dev/null || true)"
  [ -n "$ids" ] || return 0
  log "removing $(echo "$ids" | wc -l) session container(s)"
  # shellcheck disable=SC2086 # one id per word
  docker_cli rm -f $ids >/dev/null 2>&1 || true
}

stop_daemon() {
  if ! running; then
    log "dockerd is not running"
    rm -f "$SOCKET"
    unmount_btrfs_data
    return 0
  fi
  remove_test_containers
  local pid
  pid="$(cat "$PIDFILE")"
  log "stopping dockerd (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 20))
  while kill -0 "$pid" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      log "dockerd ignored TERM for 20 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$SOCKET" "$PIDFILE"
  unmount_btrfs_data
}

# The loop mount goes with the daemon (umount -d also frees the loop device).
unmount_btrfs_data() {
  if [ "$STORAGE" = btrfs ] && mountpoint -q "$STATE/data"; then umount -d "$STATE/data" || log "could not unmount $STATE/data"; fi
}

case "${1:-}" in
  start)
    mkdir -p "$STATE"
    install_packages
    start_daemon
    build_image
    print_env
    ;;
  stop) stop_daemon ;;
  env) print_env ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
