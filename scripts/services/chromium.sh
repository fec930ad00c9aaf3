#!/usr/bin/env bash
# Debian's Chromium for the Web UI tests (driven by playwright-core; never a downloaded browser).
# `start` installs it with apt-get when missing and checks it renders a page headless; both
# `start` and `env` print `export HERMES_TEST_CHROMIUM=<path>`. Diagnostics go to stderr.
#
#   eval "$(scripts/services/chromium.sh start)"
set -euo pipefail

CHROMIUM=/usr/bin/chromium
APT_UPDATE_TIMEOUT_SECONDS=600
APT_INSTALL_TIMEOUT_SECONDS=900
PROBE_TIMEOUT_SECONDS=60

SERVICE=chromium
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  echo "usage: $0 start|env|stop" >&2
  exit 2
}

install_chromium() {
  [[ -x $CHROMIUM ]] && return 0
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "$CHROMIUM not found and not root: install Debian's chromium (apt-get install chromium)"
    sudo=(sudo -n)
  fi
  say "installing Debian's chromium (apt-get) ..."
  # Try without an update first (fast when the package lists are fresh), then update and retry.
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive timeout "$APT_INSTALL_TIMEOUT_SECONDS" \
    apt-get install -y -qq --no-install-recommends chromium >&2; then
    "${sudo[@]}" timeout "$APT_UPDATE_TIMEOUT_SECONDS" apt-get update -qq >&2 || say "apt-get update failed; trying the install anyway"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive timeout "$APT_INSTALL_TIMEOUT_SECONDS" \
      apt-get install -y -qq --no-install-recommends chromium >&2
  fi
  [[ -x $CHROMIUM ]] || die "apt-get installed chromium but $CHROMIUM is missing"
}

# Renders a data: URL headless with the flags the tests use (a fresh profile; no network
# chatter, which this machine's closed network refuses).
check_headless() {
  local profile dom
  profile=$(mktemp -d "${TMPDIR:-/tmp}/hermes-chromium-probe-XXXXXX")
  dom=$(timeout "$PROBE_TIMEOUT_SECONDS" "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --dump-dom \
    'data:text/html,<p id="t"></p><script>document.getElementById("t").textContent="headless-ok"</script>' 2>/dev/null) || true
  rm -rf "$profile"
  [[ $dom == *headless-ok* ]] || die "$CHROMIUM did not render a page headless within ${PROBE_TIMEOUT_SECONDS}s"
}

print_env() {
  [[ -x $CHROMIUM ]] || die "$CHROMIUM is not installed: run $0 start"
  check_headless
  echo "export HERMES_TEST_CHROMIUM=$CHROMIUM"
}

case "${1:-}" in
  start)
    install_chromium
    print_env
    ;;
  env) print_env ;;
  stop) ;; # nothing runs: each test launches and closes its own browser
  *) usage ;;
esac
