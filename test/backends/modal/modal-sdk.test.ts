// The real `modal` package behind the seam ModalSdkApi uses: installed at the tested version (it is
// an optional install; .ci/run adds it), loaded through loadOptionalSdk, and described truthfully:
// `npm run typecheck` fails here when ModalSdkApi's description of the SDK drifts from its types.
import type * as RealModal from 'modal';
import type { ModalModule } from '../../../src/environments/modal/modal-sdk-api';
import { loadOptionalSdk, MODAL_SDK, optionalSdkStatus } from '../../../src/environments/optional-sdk';

/** The names among `names` that are not callable on `target`. */
const missingMethods = (target: object, names: string[]): string[] => names.filter((name) => typeof (target as Record<string, unknown>)[name] !== 'function');

test('the modal package is installed at the version the backend is tested with', () => {
  expect(optionalSdkStatus(MODAL_SDK)).toEqual({ sdk: MODAL_SDK, installedVersion: MODAL_SDK.version });
});

test('the modal package loads through the optional-SDK seam with what ModalSdkApi calls', async () => {
  const sdk = await loadOptionalSdk<typeof RealModal>(MODAL_SDK);
  const described: ModalModule = sdk;
  // Constructing a client opens no connection; its services are what ModalSdkApi calls.
  const client = new described.ModalClient({ tokenId: 'ak-test', tokenSecret: 'as-test', endpoint: 'http://127.0.0.1:9' });
  try {
    expect(missingMethods(client.apps, ['fromName'])).toEqual([]);
    expect(missingMethods(client.images, ['fromRegistry'])).toEqual([]);
    expect(missingMethods(client.sandboxes, ['create', 'fromName', 'fromId'])).toEqual([]);
    const sandbox = await client.sandboxes.fromId('sb-test');
    expect(sandbox.sandboxId).toBe('sb-test');
    expect(missingMethods(sandbox, ['poll', 'exec', 'terminate', 'detach'])).toEqual([]);
  } finally {
    client.close();
  }
  expect(new sdk.NotFoundError('gone')).toBeInstanceOf(described.NotFoundError);
});
