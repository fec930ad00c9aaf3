// Model arguments arrive loosely typed ("5" for 5, "true" for true, a JSON string for an array).
// Coerce them by the tool's JSON schema before zod validates, like the original's coerce_tool_args.
import type { z } from 'zod';

type JsonSchema = Record<string, unknown>;

export function coerceArguments(parameters: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  const properties = (parameters.properties ?? {}) as Record<string, JsonSchema>;
  const result: Record<string, unknown> = { ...args };
  for (const [key, value] of Object.entries(args)) {
    const schema = properties[key];
    if (schema && Object.prototype.hasOwnProperty.call(properties, key)) result[key] = coerceValue(schema, value);
  }
  return result;
}

function coerceValue(schema: JsonSchema, value: unknown): unknown {
  const types = schemaTypes(schema);
  if (types.length === 0) return value;
  for (const type of types) {
    const coerced = coerceTo(type, value);
    if (coerced !== undefined) return coerced;
  }
  return value;
}

function schemaTypes(schema: JsonSchema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type): type is string => typeof type === 'string');
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(variants) ? variants.flatMap(schemaTypes) : [];
}

/** The coerced value, or undefined when `value` cannot become `type`. */
function coerceTo(type: string, value: unknown): unknown {
  switch (type) {
    case 'integer':
    case 'number': {
      if (typeof value === 'number') return value;
      if (typeof value !== 'string' || value.trim() === '') return undefined;
      const parsed = Number(value);
      if (!Number.isFinite(parsed)) return undefined;
      return type === 'integer' && !Number.isInteger(parsed) ? undefined : parsed;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      return undefined;
    case 'array':
      if (Array.isArray(value)) return value;
      if (typeof value === 'string') {
        const parsed = parseJson(value);
        if (Array.isArray(parsed)) return parsed;
      }
      return value === null || value === undefined ? undefined : [value];
    case 'object':
      if (isPlainObject(value)) return value;
      if (typeof value === 'string') {
        const parsed = parseJson(value);
        if (isPlainObject(parsed)) return parsed;
      }
      return undefined;
    case 'null':
      return value === null || value === 'null' ? null : undefined;
    case 'string':
      return typeof value === 'string' ? value : undefined;
    default:
      return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "path: expected string, received undefined; offset: ..." naming every offending field. */
export function argumentIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length ? issue.path.join('.') : '(arguments)';
      return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}
