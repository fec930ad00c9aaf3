// What a session_search query may ask of the full-text index. The SQLite store searches on the
// worker's main thread, synchronously, and a prefix term (`w*`) is expanded to every indexed word
// it begins, once per term: 200 `w*` ORed took two minutes on a store of 20,000 messages, and the
// worker answered nothing else meanwhile (other sessions' heartbeats, tool calls, approvals). A
// few terms and prefixes of three characters keep a search to a fraction of a second.

export const MAX_QUERY_CHARS = 500;
export const MAX_QUERY_TERMS = 12;
export const MAX_PREFIX_TERMS = 3;
export const MIN_PREFIX_CHARS = 3;

/** Operators of the query syntax, which are not terms. */
const OPERATORS = new Set(['OR', 'AND', 'NOT', 'NEAR']);

/** Why this query may not run, or undefined when it may. */
export function queryRefusal(query: string): string | undefined {
  if (query.length > MAX_QUERY_CHARS) return `The query is ${query.length} characters; at most ${MAX_QUERY_CHARS} are allowed. Search for a few distinctive words.`;
  const terms = (query.match(/[^\s()"]+/g) ?? []).filter((word) => !OPERATORS.has(word));
  if (terms.length > MAX_QUERY_TERMS) return `The query has ${terms.length} terms; at most ${MAX_QUERY_TERMS} are allowed. Search for a few distinctive words.`;
  const prefixes = terms.filter((term) => term.endsWith('*'));
  if (prefixes.length > MAX_PREFIX_TERMS) return `The query has ${prefixes.length} prefix terms (word*); at most ${MAX_PREFIX_TERMS} are allowed.`;
  const short = prefixes.find((term) => (term.match(/[\p{L}\p{N}]/gu) ?? []).length < MIN_PREFIX_CHARS);
  if (short !== undefined) return `The prefix term '${short}' is too short: a prefix needs at least ${MIN_PREFIX_CHARS} letters or digits before '*'.`;
  return undefined;
}
