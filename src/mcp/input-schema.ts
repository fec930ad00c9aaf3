// An MCP tool's inputSchema as a function-calling `parameters` object: draft-7 `definitions`
// moved to `$defs` (refs rewritten), and always an object schema with properties.
export function normalizeInputSchema(schema: unknown): Record<string, unknown> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { type: 'object', properties: {} };
  let normalized = { ...(schema as Record<string, unknown>) };
  if (normalized.definitions !== undefined && normalized.$defs === undefined) {
    const { definitions, ...rest } = normalized;
    normalized = JSON.parse(JSON.stringify({ ...rest, $defs: definitions }).replace(/"#\/definitions\//g, '"#/$defs/')) as Record<string, unknown>;
  }
  delete normalized.$schema;
  if (normalized.type !== 'object') normalized.type = 'object';
  if (!normalized.properties || typeof normalized.properties !== 'object') normalized.properties = {};
  return normalized;
}
