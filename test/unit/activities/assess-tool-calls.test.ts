import { createAssessToolCalls, MAX_ASSESSMENTS_RESULT_BYTES } from '../../../src/activities/assess-tool-calls';
import type { AssessCommandInput, LoadedCall } from '../../../src/activities/assess-tool-call';
import type { SessionStore } from '../../../src/store/session-store';

const environment = { backend: 'local', cwd: '/w' } as AssessCommandInput['environment'];

function fakeStore(ids: string[]) {
  const reads = { messages: 0, sessions: 0 };
  const store = {
    getMessage: async () => {
      reads.messages += 1;
      return { toolCalls: ids.map((id) => ({ id, name: 'terminal', arguments: `{"command":"echo ${id}"}` })) };
    },
    getSession: async () => {
      reads.sessions += 1;
      return { id: 's' };
    },
  } as unknown as SessionStore;
  return { store, reads };
}

test('judges every call with what was read from the store once, and returns them in order', async () => {
  const ids = Array.from({ length: 20 }, (_, index) => `call-${index}`);
  const { store, reads } = fakeStore(ids);
  const seen: string[] = [];
  const assess = async (input: AssessCommandInput, loaded: LoadedCall) => {
    seen.push(input.toolCallId);
    // Later calls finish first: the order returned is still the calls' own.
    await new Promise((resolve) => setTimeout(resolve, 20 - Number(input.toolCallId.split('-')[1])));
    return { isolated: false, command: JSON.parse(loaded.call?.arguments ?? '{}').command as string };
  };
  const judged = await createAssessToolCalls(store, assess)({ sessionId: 's', assistantSeq: 3, environment, calls: ids.map((toolCallId) => ({ toolCallId })) });
  expect(judged.map((assessment) => assessment.command)).toEqual(ids.map((id) => `echo ${id}`));
  expect(reads).toEqual({ messages: 1, sessions: 1 });
  expect(seen.sort()).toEqual([...ids].sort());
});

test('stops once the result is full, so the workflow asks again for the rest; one assessment always goes', async () => {
  const ids = Array.from({ length: 40 }, (_, index) => `call-${index}`);
  const { store } = fakeStore(ids);
  const large = (size: number) => async () => ({ isolated: false, display: 'x'.repeat(size) });
  const some = await createAssessToolCalls(store, large(4_000))({ sessionId: 's', assistantSeq: 3, environment, calls: ids.map((toolCallId) => ({ toolCallId })) });
  expect(some.length).toBeGreaterThan(1);
  expect(some.length).toBeLessThan(ids.length);
  expect(Buffer.byteLength(JSON.stringify(some))).toBeLessThanOrEqual(MAX_ASSESSMENTS_RESULT_BYTES + 100);
  const one = await createAssessToolCalls(store, large(200_000))({ sessionId: 's', assistantSeq: 3, environment, calls: ids.map((toolCallId) => ({ toolCallId })) });
  expect(one).toHaveLength(1);
});

test('an unknown call id is judged as a missing call, not skipped', async () => {
  const { store } = fakeStore(['a']);
  const loadedCalls: (string | undefined)[] = [];
  const assess = async (_input: AssessCommandInput, loaded: LoadedCall) => {
    loadedCalls.push(loaded.call?.id);
    return { isolated: false };
  };
  const judged = await createAssessToolCalls(store, assess)({ sessionId: 's', assistantSeq: 3, environment, calls: [{ toolCallId: 'a' }, { toolCallId: 'nope' }] });
  expect(judged).toHaveLength(2);
  expect(loadedCalls).toEqual(['a', undefined]);
});
