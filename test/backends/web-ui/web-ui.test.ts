// What an operator sees and does in the Temporal Web UI, in a real browser: a session waiting for
// approval found by a visibility query, its search attributes, memo, summary and tool-call
// summaries on the workflow page, the pendingApprovals query, and the approval sent with
// "More Actions → Send a Signal" — accepted only where the operator opted in with
// approvals.accept_unsigned (the UI's signal carries no approver signature); on the default
// configuration it is refused and shown as refused while the session keeps waiting.
// Runs its own dev server with the UI (the global one is headless).
// Needs scripts/services/chromium.sh start (HERMES_TEST_CHROMIUM).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { approvalAuditQuery, pendingApprovalsQuery } from '../../../src/approval-signals/definitions';
import { startScriptedModelServer } from '../../../src/model/scripted-model-server';
import type { SessionStore } from '../../../src/store/session-store';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { startSession, type SessionHandle } from '../../../src/temporal/sessions';
import { decideSigned } from '../../helpers/approver';
import { describeWithService } from '../../helpers/services';
import { createTestWorker, tempDir, testConfig, toolResults, type Harness } from '../../helpers/session-harness';
import { connectHarnessAt, launchChromium, waitForHttp, waitForShownText } from '../../helpers/ui-harness';
import { waitFor } from '../../helpers/wait';

const UI_WAIT_MS = 15_000;
const TASK = 'Tidy the workspace: remove the old reports folder';
const terminalTurn = (command: string) => ({ tool_calls: [{ name: 'terminal', arguments: { command } }] });

describeWithService('chromium', ['HERMES_TEST_CHROMIUM'], 'the Temporal Web UI', (env) => {
  let server: DevServer | undefined;
  let uiUrl: string;
  let harness: Harness | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startDevServer({
      headless: false,
      ip: '127.0.0.1',
      dynamicConfig: { 'frontend.enableUpdateWorkflowExecution': true },
    });
    if (!server.uiUrl) throw new Error('The dev server started without a Web UI (no temporal CLI binary found?)');
    uiUrl = server.uiUrl;
    await waitForHttp(uiUrl, 20_000);
    harness = await connectHarnessAt(server.address);
    browser = await launchChromium(env.HERMES_TEST_CHROMIUM!);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await server?.stop();
  });

  test('an operator finds a session awaiting approval, reads it, and approves it with Send a Signal', async () => {
    const model = await startScriptedModelServer({
      script: { turns: [terminalTurn('echo ready'), terminalTurn('rm -rf reports'), { content: 'reports removed' }] },
    });
    let store: SessionStore | undefined;
    let page: Page | undefined;
    try {
      // The server behind this UI would need its own authentication for this to be safe.
      const config = testConfig({ model: { base_url: model.url }, approvals: { accept_unsigned: true } });
      const reports = path.join(config.session.cwd, 'reports');
      mkdirSync(reports);
      writeFileSync(path.join(reports, 'old.txt'), 'stale\n');
      const context = await createTestWorker(harness!, config);
      store = context.store;
      const ui = (page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } }));
      ui.setDefaultTimeout(UI_WAIT_MS);
      ui.setDefaultNavigationTimeout(20_000);
      await context.worker.runUntil(async () => {
        const handle = await startSession(harness!.client, { task: TASK, config });
        await waitUntilAwaitingApproval(handle);
        expect(existsSync(reports)).toBe(true);
        await withScreenshotOnFailure(ui, () => operatorApprovesInTheUi(ui, uiUrl, handle));

        const result = await withDeadline(handle.result(), 30_000, 'the session to finish after the approval');
        expect(result).toMatchObject({ status: 'completed', answer: 'reports removed' });
        expect(await signalsReceived(handle)).toEqual([
          { name: 'approvalDecision', input: { approvalId: 'ap-1', choice: 'once', decidedBy: 'temporal-ui' } },
        ]);
        const [echo, remove] = await toolResults(context.store, handle);
        expect(echo).toMatchObject({ output: 'ready', exit_code: 0 });
        expect(remove).toMatchObject({ exit_code: 0, error: null });
        expect(String(remove!.approval)).toMatch(/required approval .* and was approved by the user/);
        expect(existsSync(reports)).toBe(false);
        expect(await handle.query(approvalAuditQuery)).toMatchObject([{ approvalId: 'ap-1', outcome: 'decided', decidedBy: 'unsigned:temporal-ui' }]);

        await withScreenshotOnFailure(ui, () => uiShowsTheSessionCompleted(ui, uiUrl, handle));
      });
    } finally {
      await page?.close().catch(() => undefined);
      await model.close();
      await store?.close();
    }
  }, 90_000);

  test('on the default configuration the UI\'s unsigned signal is refused, shown as refused, and the session keeps waiting', async () => {
    const model = await startScriptedModelServer({ script: { turns: [terminalTurn('rm -rf reports'), { content: 'kept them' }] } });
    let store: SessionStore | undefined;
    let page: Page | undefined;
    try {
      const config = testConfig({ model: { base_url: model.url } });
      const reports = path.join(config.session.cwd, 'reports');
      mkdirSync(reports);
      const context = await createTestWorker(harness!, config);
      store = context.store;
      const ui = (page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } }));
      ui.setDefaultTimeout(UI_WAIT_MS);
      ui.setDefaultNavigationTimeout(20_000);
      await context.worker.runUntil(async () => {
        const handle = await startSession(harness!.client, { task: TASK, config });
        await waitUntilAwaitingApproval(handle);
        await withScreenshotOnFailure(ui, async () => {
          await ui.goto(workflowUrl(uiUrl, handle.workflowId));
          await sendApprovalSignalInTheUi(ui);
        });
        await waitFor(async () => Boolean((await handle.query(pendingApprovalsQuery))[0]?.refusedDecision), { timeoutMs: 10_000, what: 'the refusal' });
        const [pending] = await handle.query(pendingApprovalsQuery);
        expect(pending).toMatchObject({ approvalId: 'ap-1', refusedDecision: expect.stringMatching(/Approval decisions must be signed by an approver key/) as unknown });
        expect(existsSync(reports)).toBe(true);
        expect((await handle.describe()).searchAttributes).toMatchObject({ HermesStatus: ['awaiting_approval'] });
        // The operator sees why on the workflow page, and how to answer instead.
        await withScreenshotOnFailure(ui, async () => {
          await ui.goto(workflowUrl(uiUrl, handle.workflowId));
          await ui.getByRole('tab', { name: 'User Metadata' }).click();
          await waitForShownText(ui.frameLocator('iframe#user-metadata-current-details').locator('body'), [/Refused a decision/, /must be signed/, /hermes-temporal approve/], {
            timeoutMs: UI_WAIT_MS,
            what: 'the refusal in the current details',
          });
        });
        await decideSigned(handle, config, { approvalId: 'ap-1', choice: 'deny' });
        expect(await withDeadline(handle.result(), 30_000, 'the session to finish after the denial')).toMatchObject({ status: 'completed' });
        expect(existsSync(reports)).toBe(true);
      });
    } finally {
      await page?.close().catch(() => undefined);
      await model.close();
      await store?.close();
    }
  }, 90_000);
});

/** The signals in the workflow's history, with their JSON input as the UI sent it. */
async function signalsReceived(handle: SessionHandle): Promise<{ name: string; input: unknown }[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event) => {
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (!signal) return [];
    const data = signal.input?.payloads?.[0]?.data;
    return [{ name: signal.signalName ?? '', input: data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined }];
  });
}

async function waitUntilAwaitingApproval(handle: SessionHandle): Promise<void> {
  await waitFor(async () => (await handle.query(pendingApprovalsQuery)).length === 1, { timeoutMs: 30_000, what: 'the pending approval' });
  const query = `WorkflowId = '${handle.workflowId}' AND HermesStatus = 'awaiting_approval'`;
  await waitFor(async () => (await handle.client.count(query)).count === 1, { timeoutMs: 10_000, what: 'awaiting_approval in visibility' });
}

const workflowsUrl = (uiUrl: string, query: string) => `${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`;
const workflowUrl = (uiUrl: string, workflowId: string) => `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;
const shown = (page: Page, patterns: (string | RegExp)[], what: string) =>
  waitForShownText(page.locator('main'), patterns, { timeoutMs: UI_WAIT_MS, what });

async function operatorApprovesInTheUi(page: Page, uiUrl: string, handle: SessionHandle): Promise<void> {
  const { workflowId } = handle;

  // a. The workflows list filtered by a visibility query lists the waiting session.
  await page.goto(workflowsUrl(uiUrl, 'HermesStatus="awaiting_approval"'));
  await page.getByRole('link', { name: workflowId }).waitFor();
  await shown(page, ['HermesStatus = "awaiting_approval"'], 'the filter of the workflows list');

  // b. The workflow page (it opens on the Timeline): the completed tool call's activity summary,
  // then the Event History, Search Attributes, Memo, User Metadata and Queries tabs.
  await page.goto(workflowUrl(uiUrl, workflowId));
  await shown(page, ['executeTool • terminal: echo ready', 'callModel • scripted, turn 2'], 'activity summaries in the timeline');
  await page.getByRole('tab', { name: /^Event History/ }).click();
  await shown(page, [/Activity Type\s+executeTool\s+Summary\s+terminal: echo ready/], 'the activity summary in the event history');
  await page.getByRole('tab', { name: 'Search Attributes' }).click();
  await shown(
    page,
    ['"HermesStatus": "awaiting_approval"', '"HermesPendingApprovals": 1', '"HermesModel": "scripted"', '"HermesToolCalls": 1'],
    'the search attributes',
  );
  await page.getByRole('tab', { name: 'Memo' }).click();
  await shown(page, [`"task": "${TASK}"`], 'the memo');
  await page.getByRole('tab', { name: 'User Metadata' }).click();
  // Both are markdown, rendered in iframes (which turn "2/50" into "2⁄50").
  const rendered = (id: string) => page.frameLocator(`iframe#${id}`).locator('body');
  await waitForShownText(rendered('user-metadata-summary'), [TASK], { timeoutMs: UI_WAIT_MS, what: 'the summary' });
  await waitForShownText(rendered('user-metadata-current-details'), [/Awaiting approval/, /ap-1 \(recursive delete\)/, /approvalDecision/], { timeoutMs: UI_WAIT_MS, what: 'the current details' });
  await page.getByRole('tab', { name: 'Queries' }).click();
  await page.locator('button[aria-controls="query-select-select"]').click();
  await page.getByRole('option', { name: 'pendingApprovals' }).click();
  await page.getByRole('button', { name: 'Run Query' }).click();
  await shown(page, ['"approvalId": "ap-1"', '"command": "rm -rf reports"'], 'the pendingApprovals query result');

  // The update is offered too, with its description.
  await page.getByRole('button', { name: 'More Actions' }).click();
  await page.getByRole('menuitem', { name: 'Send an Update' }).click();
  const updateDialog = page.getByRole('dialog', { name: 'Send an Update' });
  await updateDialog.getByRole('button', { name: /^Select/ }).click();
  await updateDialog.getByRole('option', { name: /decideApproval/ }).waitFor();
  await page.keyboard.press('Escape'); // closes the option list, or the whole dialog
  if (await updateDialog.isVisible()) await updateDialog.getByRole('button', { name: 'Cancel' }).last().click();
  await updateDialog.waitFor({ state: 'hidden' });

  // c. More Actions → Send a Signal: pick approvalDecision, type the decision, submit.
  await sendApprovalSignalInTheUi(page);
}

/** On a workflow page: More Actions → Send a Signal, the approvalDecision signal with an unsigned once. */
async function sendApprovalSignalInTheUi(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'More Actions' }).click();
  await page.getByRole('menuitem', { name: 'Send a Signal' }).click();
  const dialog = page.getByRole('dialog', { name: 'Send a Signal' });
  await dialog.getByRole('button', { name: 'Select a signal' }).click();
  await dialog.getByRole('option', { name: 'approvalDecision' }).click();
  // The option list fades out over the Data field; typing before it is gone loses the click.
  await dialog.getByRole('listbox').waitFor({ state: 'hidden' });
  const data = dialog.getByRole('textbox', { name: 'Data' });
  await data.fill('{"approvalId": "ap-1", "choice": "once", "decidedBy": "temporal-ui"}');
  // Leaving the editor reformats the JSON and grows the dialog; clicking Submit while it grows misses.
  await data.press('Tab');
  await waitForShownText(data, [/^\{\n\s+"approvalId": "ap-1",/], { timeoutMs: UI_WAIT_MS, what: 'the Data field to be reformatted' });
  const signalled = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes('/signal/approvalDecision'));
  await dialog.getByRole('button', { name: 'Submit' }).click();
  const response = await signalled;
  if (!response.ok()) throw new Error(`The UI's signal request failed: ${response.status()} ${await response.text()}`);
  await dialog.waitFor({ state: 'hidden' });
}

async function uiShowsTheSessionCompleted(page: Page, uiUrl: string, handle: SessionHandle): Promise<void> {
  await page.goto(workflowUrl(uiUrl, handle.workflowId));
  await shown(page, ['COMPLETED', 'executeTool • terminal: rm -rf reports'], 'the completed workflow');
  await page.getByRole('tab', { name: /^Event History/ }).click();
  await shown(page, [/Workflow Execution Signaled\s+Signal Name\s+approvalDecision/], 'the signal in the event history');
  await page.goto(workflowsUrl(uiUrl, 'HermesStatus="completed"'));
  await page.getByRole('link', { name: handle.workflowId }).waitFor();
  await page.goto(workflowsUrl(uiUrl, 'HermesStatus="awaiting_approval"'));
  await shown(page, ['HermesStatus = "awaiting_approval"', 'No Workflows Found'], 'an empty awaiting_approval list');
  expect(await page.getByRole('link', { name: handle.workflowId }).count()).toBe(0);
}

async function withScreenshotOnFailure(page: Page, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const file = path.join(tempDir('hermes-web-ui-'), 'failure.png');
    const saved = await page.screenshot({ path: file, fullPage: true }).then(
      () => `screenshot: ${file}`,
      () => 'no screenshot',
    );
    throw new Error(`${(error as Error).message}\n(${page.url()}; ${saved})`, { cause: error });
  }
}

function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
