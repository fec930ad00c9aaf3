#!/usr/bin/env bash
# Installs the optional cloud-backend SDKs (Modal, Daytona, Vercel) at the versions the backends
# are tested with (OPTIONAL_SDKS in src/environments/optional-sdk.ts), without writing
# package.json or package-lock.json: the committed lockfile stays the common install (local,
# docker, ssh), which `npm ci` reproduces, and a later `npm ci` removes them again.
# Usage: scripts/install-cloud-sdks.sh [backend|package …]   (all three when none is named)
set -euo pipefail
cd "$(dirname "$0")/.."

# name@version for each optional SDK (or for the backends / packages named).
mapfile -t specs < <(npx --no-install tsx -e '
  const { OPTIONAL_SDKS } = require("./src/environments/optional-sdk");
  const wanted = process.argv.slice(1).filter((word) => !word.startsWith("-"));
  const chosen = wanted.length ? OPTIONAL_SDKS.filter((sdk) => wanted.includes(sdk.backend) || wanted.includes(sdk.packageName)) : OPTIONAL_SDKS;
  if (chosen.length !== (wanted.length || OPTIONAL_SDKS.length)) {
    console.error(`install-cloud-sdks.sh: unknown backend or package in: ${wanted.join(" ")} (known: ${OPTIONAL_SDKS.map((sdk) => `${sdk.backend} = ${sdk.packageName}`).join(", ")})`);
    process.exit(1);
  }
  for (const sdk of chosen) console.log(`${sdk.packageName}@${sdk.version}`);
' -- "$@")
[ "${#specs[@]}" -gt 0 ] || exit 1

echo "install-cloud-sdks.sh: npm install --no-save ${specs[*]}" >&2
npm install --no-save --no-audit --no-fund "${specs[@]}"
