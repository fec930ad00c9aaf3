#!/usr/bin/env bash
# bubblewrap for the local backend's sandbox and the Apptainer stand-in tests (Debian has no
# apptainer package; the stand-in runs commands with bwrap in a rootfs folder). `start` installs
# it when missing; both `start` and `env` print `export HERMES_TEST_BWRAP=<path>` for the tests. Diagnostics go to stderr.
set -euo pipefail

usage() {
  echo "usage: $0 start|env|stop" >&2
  exit 2
}

install_bwrap() {
  command -v bwrap >/dev/null 2>&1 && return 0
  echo "installing bubblewrap (apt-get)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >&2; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >&2
  fi
}

print_env() {
  local bwrap
  bwrap="$(command -v bwrap || true)"
  if [ -z "$bwrap" ]; then
    echo "bwrap is not installed: run $0 start" >&2
    exit 1
  fi
  # The local sandbox's own namespaces: fails where user namespaces or mounts are not allowed.
  if ! "$bwrap" --ro-bind / / --dev /dev --proc /proc --unshare-user --disable-userns --unshare-pid --unshare-net \
      --cap-drop ALL --die-with-parent true 2>/dev/null; then
    echo "bwrap is installed but cannot create a sandbox here" >&2
    exit 1
  fi
  echo "export HERMES_TEST_BWRAP=$bwrap"
}

case "${1:-}" in
  start)
    install_bwrap
    print_env
    ;;
  env) print_env ;;
  stop) ;; # nothing runs: bwrap is started per command
  *) usage ;;
esac
