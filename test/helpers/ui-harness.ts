// For Web UI tests: a Harness for any server address (e.g. a dev server of the test's own, started
// with the UI), and Debian's Chromium launched through playwright-core with this machine's flags.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser, type Locator } from 'playwright-core';
import { silentLogger } from '../../src/logging';
import { installTemporalRuntime } from '../../src/temporal/runtime';
import type { Harness } from './session-harness';
import { waitFor } from './wait';

/** Like connectHarness, but for the server at `address` rather than the global one. */
export async function connectHarnessAt(address: string): Promise<Harness> {
  installTemporalRuntime(silentLogger);
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address }).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  return {
    address,
    client: new Client({ connection }),
    nativeConnection,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

// Without the background-networking flags Chromium keeps dialling Google's hosts, which this
// machine's closed network refuses. Playwright gives every launch a fresh temporary profile (it
// refuses a --user-data-dir argument) and removes it on close.
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium from `executablePath` (never a browser downloaded by playwright). */
export function launchChromium(executablePath: string, options: { timeoutMs?: number } = {}): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS, timeout: options.timeoutMs ?? 30_000 });
}

/** Waits until `url` answers 200 (the Web UI starts a little after the gRPC frontend). */
export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  await waitFor(async () => (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok, { timeoutMs, intervalMs: 200, what: `${url} to answer` });
}

/**
 * Waits until the text shown by `locator` matches every pattern, and returns it. Polls innerText
 * rather than matching one element: the UI splits JSON and labels over many nodes.
 */
export async function waitForShownText(locator: Locator, patterns: (string | RegExp)[], options: { timeoutMs: number; what: string }): Promise<string> {
  let shown = '';
  const matches = (pattern: string | RegExp) => (typeof pattern === 'string' ? shown.includes(pattern) : pattern.test(shown));
  try {
    await waitFor(
      async () => {
        shown = await locator.innerText({ timeout: 1000 });
        return patterns.every(matches);
      },
      { ...options, intervalMs: 250 },
    );
  } catch (error) {
    const missing = patterns.filter((pattern) => !matches(pattern)).map(String);
    throw new Error(`${(error as Error).message}; missing ${missing.join(', ')} in:\n${shown.slice(0, 2000)}`);
  }
  return shown;
}
