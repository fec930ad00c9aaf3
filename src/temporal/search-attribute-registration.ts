// On an existing server, make sure the project's search attributes exist: register missing ones
// through the operator API where permitted, otherwise fail with the command that registers them.
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { HERMES_SEARCH_ATTRIBUTES, type SearchAttributeTypeName } from './search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;

const INDEXED_TYPES: Record<SearchAttributeTypeName, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

export class MissingSearchAttributesError extends Error {
  override readonly name = 'MissingSearchAttributesError';
}

/** Returns the names it registered (empty when all existed). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
  const missing = HERMES_SEARCH_ATTRIBUTES.filter(({ name }) => !known.has(name));
  if (!missing.length) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(({ name, type }) => [name, INDEXED_TYPES[type]])),
    });
  } catch (error) {
    const commands = missing
      .map(({ name, type }) => `  temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}`)
      .join('\n');
    throw new MissingSearchAttributesError(
      `The server lacks search attributes ${missing.map(({ name }) => name).join(', ')} and refused to register them ` +
        `(${(error as Error).message}). Ask an operator to run:\n${commands}`,
    );
  }
  return missing.map(({ name }) => name);
}
