// An MCP call marked require_approval asks a human, showing server:tool and its arguments; a
// session answer covers later calls of that tool; mode off and unattended sessions behave as for commands.
import { decideCommand, type PolicyInput } from '../../../src/approval-signals/policy';
import { mcpApprovalRequest } from '../../../src/mcp/approval-request';

const request = mcpApprovalRequest({ server: 'files', tool: 'write_file', requiresApproval: true }, { path: 'a.txt' });
const assessment = { isolated: false, tool: 'mcp__files__write_file', display: request.approval!.display, required: { description: request.approval!.description, key: request.approval!.key } };
const policy = (overrides: Partial<PolicyInput> = {}): PolicyInput => ({ assessment, mode: 'manual', surface: 'async', unattendedPolicy: 'deny', sessionApprovals: new Set(), allowlist: new Set(), ...overrides });

test('the request names server:tool and the arguments', () => {
  expect(request.approval).toMatchObject({ key: 'MCP:files:write_file', display: expect.stringContaining('files:write_file') });
  expect(request.approval?.display).toContain('"path": "a.txt"');
  expect(mcpApprovalRequest({ server: 'files', tool: 'read_file', requiresApproval: false }, {})).toEqual({});
});

test('asks, unless the tool was approved for the session, approvals are off, or nobody can answer', () => {
  expect(decideCommand(policy())).toMatchObject({ action: 'ask', keys: ['MCP:files:write_file'], allowAlways: false });
  expect(decideCommand(policy({ sessionApprovals: new Set(['MCP:files:write_file']) }))).toEqual({ action: 'run' });
  expect(decideCommand(policy({ mode: 'off' }))).toEqual({ action: 'run' });
  expect(decideCommand(policy({ surface: 'unattended' }))).toMatchObject({ action: 'block', kind: 'unattended' });
});
