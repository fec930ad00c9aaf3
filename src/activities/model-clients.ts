// OpenAI clients per endpoint, created once per worker. Temporal owns retries, so the client's
// own retries are off: every attempt is visible in the workflow's history.
import OpenAI from 'openai';

export interface ModelEndpointDefaults {
  apiKey?: string;
  baseUrl?: string;
  timeoutSeconds: number;
  /** Keys of the other endpoints sessions may name (e.g. delegation.base_url for sub-agents), by base URL; no other gets a key. */
  keysByBaseUrl?: Record<string, string>;
}

export class ModelClients {
  private readonly clients = new Map<string, OpenAI>();
  /** Endpoints that have answered this worker at least once (any HTTP reply counts). */
  private readonly answered = new Set<string>();

  constructor(private readonly defaults: ModelEndpointDefaults) {}

  /** The effective base URL for a session that may name its own. */
  baseUrlFor(sessionBaseUrl: string | undefined): string | undefined {
    return sessionBaseUrl ?? this.defaults.baseUrl;
  }

  get(sessionBaseUrl: string | undefined): OpenAI {
    const baseUrl = this.baseUrlFor(sessionBaseUrl);
    return this.forEndpoint(baseUrl, this.keyFor(baseUrl));
  }

  /**
   * A key goes only to the endpoint the worker's config gives it to. A session's input names its
   * endpoint, and anyone who can start a workflow writes that input (a model on an SSH host or a
   * networked container that reaches the Temporal server, too): an endpoint of its choosing gets
   * no key, rather than the worker's.
   */
  private keyFor(baseUrl: string | undefined): string | undefined {
    if (baseUrl === undefined || sameEndpoint(baseUrl, this.defaults.baseUrl)) return this.defaults.apiKey;
    return Object.entries(this.defaults.keysByBaseUrl ?? {}).find(([url]) => sameEndpoint(url, baseUrl))?.[1];
  }

  markAnswered(sessionBaseUrl: string | undefined): void {
    this.answered.add(this.baseUrlFor(sessionBaseUrl) ?? '');
  }

  hasAnswered(sessionBaseUrl: string | undefined): boolean {
    return this.answered.has(this.baseUrlFor(sessionBaseUrl) ?? '');
  }

  /** A client for an explicit endpoint and key (e.g. the auxiliary model of smart approval). */
  forEndpoint(baseURL: string | undefined, apiKey: string | undefined): OpenAI {
    const cacheKey = `${baseURL ?? ''}\u0000${apiKey ?? ''}`;
    let client = this.clients.get(cacheKey);
    if (!client) {
      client = new OpenAI({ apiKey: apiKey ?? 'not-set', baseURL, maxRetries: 0, timeout: this.defaults.timeoutSeconds * 1000 });
      this.clients.set(cacheKey, client);
    }
    return client;
  }
}

/** Two spellings of one endpoint (a trailing slash or letter case in the host aside). */
function sameEndpoint(a: string, b: string | undefined): boolean {
  if (b === undefined) return false;
  const normal = (url: string) => {
    try {
      return new URL(url).href.replace(/\/+$/, '');
    } catch {
      return url.replace(/\/+$/, '');
    }
  };
  return normal(a) === normal(b);
}
