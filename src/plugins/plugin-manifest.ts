// What a plugin says about itself: `plugin.yaml` in a plugin folder, or the `hermes-temporal`
// field of an npm package's package.json (its name, version and description come from there).
import { z } from 'zod';

export const pluginManifestSchema = z
  .object({
    name: z.string().min(1).max(100),
    version: z.string().optional(),
    description: z.string().optional(),
    author: z.string().optional(),
    /** The module exporting `register(context)`, relative to the plugin folder. */
    main: z.string().min(1).default('index.js'),
    /** Variables the plugin needs; it is skipped (and says why) when one is missing. */
    requires_env: z.array(z.string()).default([]),
    /** For display before loading: the tools and hooks it says it adds. */
    provides_tools: z.array(z.string()).default([]),
    provides_hooks: z.array(z.string()).default([]),
  })
  .loose();

export type PluginManifest = z.infer<typeof pluginManifestSchema>;

/**
 * The package.json convention: `"hermes-temporal": {"plugin": "./dist/plugin.js"}` (or just the
 * path as a string). A field, not a keyword, because it also says which file to load.
 */
export const packageDeclarationSchema = z.union([
  z.string().min(1).transform((main) => ({ plugin: main })),
  z.object({ plugin: z.string().min(1), requires_env: z.array(z.string()).optional() }).loose(),
]);

export const PACKAGE_FIELD = 'hermes-temporal';
export const MANIFEST_FILE = 'plugin.yaml';
