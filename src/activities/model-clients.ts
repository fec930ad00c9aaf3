// OpenAI clients per endpoint, created once per worker. Temporal owns retries, so the client's
// own retries are off: every attempt is visible in the workflow's history.
import OpenAI from 'openai';

export interface ModelEndpointDefaults {
  apiKey?: string;
  baseUrl?: string;
  timeoutSeconds: number;
}

export class ModelClients {
  private readonly clients = new Map<string, OpenAI>();

  constructor(private readonly defaults: ModelEndpointDefaults) {}

  /** The effective base URL for a session that may name its own. */
  baseUrlFor(sessionBaseUrl: string | undefined): string | undefined {
    return sessionBaseUrl ?? this.defaults.baseUrl;
  }

  get(sessionBaseUrl: string | undefined): OpenAI {
    const baseURL = this.baseUrlFor(sessionBaseUrl);
    const key = baseURL ?? '';
    let client = this.clients.get(key);
    if (!client) {
      client = new OpenAI({
        apiKey: this.defaults.apiKey ?? 'not-set',
        baseURL,
        maxRetries: 0,
        timeout: this.defaults.timeoutSeconds * 1000,
      });
      this.clients.set(key, client);
    }
    return client;
  }
}
