// The worker's model keys go only to the endpoints its config gives them to: a session's input
// (written by whoever starts the workflow) naming another endpoint gets no key.
import { ModelClients } from '../../../src/activities/model-clients';

const clients = () =>
  new ModelClients({ apiKey: 'sk-worker', baseUrl: 'https://models.example/v1', timeoutSeconds: 5, keysByBaseUrl: { 'https://children.example/v1': 'sk-children' } });

test('a session with no endpoint of its own, or the configured one in any spelling, gets the worker key', () => {
  const models = clients();
  expect(models.get(undefined).apiKey).toBe('sk-worker');
  expect(models.get('https://models.example/v1').apiKey).toBe('sk-worker');
  expect(models.get('https://MODELS.example/v1/').apiKey).toBe('sk-worker');
  expect(models.get('https://children.example/v1').apiKey).toBe('sk-children');
});

test('an endpoint the config does not name gets no key at all', () => {
  const models = clients();
  for (const elsewhere of ['http://127.0.0.1:18555/v1', 'https://models.example.attacker.test/v1', 'https://models.example/v1/../../evil']) {
    expect(models.get(elsewhere).apiKey).not.toMatch(/sk-/);
  }
});
