// The floor workflows' activities: nothing, one second of waiting, or one bare model request.
import type OpenAI from 'openai';

const modelClients = new Map<string, OpenAI>();

export const floorActivities = {
  noop: async (): Promise<void> => undefined,
  sleepOneSecond: (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1000)),
  /** One chat completion from the model at `baseUrl` through the `openai` client, nothing of ours around it. */
  askModel: async (baseUrl: string): Promise<void> => {
    let client = modelClients.get(baseUrl);
    if (!client) {
      // Loaded on first use: the parked-sessions floor worker never asks a model.
      const { default: OpenAIClient } = await import('openai');
      client = new OpenAIClient({ baseURL: baseUrl, apiKey: 'floor', maxRetries: 0 });
      modelClients.set(baseUrl, client);
    }
    await client.chat.completions.create({ model: 'floor', messages: [{ role: 'user', content: 'floor' }] });
  },
};

export type FloorActivities = typeof floorActivities;
