// Writes plugin folders and packages for tests: a manifest and a CommonJS module whose body the
// test gives (it runs inside `exports.register = async (context) => { ... }`).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeFolderPlugin(pluginsDir: string, key: string, registerBody: string, manifest: Record<string, unknown> = {}): string {
  const root = path.join(pluginsDir, key);
  mkdirSync(root, { recursive: true });
  const fields: Record<string, unknown> = { name: key, version: '1.0.0', ...manifest };
  writeFileSync(path.join(root, 'plugin.yaml'), Object.entries(fields).map(([field, value]) => `${field}: ${JSON.stringify(value)}`).join('\n'));
  writeFileSync(path.join(root, typeof fields.main === "string" ? fields.main : "index.js"), `exports.register = async (context) => {\n${registerBody}\n};\n`);
  return root;
}

export function writePackagePlugin(nodeModules: string, name: string, registerBody: string, declaration: unknown = { plugin: './plugin.js' }): string {
  const root = path.join(nodeModules, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name, version: '2.0.0', description: `${name} for tests`, 'hermes-temporal': declaration }));
  writeFileSync(path.join(root, 'plugin.js'), `exports.register = async (context) => {\n${registerBody}\n};\n`);
  return root;
}

/** A tool named `name` that echoes its `text` argument. */
export function echoToolSource(name: string, toolset?: string): string {
  return `context.registerTool({ name: ${JSON.stringify(name)},${toolset ? ` toolset: ${JSON.stringify(toolset)},` : ''} description: 'Echo text back', schema: context.z.object({ text: context.z.string() }), handler: async (args) => JSON.stringify({ echoed: args.text }) });`;
}
