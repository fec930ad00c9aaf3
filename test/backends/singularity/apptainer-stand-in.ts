// A stand-in `apptainer` executable for tests (Debian has no Apptainer package): it records every
// argv it is called with, keeps instances as folders, and runs `exec instance://NAME cmd...` with
// bwrap, using the instance's folder as the root filesystem and the host's /usr, /bin, /lib*
// and /etc read-only. It is NOT Apptainer: it checks our command lines and lifecycle, not isolation.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ApptainerStandIn {
  /** The folder holding the `apptainer` executable (put it first on PATH). */
  binDir: string;
  /** Every invocation's argv, oldest first. */
  invocations(): string[][];
}

/** The script, with __STATE__, __LOG__ and __BWRAP__ filled in when it is written. */
const TEMPLATE = path.join(__dirname, 'apptainer-stand-in.sh');

/**
 * Writes the stand-in under `dir` (as `apptainer`, or another name such as `singularity`).
 * `siteBindPaths` play apptainer.conf's `bind path` entries: host folders every instance gets,
 * even contained, unless started with `--no-mount bind-paths`.
 */
export function writeApptainerStandIn(dir: string, options: { bwrap: string; name?: string; siteBindPaths?: readonly string[] }): ApptainerStandIn {
  const binDir = path.join(dir, 'bin');
  const state = path.join(dir, 'state');
  const log = path.join(dir, 'argv.log');
  mkdirSync(binDir, { recursive: true });
  mkdirSync(path.join(state, 'instances'), { recursive: true });
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const script = readFileSync(TEMPLATE, 'utf8')
    .replace('__STATE__', quote(state))
    .replace('__LOG__', quote(log))
    .replace('__BWRAP__', quote(options.bwrap))
    .replace('__SITE_BIND_PATHS__', quote((options.siteBindPaths ?? []).join(' ')));
  const file = path.join(binDir, options.name ?? 'apptainer');
  writeFileSync(file, script);
  chmodSync(file, 0o755);
  return {
    binDir,
    invocations: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => line.slice(0, -1).split(',').map((arg) => Buffer.from(arg, 'base64').toString('utf8')))
        : [],
  };
}
