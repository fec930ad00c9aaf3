// Reads and writes session MCP listings in the session store. Listings are content-addressed
// (the digest is a hash of the text), hence immutable: a worker may keep the ones it read.
import { createHash } from 'node:crypto';
import type { SessionStore } from '../store/session-store';
import type { McpListing } from './listing-types';

const MAX_CACHED = 64;

export class McpListingStore {
  private readonly cache = new Map<string, McpListing>();

  constructor(private readonly store: SessionStore) {}

  async save(listing: McpListing): Promise<string> {
    const text = JSON.stringify(listing);
    const digest = createHash('sha256').update(text).digest('hex');
    await this.store.saveToolListing(digest, text);
    this.remember(digest, listing);
    return digest;
  }

  async load(digest: string): Promise<McpListing | undefined> {
    const cached = this.cache.get(digest);
    if (cached) return cached;
    const text = await this.store.getToolListing(digest);
    if (text === undefined) return undefined;
    const listing = JSON.parse(text) as McpListing;
    this.remember(digest, listing);
    return listing;
  }

  private remember(digest: string, listing: McpListing): void {
    this.cache.set(digest, listing);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
  }
}
