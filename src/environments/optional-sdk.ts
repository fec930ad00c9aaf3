// The cloud backends' SDKs are optional installs, not dependencies: a worker that never runs a
// session on Modal, Daytona or Vercel does not install them. This seam loads one on first use and turns a
// missing (or wrongly versioned) package into a reason that names the exact install command.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BackendUnavailableError } from './terminal-environment';

export interface OptionalSdk {
  /** The backend that needs the package, as `terminal.backend` names it. */
  backend: string;
  packageName: string;
  /** The exact version this build is tested with. */
  version: string;
}

// The one list of them (scripts/install-cloud-sdks.sh reads it). Not in package.json: declared as
// optional peer dependencies, `npm install modal@0.11.1` would keep them optional and install
// nothing. Pinned exactly: `modal`'s `latest` tag is an unrelated package.
export const MODAL_SDK: OptionalSdk = { backend: 'modal', packageName: 'modal', version: '0.11.1' };
export const DAYTONA_SDK: OptionalSdk = { backend: 'daytona', packageName: '@daytonaio/sdk', version: '0.218.0' };
export const VERCEL_SDK: OptionalSdk = { backend: 'vercel_sandbox', packageName: '@vercel/sandbox', version: '3.5.0' };
export const OPTIONAL_SDKS: readonly OptionalSdk[] = [MODAL_SDK, DAYTONA_SDK, VERCEL_SDK];

export function installCommand(sdk: OptionalSdk): string {
  return `npm install ${sdk.packageName}@${sdk.version}`;
}

export interface OptionalSdkStatus {
  sdk: OptionalSdk;
  /** The version found, when the package resolves at all. */
  installedVersion?: string;
  /** Why the backend cannot load it (undefined when it can). */
  problem?: string;
}

/** Resolves a package name to its entry file, as `require` would from here. */
export type ResolvePackage = (packageName: string) => string;

/** Whether `sdk` is installed at the tested version; resolves the package without loading it. */
export function optionalSdkStatus(sdk: OptionalSdk, resolve: ResolvePackage = require.resolve): OptionalSdkStatus {
  let entry: string;
  try {
    entry = resolve(sdk.packageName);
  } catch (error) {
    const notFound = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    const why = notFound ? 'which is not installed' : `which cannot be resolved (${error instanceof Error ? error.message : String(error)})`;
    return { sdk, problem: `the ${sdk.backend} backend needs the optional package ${sdk.packageName}, ${why}: run \`${installCommand(sdk)}\`` };
  }
  const installedVersion = packageVersion(entry, sdk.packageName);
  if (installedVersion !== sdk.version) {
    const found = installedVersion ? `${sdk.packageName} ${installedVersion} is installed` : `the installed ${sdk.packageName} has no readable version`;
    return {
      sdk,
      ...(installedVersion ? { installedVersion } : {}),
      problem: `the ${sdk.backend} backend is tested with ${sdk.packageName}@${sdk.version}, but ${found}: run \`${installCommand(sdk)}\``,
    };
  }
  return { sdk, installedVersion };
}

/** Thrown when a backend is used without its SDK: nothing ran, and the message says what to install. */
export class OptionalSdkMissingError extends BackendUnavailableError {
  constructor(readonly sdk: OptionalSdk, message: string) {
    super(message);
  }
}

/**
 * Loads the SDK (once per caller: keep the promise). `Module` is the caller's description of the
 * part it uses; tests in test/backends/<backend>/ check that description against the real types.
 */
export async function loadOptionalSdk<Module>(sdk: OptionalSdk): Promise<Module> {
  const { problem } = optionalSdkStatus(sdk);
  if (problem) throw new OptionalSdkMissingError(sdk, problem);
  // A computed specifier: the compiler must not need the package's types to build this project.
  return (await import(sdk.packageName)) as Module;
}

/** The `version` of the package that owns `entry` (nearest package.json with that name; bounded walk up). */
function packageVersion(entry: string, packageName: string): string | undefined {
  let directory = path.dirname(entry);
  for (let depth = 0; depth < 12; depth += 1) {
    const manifestPath = path.join(directory, 'package.json');
    if (existsSync(manifestPath)) {
      try {
        const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name?: unknown; version?: unknown };
        if (manifest.name === packageName) return typeof manifest.version === 'string' ? manifest.version : undefined;
      } catch {
        // An unreadable nested package.json (e.g. a build folder's): keep walking up.
      }
    }
    const parent = path.dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
  return undefined;
}

/** One line of `hermes-temporal tools`: whether a cloud backend's package is there, or how to add it. */
export function optionalSdkLine(status: OptionalSdkStatus): string {
  const state = status.problem ?? `${status.sdk.packageName} ${status.installedVersion ?? ''} installed`;
  return `${status.sdk.backend.padEnd(15)} ${state}`;
}
