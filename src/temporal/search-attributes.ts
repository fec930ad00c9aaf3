// Search attributes that make sessions findable and filterable in the Temporal UI.
// Pure module (only @temporalio/common): the workflow, the worker and the CLI all import it.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const HermesStatus = defineSearchAttributeKey('HermesStatus', SearchAttributeType.KEYWORD);
export const HermesModel = defineSearchAttributeKey('HermesModel', SearchAttributeType.KEYWORD);
export const HermesParentSession = defineSearchAttributeKey('HermesParentSession', SearchAttributeType.KEYWORD);
/** The session at the top of a delegation tree (a root session names itself). */
export const HermesRootSession = defineSearchAttributeKey('HermesRootSession', SearchAttributeType.KEYWORD);
export const HermesToolCalls = defineSearchAttributeKey('HermesToolCalls', SearchAttributeType.INT);
export const HermesPendingApprovals = defineSearchAttributeKey('HermesPendingApprovals', SearchAttributeType.INT);
export const HermesStopReason = defineSearchAttributeKey('HermesStopReason', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [
  HermesStatus,
  HermesModel,
  HermesParentSession,
  HermesRootSession,
  HermesToolCalls,
  HermesPendingApprovals,
  HermesStopReason,
] as const;

export type SearchAttributeTypeName = 'Keyword' | 'Int' | 'Text' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

const TYPE_NAMES: Record<string, SearchAttributeTypeName> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** Name and CLI type name of each attribute, e.g. for `--search-attribute HermesStatus=Keyword`. */
export const HERMES_SEARCH_ATTRIBUTES: readonly { name: string; type: SearchAttributeTypeName }[] =
  SEARCH_ATTRIBUTE_KEYS.map((key) => ({ name: key.name, type: TYPE_NAMES[key.type] ?? 'Keyword' }));

/** Values of `HermesStatus`. */
export type SessionStatusValue = 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'cancelled';
