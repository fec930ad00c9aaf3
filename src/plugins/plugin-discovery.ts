// Finds plugin candidates, in scan order (a later source wins on the same key): the user's
// plugin folder, then, only when the project is trusted, the project's folder; then installed npm
// packages that declare themselves. Nothing is loaded here: only manifests are read.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { MANIFEST_FILE, PACKAGE_FIELD, packageDeclarationSchema, pluginManifestSchema, type PluginManifest } from './plugin-manifest';

export type PluginSource = 'user' | 'project' | 'package';

export interface PluginCandidate {
  /** Folder name, or package name: what `plugins.enabled` / `plugins.disabled` name. */
  key: string;
  source: PluginSource;
  /** The plugin's folder. */
  root: string;
  manifest?: PluginManifest;
  /** Why the manifest could not be read. */
  invalid?: string;
}

export interface DiscoveryPlaces {
  /** `<home>/plugins`: one folder per plugin. */
  userDir: string;
  /** `<project>/.hermes-temporal/plugins`, when project plugins are trusted. */
  projectDir?: string;
  /** `node_modules` folders to look through for declaring packages. */
  packageDirs: string[];
  /** The folder sessions write: no user or package plugin is loaded from there (project ones are trusted by `plugins.project`). */
  workspace?: string;
  /** The workspaces of other sessions the worker serves (running ones, at start): the same holds for them. */
  sessionWorkspaces?: readonly string[];
  /** The hermes home: hidden from commands and guarded from file tools, even inside a workspace. */
  home?: string;
}

export function discoverPlugins(places: DiscoveryPlaces): PluginCandidate[] {
  const byKey = new Map<string, PluginCandidate>();
  const add = (candidate: PluginCandidate) => {
    byKey.delete(candidate.key); // re-inserted last: the later source wins and lists last
    byKey.set(candidate.key, candidate);
  };
  for (const candidate of folderPlugins(places.userDir, 'user')) add(candidate);
  if (places.projectDir) for (const candidate of folderPlugins(places.projectDir, 'project')) add(candidate);
  for (const dir of places.packageDirs) for (const candidate of packagePlugins(dir)) add(candidate);
  return [...byKey.values()];
}

function folderPlugins(dir: string, source: PluginSource): PluginCandidate[] {
  return subfolders(dir).map((name) => {
    const root = path.join(dir, name);
    const file = path.join(root, MANIFEST_FILE);
    if (!existsSync(file)) return { key: name, source, root, invalid: `no ${MANIFEST_FILE} in ${root}` };
    try {
      const parsed = pluginManifestSchema.safeParse(parseYaml(readFileSync(file, 'utf8')) ?? {});
      if (!parsed.success) return { key: name, source, root, invalid: `${file}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}` };
      return { key: name, source, root, manifest: parsed.data };
    } catch (error) {
      return { key: name, source, root, invalid: `${file} is not valid YAML: ${(error as Error).message}` };
    }
  });
}

/** Packages (and scoped packages) whose package.json has the `hermes-temporal` field. */
function packagePlugins(nodeModules: string): PluginCandidate[] {
  const roots = subfolders(nodeModules).flatMap((name) =>
    name.startsWith('@') ? subfolders(path.join(nodeModules, name)).map((scoped) => path.join(nodeModules, name, scoped)) : name.startsWith('.') ? [] : [path.join(nodeModules, name)],
  );
  const candidates: PluginCandidate[] = [];
  for (const root of roots) {
    let pkg: Record<string, unknown>;
    try {
      pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!(PACKAGE_FIELD in pkg)) continue;
    const key = typeof pkg.name === 'string' ? pkg.name : path.basename(root);
    const declared = packageDeclarationSchema.safeParse(pkg[PACKAGE_FIELD]);
    if (!declared.success) {
      candidates.push({ key, source: 'package', root, invalid: `package.json "${PACKAGE_FIELD}" must be a path or {"plugin": path}` });
      continue;
    }
    const manifest = pluginManifestSchema.parse({
      name: key,
      main: declared.data.plugin,
      requires_env: 'requires_env' in declared.data ? (declared.data.requires_env ?? []) : [],
      ...(typeof pkg.version === 'string' ? { version: pkg.version } : {}),
      ...(typeof pkg.description === 'string' ? { description: pkg.description } : {}),
    });
    candidates.push({ key, source: 'package', root, manifest });
  }
  return candidates;
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}
