// The session's tool-call count as operators see it in visibility (`HermesToolCalls`), kept
// fresh within seconds without a history event for every quick turn.
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { HermesToolCalls } from '../temporal/search-attributes';

/**
 * How stale `HermesToolCalls` may grow while turns follow each other quickly. Each upsert is a
 * history event and a visibility write, as costly to the server as a quick turn's own work; a
 * status change carries the count at once.
 */
const TOOL_COUNT_REFRESH_MS = 2000;

/**
 * `HermesToolCalls` in visibility: refreshed after a turn once a few seconds have passed since it
 * last was, and carried by every status change (histories recorded before: after every turn).
 */
export class ToolCountAttribute {
  private shown: number;
  private shownAtMs = Date.now();

  constructor(
    private readonly throttled: boolean,
    private readonly count: () => number,
  ) {
    this.shown = count();
  }

  afterTurn(): void {
    if (!this.throttled) return upsertSearchAttributes([{ key: HermesToolCalls, value: this.count() }]);
    if (Date.now() - this.shownAtMs >= TOOL_COUNT_REFRESH_MS) this.flush();
  }

  flush(): void {
    const changed = this.alongside([]);
    if (changed.length) upsertSearchAttributes(changed);
  }

  /** `pairs` plus the count, where it changed since visibility last heard it and `pairs` lack it. */
  alongside(pairs: SearchAttributeUpdatePair[]): SearchAttributeUpdatePair[] {
    if (!this.throttled) return pairs;
    const given = pairs.find((pair) => pair.key.name === HermesToolCalls.name);
    this.shownAtMs = Date.now();
    if (given) {
      this.shown = given.value as number;
      return pairs;
    }
    if (this.count() === this.shown) return pairs;
    this.shown = this.count();
    return [...pairs, { key: HermesToolCalls, value: this.shown }];
  }
}
