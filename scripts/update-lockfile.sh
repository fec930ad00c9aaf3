#!/usr/bin/env bash
# Rewrites package-lock.json after a change to package.json, so that `npm ci` accepts it here, and
# proves it: the lock is recomputed from package.json and the existing lock (locked versions are
# kept; node_modules is not touched), then `npm ci` runs on it in a clean copy.
#
# Why a procedure: the registry reachable here may lack some platform packages that a dependency
# lists as optional at the locked version (it did for modal -> cbor-x -> cbor-extract, whose
# @cbor-extract/* 2.2.3 builds are not served). npm then writes the lock without them and `npm ci`
# refuses it ("Missing: … from lock file"). The cloud SDKs are optional installs, kept out of
# package.json for that reason (and so the common install stays small): never add them back. If the check
# below fails for a new dependency, find the package that lists the "Missing:" ones as optional
# (`npm explain <missing name>`), pin it with `overrides` in package.json to a version whose
# platform packages the registry serves (`npm view <missing name> versions`), and run this again.
# Usage: scripts/update-lockfile.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# --ignore-scripts: npm would otherwise run the project's `prepare` (tsc) even for a lock-only install.
echo "update-lockfile.sh: npm install --package-lock-only" >&2
npm install --package-lock-only --ignore-scripts --no-audit --no-fund

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp package.json package-lock.json "$scratch/"
echo "update-lockfile.sh: npm ci on the new lock in $scratch (no install scripts: only the lock is checked)" >&2
if ! (cd "$scratch" && npm ci --ignore-scripts --prefer-offline --no-audit --no-fund); then
  cat >&2 <<'HINT'
update-lockfile.sh: npm ci refused the new lock. If it said "Missing: <name>@<version> from lock file":
  npm explain <name>              # the package that lists it as an optional dependency
  npm view <name> versions        # the versions this registry serves
then pin that package with "overrides" in package.json to a version whose platform packages are
served here, and run scripts/update-lockfile.sh again (see this script's header).
HINT
  exit 1
fi
echo "update-lockfile.sh: package-lock.json is accepted by npm ci; commit it with package.json" >&2
