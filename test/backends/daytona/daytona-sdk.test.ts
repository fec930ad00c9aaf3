// The real `@daytonaio/sdk` behind the seam DaytonaSdkApi uses: installed at the tested version (an
// optional install; .ci/run adds it), loaded through loadOptionalSdk, described truthfully (the
// typecheck fails here on drift), and talking HTTP to a stand-in API on loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as RealDaytona from '@daytonaio/sdk';
import { DaytonaSdkApi, type DaytonaModule } from '../../../src/environments/daytona/daytona-sdk-api';
import { DAYTONA_SDK, loadOptionalSdk, optionalSdkStatus } from '../../../src/environments/optional-sdk';

test('the @daytonaio/sdk package is installed at the version the backend is tested with', () => {
  expect(optionalSdkStatus(DAYTONA_SDK)).toEqual({ sdk: DAYTONA_SDK, installedVersion: DAYTONA_SDK.version });
});

test('the @daytonaio/sdk package loads through the optional-SDK seam with what DaytonaSdkApi calls', async () => {
  const sdk = await loadOptionalSdk<typeof RealDaytona>(DAYTONA_SDK);
  const described: DaytonaModule = sdk;
  const client = new described.Daytona({ apiKey: 'dtn-test', apiUrl: 'http://127.0.0.1:9/api', target: 'us' });
  expect(typeof client.create).toBe('function');
  expect(typeof client.get).toBe('function');
  expect(new sdk.DaytonaNotFoundError('gone')).toBeInstanceOf(described.DaytonaNotFoundError);
});

test('a sandbox the Daytona API does not know is "not found" to DaytonaSdkApi, asked with the configured key', async () => {
  const requests: { url: string; authorization?: string }[] = [];
  const server = http.createServer((request, response) => {
    requests.push({ url: request.url ?? '', ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ statusCode: 404, message: 'Sandbox with ID or name hermes-gone not found', code: 'NOT_FOUND' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const api = new DaytonaSdkApi({ apiKey: 'dtn-test', apiUrl: `http://127.0.0.1:${port}/api`, target: 'us' });
    await expect(api.find('hermes-gone')).resolves.toBeUndefined();
    expect(requests).toContainEqual({ url: '/api/sandbox/hermes-gone', authorization: 'Bearer dtn-test' });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
