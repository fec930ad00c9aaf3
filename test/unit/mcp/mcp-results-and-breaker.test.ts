// What the model reads back from an MCP call, and how a failing server is held off.
import { CircuitBreaker, mcpErrors } from '../../../src/mcp/circuit-breaker';
import { mapCallResult } from '../../../src/mcp/result-mapping';

const saved: string[] = [];
const saveMedia = (data: string, mimeType: string) => {
  saved.push(`${mimeType}:${data}`);
  return `/tmp/media-${saved.length}.png`;
};

describe('MCP result mapping', () => {
  it('joins text blocks with newlines under "result"', () => {
    expect(JSON.parse(mapCallResult({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }))).toEqual({ result: 'a\nb' });
  });

  it('replaces images by a MEDIA: tag naming the saved file', () => {
    const result = JSON.parse(mapCallResult({ content: [{ type: 'text', text: 'here' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }, saveMedia));
    expect(result.result).toMatch(/^here\nMEDIA:\/tmp\/media-\d+\.png$/);
  });

  it('renders embedded resources and resource links', () => {
    const result = JSON.parse(
      mapCallResult({
        content: [
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'file text' } },
          { type: 'resource_link', name: 'b', uri: 'file:///b' },
        ],
      }),
    );
    expect(result.result).toBe('file text\n[resource link: b file:///b]');
  });

  it('keeps structuredContent beside the text, or alone when there is no text', () => {
    expect(JSON.parse(mapCallResult({ content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } }))).toEqual({ result: '3', structuredContent: { sum: 3 } });
    expect(JSON.parse(mapCallResult({ content: [], structuredContent: { sum: 3 } }))).toEqual({ result: { sum: 3 } });
  });

  it('turns isError into {"error": text}, with the original fallback when there is none', () => {
    expect(JSON.parse(mapCallResult({ isError: true, content: [{ type: 'text', text: 'no such file' }, { type: 'resource', resource: { text: 'detail' } }] }))).toEqual({ error: 'no such file\ndetail' });
    expect(JSON.parse(mapCallResult({ isError: true, content: [] }))).toEqual({ error: 'MCP tool returned an error' });
  });
});

describe('MCP circuit breaker', () => {
  it('opens after three consecutive failures, for 60 s, then lets one probe through', () => {
    let now = 0;
    const breaker = new CircuitBreaker(() => now);
    breaker.failed();
    breaker.failed();
    expect(breaker.refusal()).toBeUndefined();
    breaker.failed();
    expect(breaker.refusal()).toEqual({ retryInSeconds: 60, failures: 3 });
    now = 45_000;
    expect(breaker.refusal()).toEqual({ retryInSeconds: 15, failures: 3 });
    now = 60_000;
    expect(breaker.refusal()).toBeUndefined(); // the half-open probe
    expect(breaker.refusal()).toBeDefined(); // only one
    breaker.failed();
    expect(breaker.refusal()?.failures).toBe(4);
    now = 120_000;
    expect(breaker.refusal()).toBeUndefined();
    breaker.succeeded();
    expect(breaker.refusal()).toBeUndefined();
    expect(breaker.consecutiveFailures).toBe(0);
  });

  it('says what the original says', () => {
    expect(mcpErrors.notConnected('fs')).toBe("MCP server 'fs' is not connected");
    expect(mcpErrors.transportDown('fs')).toBe("MCP server 'fs' transport is down; reconnect requested. Do NOT retry this tool immediately — give it a few seconds to come back.");
    expect(mcpErrors.circuitOpen('fs', 3, 42)).toBe(
      "MCP server 'fs' is unreachable after 3 consecutive failures. Auto-retry available in ~42s. Do NOT retry this tool yet — use alternative approaches or ask the user to check the MCP server.",
    );
  });
});
