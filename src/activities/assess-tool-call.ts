// Assessing one tool call before it runs: the tool names what it would do (its registry entry's
// `assess`), and this resolves what needs the world — paths through symbolic links on the
// session's backend, the program a `process` write types into, the digests of the workspace
// files a command runs — then classifies it for the policy. Errors are findings, never failures:
// a call that cannot be assessed waits for a human.
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { CommandAssessment, PathFinding } from '../approval-signals/approval-types';
import { filesRunBy } from '../approval-signals/bound-files';
import { assessCommandText, hermesProtectedFiles, hermesSecretFiles } from '../approval-signals/command-assessment';
import { classifyCommand } from '../approval-signals/classify-command';
import { isBlockDevice, isHomeDotfile } from '../approval-signals/detector/path-classes';
import { commandReader, hiddenSetupOf, uncheckableInput } from '../approval-signals/process-input';
import { isProtectedWritePath, isSecretRead, searchReachesSecrets } from '../approval-signals/protected-paths';
import type { CommandVerdict, MatchedRule } from '../approval-signals/verdict';
import { boundedApprovalKey } from '../approval-signals/approval-key';
import { visibleText } from '../approval-signals/visible-text';
import { oneLine, quotedText } from '../approval-signals/shown-call';
import { unshownParts } from '../approval-signals/unshown-parts';
import { followNamedPaths } from '../approval-signals/linked-paths';
import { confirmLinkFreePaths } from '../approval-signals/link-free-paths';
import { followDeleteTargets } from '../approval-signals/delete-targets';
import { writePreview } from './write-preview';
import { recordedAssessment } from './recorded-assessment';
import type { LoadedConfig } from '../config/load';
import type { EnvironmentFactory } from '../environments/factory';
import type { SecretRedactor } from '../environments/secret-redaction';
import { localSandbox } from '../environments/drivers';
import type { LocalSandbox } from '../environments/local-sandbox';
import { LocalWorkspace } from '../environments/local-workspace';
import { sessionKeyOf } from '../environments/local-environment';
import { otherLiveWorkspacesWithin } from '../environments/live-workspaces';
import { gitObeyedPathsIn, workTreesOf } from '../environments/git-control';
import { isWithin } from '../environments/path-within';
import { isShownInSandbox, reachesHiddenData, recentReadScope, type ReadScope } from '../environments/sandbox-read-scope';
import { resolveOwnRealPath } from '../environments/real-path';
import type { EnvironmentHandle, TerminalEnvironment } from '../environments/terminal-environment';
import { recordedWorkspace } from '../workflows/recorded-workspace';
import { realPathsOn, type Workspace } from '../environments/workspace';
import { parseToolArguments } from '../registry/handle-function-call';
import type { ToolRegistry } from '../registry/registry';
import { coerceArguments } from '../registry/arguments';
import type { AssessmentRequest, BoundFile, ToolEntry } from '../registry/tool-entry';
import { persistedResultPath } from '../registry/result-budget';
import type { SessionRecord, SessionStore, StoredToolCall } from '../store/session-store';
import { parentOfInnerCall } from '../code-execution/callable-tools';
import type { HookRegistry } from '../hooks/hook-registry';
import { checkBeforeCall, preToolCallPayload } from '../hooks/tool-call-hooks';
import { mcpApprovalRequest } from '../mcp/approval-request';
import type { McpCallTarget } from '../mcp/listing-types';
import type { McpListingStore } from '../mcp/listing-store';

export interface AssessCommandInput {
  sessionId: string;
  assistantSeq: number;
  toolCallId: string;
  environment: EnvironmentHandle;
  /** Set for an MCP call: its tool is found in the listing the model saw, not in the registry. */
  mcp?: McpCallTarget;
}

export interface AssessDeps {
  /** pre_tool_call hooks, asked before the gate (absent: none). */
  hooks?: HookRegistry;
  store: SessionStore;
  config: LoadedConfig;
  registry: ToolRegistry;
  environments: EnvironmentFactory;
  /** Hides secrets in what a human is shown (the prompt, the UI, history). */
  redactor: SecretRedactor;
  mcpListings?: McpListingStore;
  /** The worker's local sandbox, asked what commands cannot see (one is made from the config when absent). */
  localSandbox?: LocalSandbox;
}

/**
 * A memory write by a session whose model read what only a person's approval gave it (the store
 * marks its later messages): every later session would read what it keeps.
 */
const REMEMBERS_AFTER_WITHHELD = {
  description: "memory write by a session given a result that needed a person's approval (every later session reads memory)",
  key: 'memory:after-approved-result',
};

const MAX_VERDICT_COMMANDS = 20;
const MAX_TEXT = 300;
const MAX_DISPLAY = 4000;
/** How much of a write's content a prompt shows. */
const MAX_PREVIEW = 1500;
/** Files larger than this are not digested: the command asks again (a problem) instead. */
const MAX_DIGEST_BYTES = 64 * 1024 * 1024;
/** Backends whose commands run in a disposable sandbox rather than on a host. */
const ISOLATED_BACKENDS = new Set(['docker', 'singularity', 'modal', 'daytona', 'vercel_sandbox']);

/** An assessment with the runtime's own lines for its display (where the command runs), kept apart until it is shown. */
type Assessed = CommandAssessment & { displayNotes?: string[] };

/** What the tool's own activity already read from the store, so judging its call reads nothing again. */
export interface LoadedCall {
  call: StoredToolCall | undefined;
  session: SessionRecord | undefined;
}

export function createAssessToolCall(deps: AssessDeps) {
  const { config } = deps;
  // Asked what commands cannot see, for the file tools that read beside them.
  const sandbox = deps.localSandbox ?? localSandbox(config);
  const assess = async function assessToolCall(input: AssessCommandInput, loaded?: LoadedCall): Promise<Assessed> {
    // A sandbox with host paths mounted can reach the host: it is checked like one.
    const isolated = ISOLATED_BACKENDS.has(input.environment.backend) && input.environment.details?.hostMounts !== true;
    const call = loaded ? loaded.call : (await deps.store.getMessage(input.sessionId, input.assistantSeq))?.toolCalls?.find((candidate) => candidate.id === input.toolCallId);
    const base: CommandAssessment = { isolated, ...(call ? { tool: call.name } : {}), cwd: input.environment.cwd };
    const args = parseToolArguments(call?.arguments);
    if (input.mcp && call && args) {
      const record = (await deps.mcpListings?.load(input.mcp.listing))?.tools.find((tool) => tool.name === call.name);
      const approval = record ? mcpApprovalRequest(record, args).approval : undefined;
      return approval ? { ...base, display: approval.display, required: { description: approval.description, key: approval.key } } : base;
    }
    const entry = call && deps.registry.get(call.name);
    // Unknown tools and unreadable arguments are reported by the tool call itself.
    // pre_tool_call runs before anyone is asked: a call a hook blocks never waits for a human.
    if (call && args && deps.hooks?.has('pre_tool_call')) {
      const parentToolCallId = parentOfInnerCall(call.id);
      const decision = await checkBeforeCall(deps.hooks, preToolCallPayload({ sessionId: input.sessionId, toolCallId: call.id, name: call.name, ...(parentToolCallId ? { parentToolCallId } : {}) }, args));
      if (decision.action === 'block') return { ...base, hookBlock: { message: decision.message, source: decision.source } };
      base.hooksChecked = true;
    }
    if (!call || !entry?.assess || !args) return base;
    let request: AssessmentRequest | undefined;
    try {
      request = requestOf(entry, args);
    } catch (error) {
      return { ...base, display: quotedText(`${call.name} ${call.arguments ?? ''}`), problem: `the ${call.name} call could not be assessed (${describe(error)})` };
    }
    // Kept for every later session: a person looks first when this session was given a secret.
    if (request?.remembers !== undefined) {
      const asked = await deps.store.getMessage(input.sessionId, input.assistantSeq);
      return asked?.sensitive ? { ...base, display: `${call.name}: ${request.remembers}`, required: REMEMBERS_AFTER_WITHHELD } : base;
    }
    // Arguments the tool will reject run nothing; an empty request touches nothing.
    if (!request || isEmpty(request)) return base;

    let environment: TerminalEnvironment;
    try {
      environment = await deps.environments.attach(input.environment);
    } catch (error) {
      return { ...base, display: displayOf(call.name, request), problem: `the ${input.environment.backend} environment could not be reached to check this call (${describe(error)})` };
    }
    const session = loaded ? loaded.session : await deps.store.getSession(input.sessionId);
    // The recorded workspace, not where the session (a sub-agent: its parent's cwd) started.
    // A local file tool writes from the worker: what the workspace's git config names is judged too.
    const gitObeyed = input.environment.backend === 'local' && !isolated && Boolean(request.writes?.length);
    // The call's own paths are resolved while the world is read: each is a round trip through
    // libuv's threads (or the backend), and neither needs the other.
    const resolving = resolveRequestedPaths(request, environment.workspace);
    const world = await worldOf(environment.workspace, recordedWorkspace(input.environment) ?? session?.cwd ?? input.environment.cwd, isolated, input.sessionId, gitObeyed);
    // A local file tool reads with the worker's rights: what the sandbox hides from commands is judged too.
    if (input.environment.backend === 'local' && !isolated && (request.reads?.length || request.searches?.length)) {
      world.sandboxScope = recentReadScope({ workspace: world.workspaceRoot, searchPath: process.env.PATH, readPaths: config.terminal.local.read_paths });
      const hidden = sandbox.hiddenFromCommands(world.workspaceRoot, sessionKeyOf(input.environment));
      // The session's own saved output lies in the host's temporary folder, which commands do not see.
      world.hiddenFromCommands = (target) => hidden(target) && !isWithin(target, world.ownResults);
    }
    // Another live session's workspace inside this one is hidden from commands: a file tool's write there asks.
    if (input.environment.backend === 'local' && !isolated && request.writes?.length) world.otherWorkspaces = otherLiveWorkspacesWithin(world.workspaceRoot, sessionKeyOf(input.environment));
    const assessment: Assessed = { ...base, display: displayOf(call.name, request) };

    const command = request.commands?.[0];
    if (command) {
      const cwd = command.workdir ? environment.workspace.resolve(command.workdir) : input.environment.cwd;
      Object.assign(assessment, await judgeCommand(command.text, cwd, world, environment, input.environment));
      // The same text means another thing elsewhere (`rm -rf lib`): whoever decides sees where it runs.
      if (cwd !== input.environment.cwd) assessment.displayNotes = [`(runs in ${tildify(cwd, world.home)})`];
    }
    if (request.processInput) Object.assign(assessment, await judgeProcessInput(request.processInput, world, environment, input.environment, input.sessionId));
    const paths = judgePaths(await resolving, world, environment.workspace);
    if (paths.findings.length) {
      assessment.paths = paths.findings;
      delete assessment.displayNotes;
      // The prompt shows where a path really leads when a link redirects it.
      // A path read and written (patch) is shown once.
      const shown = paths.findings.map((finding) =>
        finding.resolved === environment.workspace.resolve(finding.path) ? oneLine(finding.path) : `${oneLine(finding.path)} (→ ${oneLine(tildify(finding.resolved, world.home))})`,
      );
      assessment.display = `${call.name} ${[...new Set(shown)].join(' ')}`;
      // Whoever decides sees what would be written, not only where (kept out of history otherwise).
      if (request.preview !== undefined && paths.findings.some((finding) => finding.risk)) {
        assessment.display += `\n${clipShown(await writePreview(request, paths.findings, environment.workspace), MAX_PREVIEW)}`;
      }
    }
    if (paths.problem) assessment.problem = paths.problem;
    return assessment;
  };
  return async (input: AssessCommandInput, loaded?: LoadedCall): Promise<CommandAssessment> => {
    const { displayNotes, ...assessment } = await assess(input, loaded);
    // The model wrote the display: a well-known format hides only a plain token in it, never a
    // private-key block or a `TOKEN=` value holding code, which would hide what runs.
    const display = assessment.display === undefined ? undefined : deps.redactor.redactForApproval(assessment.display);
    const visible = display === undefined ? undefined : visibleText(display);
    // What the gate asks about past the cut is named after it (cut at most to the notes' share).
    const unshown =
      visible !== undefined && visible.length > MAX_DISPLAY - MAX_DISPLAY / 4
        ? unshownParts(clipShown(visible, MAX_DISPLAY - MAX_DISPLAY / 4), assessment.verdict?.rules ?? [], (text) => oneLine(deps.redactor.redactForApproval(text)))
        : [];
    // The runtime's lines come after what is clipped, so a long command cannot push them out of view.
    const notes = clip([...(displayNotes ?? []), ...unshown].map((note) => `\n${oneLine(deps.redactor.redactForApproval(note))}`).join(''), MAX_DISPLAY / 4);
    return recordedAssessment({
      ...assessment,
      // What a human reads cannot move the cursor or reorder letters, wherever it is shown later.
      ...(visible === undefined ? {} : { display: clipShown(visible, MAX_DISPLAY - notes.length) + notes }),
      // Approving a call that could not be judged covers that whole call, not what its clipped display shares with others.
      ...(assessment.problem ? { problemKey: boundedApprovalKey(`PROBLEM:${display ?? assessment.problem}`) } : {}),
    });
  };

  async function worldOf(workspace: Workspace, workspaceRoot: string, isolated: boolean, sessionId: string, withGitObeyed = false): Promise<World> {
    // The secret files are protected files too: each of the worker's files is listed and resolved once.
    const secretNames = hermesSecretFiles(config);
    const protectedNames = hermesProtectedFiles(config, workspaceRoot, secretNames);
    const ownNames = [...new Set(protectedNames)];
    // Side by side: each is a round trip to the backend (or libuv's threads) on the call's path.
    const [home, realWorkspaceRoot, ownReal] = await Promise.all([
      workspace.realpath('~').catch(() => workspace.resolve('~')),
      workspace.realpath(workspaceRoot).catch(() => workspaceRoot),
      canonicalOwnFiles(ownNames),
    ]);
    const realOf = new Map(ownNames.map((name, index) => [name, ownReal[index] ?? name]));
    const real = (names: readonly string[]) => names.map((name) => realOf.get(name) ?? name);
    const protectedFiles = real(protectedNames);
    const secretFiles = real(secretNames);
    const ownResults = path.dirname(persistedResultPath(sessionId, 'call'));
    const obeyed = withGitObeyed ? gitObeyedPathsIn(realWorkspaceRoot, workTreesOf(realWorkspaceRoot)) : { folders: [], files: [] };
    const gitObeyed = [...obeyed.folders, ...obeyed.files];
    return { home, workspaceRoot: realWorkspaceRoot, protectedFiles, secretFiles, gitObeyed, contained: isolated, ownResults, resultsRoot: path.dirname(ownResults) };
  }

  async function judgeCommand(
    text: string,
    cwd: string,
    world: World,
    environment: TerminalEnvironment,
    handle: EnvironmentHandle,
    /** Why paths in the text cannot be checked where they are assumed to be (see link-free-paths.ts). */
    pathsUntrusted?: string,
    /** Set when `cwd` is only a guess (a kept shell's start folder): files the text runs by a relative path are not known then. */
    cwdUnknown?: string,
  ): Promise<Partial<CommandAssessment>> {
    // The same verdict `hermes-temporal check-command` prints, the user's deny rules included.
    const context = {
      backend: handle.backend,
      cwd,
      workspaceRoot: world.workspaceRoot,
      home: handle.backend === 'local' ? os.homedir() : world.home,
      protectedFiles: world.protectedFiles.map((file) => file.replace(/\/$/, '')),
    };
    const assessed = assessCommandText(text, { ...context, deny: config.approvals.deny });
    const { deniedBy } = assessed;
    // A sandbox contains the delete whatever the path is; elsewhere the backend says what it is.
    const confirmed = world.contained
      ? { verdict: assessed.verdict, linkFreePaths: [] }
      : await confirmLinkFreePaths(assessed.verdict, (target) => environment.workspace.realpath(target), pathsUntrusted);
    const followed = world.contained
      ? { verdict: confirmed.verdict, real: [] }
      : await followDeleteTargets(confirmed.verdict, (target) => environment.workspace.realpath(target), world.workspaceRoot, (target) => tildify(target, world.home));
    // A path judged by its name may lead elsewhere through a link already on disk (see linked-paths.ts).
    const verdict = world.contained ? followed.verdict : await followNamedPaths(text, context, followed.verdict, (targets) => realPathsOn(environment.workspace, targets));
    // A job of the model's could make a real target a link between this look and the start: checked again then.
    const linkFreePaths = [...new Set([...confirmed.linkFreePaths, ...(pathsUntrusted ? [] : followed.real)])];
    const result: Partial<CommandAssessment> = {
      command: text,
      verdict: bounded(verdict),
      ...(deniedBy ? { deniedBy } : {}),
      ...(linkFreePaths.length ? { linkFreePaths } : {}),
    };
    // An approval binds to the files the command runs, as they are now (only where one may be asked).
    if (needsApproval(verdict) && !world.contained) {
      const files = filesRunBy(verdict.commands);
      const bound = await digestFiles(files, cwd, environment.workspace);
      if (bound.files.length) result.boundFiles = bound.files;
      if (bound.problem) result.problem = bound.problem;
      // Bound where the folder is a guess, a swapped file would go unseen: a person is told, and asked.
      const relative = cwdUnknown ? files.filter((file) => !file.startsWith('/') && file !== '~' && !file.startsWith('~/')) : [];
      if (relative.length && !result.problem) result.problem = `${cwdUnknown}: the files this text runs (${relative.map(oneLine).join(', ')}) cannot be checked where they are`;
    }
    return result;
  }

  async function judgeProcessInput(
    processInput: NonNullable<AssessmentRequest['processInput']>,
    world: World,
    environment: TerminalEnvironment,
    handle: EnvironmentHandle,
    sessionId: string,
  ): Promise<Partial<Assessed>> {
    const target = await environment.background.poll(processInput.processId, 0).catch(() => undefined);
    // No such process, or it has ended: the tool says so and nothing is typed anywhere.
    if (!target || target.info.status === 'exited') return {};
    const processVerdict = classifyCommand(target.info.command, {
      backend: handle.backend,
      cwd: target.info.cwd,
      workspaceRoot: world.workspaceRoot,
      home: world.home,
      protectedFiles: [],
    });
    const reader = commandReader(processVerdict);
    const typed = processInput.data.includes('\n') ? `\n${quotedText(processInput.data)}` : ` ${processInput.data}`;
    const display = `process ${processInput.action} to ${processInput.processId} (${oneLine(clip(target.info.command, 80))}):${typed}`;
    const partial = processInput.action === 'write' && processInput.data !== '' && !processInput.data.endsWith('\n');
    const description = { processId: processInput.processId, program: reader?.program ?? clip(target.info.command, 80), interprets: reader !== undefined, partial: partial && reader !== undefined };
    if (!reader) return { display, processInput: description };
    // Start-up code, key bindings or hooks the gate does not see: then even an empty line may run them.
    const classify = (text: string) => ({ text, commands: text.trim() === '' ? [] : classifyCommand(text, { ...classifyContext, cwd: target.info.cwd }).commands });
    const classifyContext = { backend: handle.backend, cwd: target.info.cwd, workspaceRoot: world.workspaceRoot, home: world.home, protectedFiles: [] };
    const earlier = (await typedInto(sessionId, processInput.processId)).join('');
    const setup = hiddenSetupOf({ text: target.info.command, commands: processVerdict.commands }, earlier ? classify(earlier) : undefined, classify(earlier + processInput.data));
    const typesNothing = processInput.data.trim() === '' && !(setup && (processInput.data !== '' || processInput.action === 'submit'));
    if (typesNothing) return { display, processInput: description };
    // The shell may have changed folder since it started, and the text runs with no check just before it.
    const pathsUntrusted = 'typed into a running program, whose folder is not known';
    // Where the backend can tell, the folder a `cd` typed earlier left the shell in; else where it started, a guess.
    const folder = await environment.background.inputFolder?.(processInput.processId).catch(() => undefined);
    const cwdUnknown = folder === undefined ? `the folder ${reader.program} is in now is not known (a \`cd\` typed into it may have left ${tildify(target.info.cwd, world.home)})` : undefined;
    const shellText = reader.asShellText(processInput.data);
    const judged = await judgeCommand(shellText, folder ?? target.info.cwd, world, environment, handle, pathsUntrusted, cwdUnknown);
    // Keys the terminal acts on, history the shell runs again, code set up out of sight: the text is not what runs, a person reads it.
    const uncheckable = uncheckableInput(processInput.data, reader, target.info.pty === true, setup);
    const unread = uncheckable ? [{ id: 'P01', description: uncheckable, tier: 'unknown' as const, key: `P01:${shellText}`, command: shellText }] : [];
    // Nor is where its keys say it runs: an approval of it covers this input only (MatchedRule.once).
    if (judged.verdict) judged.verdict = { ...judged.verdict, rules: [...unread, ...judged.verdict.rules].map((rule) => ({ ...rule, once: true as const })) };
    // The same text means another thing elsewhere: whoever decides sees where the shell is now.
    const moved = folder !== undefined && folder !== target.info.cwd ? { displayNotes: [`(typed into a shell now in ${tildify(folder, world.home)})`] } : {};
    return { ...judged, display, processInput: description, ...moved };
  }

  /**
   * What this session typed into process `processId` (write and submit calls that wrote), in
   * order, from the store: the model cannot rewrite it, as it could a file the process keeps.
   */
  async function typedInto(sessionId: string, processId: string): Promise<string[]> {
    const messages = await deps.store.getMessages(sessionId);
    const written = new Set(messages.filter((message) => message.role === 'tool' && message.toolCallId && /"bytes_written"/.test(message.content ?? '')).map((message) => message.toolCallId));
    const typed: string[] = [];
    for (const call of messages.flatMap((message) => message.toolCalls ?? [])) {
      if (call.name !== 'process' || !written.has(call.id)) continue;
      const args = parseToolArguments(call.arguments);
      if (!args || String(args.session_id) !== processId || typeof args.data !== 'string') continue;
      if (args.action === 'write') typed.push(args.data);
      else if (args.action === 'submit') typed.push(`${args.data}\n`);
    }
    return typed;
  }

  function judgePaths(requested: RequestedPath[], world: World, workspace: Workspace): { findings: PathFinding[]; problem?: string } {
    const findings: PathFinding[] = [];
    for (const { access, path: target, resolved, error } of requested) {
      if (resolved === undefined) return { findings, problem: `could not tell where ${target} leads (${describe(error)})` };
      const finding: PathFinding = { access, path: target, resolved, shown: tildify(resolved, world.home), contained: world.contained };
      // A file read and written (patch) whose write already waits is named once, for the write.
      const askedForWrite = access === 'read' && findings.some((earlier) => earlier.access === 'write' && earlier.risk && earlier.resolved === resolved);
      const risk = askedForWrite ? undefined : riskOf(access, resolved, world);
      if (risk) finding.risk = resolved === workspace.resolve(target) ? risk : `${risk} (through a symbolic link: ${target})`;
      if (access === 'write' && isBlockDevice(resolved)) finding.hardline = true;
      findings.push(finding);
    }
    return { findings };
  }
}

/** A path a call names, with where it leads or why that could not be told. */
interface RequestedPath {
  access: PathFinding['access'];
  path: string;
  resolved?: string;
  error?: unknown;
}

/**
 * The call's paths, writes first (what a call changes heads what a person is asked; patch also
 * reads its file), each resolved: all in one round trip where the backend can (realPathsOn); one
 * that could not be is asked again alone, for the reason a person is shown.
 */
async function resolveRequestedPaths(request: AssessmentRequest, workspace: Workspace): Promise<RequestedPath[]> {
  const wanted: { access: PathFinding['access']; path: string }[] = [
    ...(request.writes ?? []).map((target) => ({ access: 'write' as const, path: target })),
    ...(request.reads ?? []).map((target) => ({ access: 'read' as const, path: target })),
    ...(request.searches ?? []).map((target) => ({ access: 'search' as const, path: target })),
  ];
  const answers = await realPathsOn(workspace, wanted.map((entry) => entry.path));
  return Promise.all(
    wanted.map(async (entry, index): Promise<RequestedPath> => {
      const resolved = answers[index];
      if (resolved !== undefined) return { ...entry, resolved };
      return workspace.realpath(entry.path).then(
        (again) => ({ ...entry, resolved: again }),
        (error: unknown) => ({ ...entry, error }),
      );
    }),
  );
}

/** The worker's own files as real paths (a folder keeps its `/`): how paths judged against them are named. */
export function canonicalOwnFiles(files: readonly string[]): Promise<string[]> {
  const local = new LocalWorkspace(process.cwd());
  const canonical = (file: string) =>
    resolveOwnRealPath(local.resolve(file.replace(/\/$/, '') || '/')).then((real) => (file.endsWith('/') ? `${real}/` : real), () => file);
  return Promise.all(files.map(canonical));
}

interface World {
  home: string;
  workspaceRoot: string;
  protectedFiles: string[];
  secretFiles: string[];
  /** What the workspace's git config makes git read or run from it (a hooks folder, an included file), outside any sandbox. */
  gitObeyed: string[];
  contained: boolean;
  /** What a local sandboxed command may read (sandbox-read-scope.ts); unset on other backends. */
  sandboxScope?: ReadScope;
  /** What the local sandbox hides from commands or replaces with its own (LocalSandbox), this session's saved output aside; unset on other backends. */
  hiddenFromCommands?: (target: string) => boolean;
  /** Live sessions' workspaces inside this one (live-workspaces.ts), for a local write; unset otherwise. */
  otherWorkspaces?: string[];
  /** Where oversized results of every session are saved, and this session's own folder there. */
  resultsRoot: string;
  ownResults: string;
}

/**
 * Why a human must decide, or undefined. File tools run in the worker, with its rights, not in the
 * sandbox: on a host (not a disposable container) they get what commands get unasked, the
 * workspace, and wait for a human anywhere else a write would land, or where a read would reach
 * a home folder's settings (start-up files and tool configs often hold keys) or what the local
 * sandbox hides from commands (other projects, other users' data).
 */
function riskOf(access: PathFinding['access'], resolved: string, world: World): string | undefined {
  const inWorkspace = isWithin(resolved, world.workspaceRoot);
  if (access === 'write') {
    if (isBlockDevice(resolved)) return 'write to a raw disk device';
    if (isProtectedWritePath(resolved, world)) return 'write to a protected file';
    if (world.gitObeyed.some((obeyed) => isWithin(resolved, obeyed))) return 'write to what the git config makes git read or run (core.hooksPath, an included config, a program)';
    if (world.otherWorkspaces?.some((other) => isWithin(resolved, other))) return "write into another live session's workspace (inside this one's, hidden from its commands)";
    return world.contained || inWorkspace ? undefined : "write outside the session's workspace";
  }
  if (access === 'read') {
    if (isSecretRead(resolved, world.home, world.secretFiles)) return 'read of a secret file';
    if (isWithin(resolved, world.resultsRoot) && !isWithin(resolved, world.ownResults)) return "read of another session's saved output";
    if (!world.contained && !inWorkspace && isHomeDotfile(resolved, world.home)) return "read of a home folder's settings";
    if (world.hiddenFromCommands?.(resolved)) return 'read of a file the sandbox hides from commands (a hidden path, or the host\'s temporary or runtime folders or processes)';
    return world.sandboxScope && !isShownInSandbox(resolved, world.sandboxScope) ? 'read of a file the sandbox hides from commands (another project or user data)' : undefined;
  }
  if (searchReachesSecrets(resolved, world.home, world.secretFiles)) return 'search through a folder that holds secrets';
  if (world.hiddenFromCommands?.(resolved)) return 'search through a folder the sandbox hides from commands (a hidden path, or the host\'s temporary or runtime folders or processes)';
  return world.sandboxScope && reachesHiddenData(resolved, world.sandboxScope) ? 'search through folders the sandbox hides from commands (other projects or user data)' : undefined;
}

/** `{path, sha256}` of each file, as the command names it (links are followed when it is read again). */
export async function digestFiles(files: readonly string[], cwd: string, workspace: Workspace): Promise<{ files: BoundFile[]; problem?: string }> {
  const bound: BoundFile[] = [];
  for (const file of files) {
    const absolute = file === '~' || file.startsWith('~/') ? workspace.resolve(file) : path.posix.resolve(cwd, file);
    const info = await workspace.stat(absolute).catch(() => null);
    if (info && info.type !== 'file') continue;
    if (info && info.size > MAX_DIGEST_BYTES) return { files: bound, problem: `${absolute} is too large to bind the approval to its content` };
    bound.push({ path: absolute, sha256: info ? await digestOf(workspace, absolute) : null });
  }
  return { files: bound };
}

/** The file's SHA-256 now, or null when it does not exist. */
export async function digestOf(workspace: Workspace, absolute: string): Promise<string | null> {
  try {
    return createHash('sha256').update(await workspace.readFile(absolute)).digest('hex');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw error;
  }
}

function needsApproval(verdict: CommandVerdict): boolean {
  return verdict.tier === 'unknown' || verdict.rules.some((rule) => rule.tier === 'dangerous' || rule.tier === 'unknown');
}

function isEmpty(request: AssessmentRequest): boolean {
  return !request.commands?.length && !request.reads?.length && !request.writes?.length && !request.searches?.length && !request.processInput;
}

/** What a human reads: the command itself, or the tool and its path. */
function displayOf(tool: string, request: AssessmentRequest): string {
  if (request.commands?.length) return quotedText(request.commands.map((command) => command.text).join('\n'));
  const targets = new Set([...(request.writes ?? []), ...(request.reads ?? []), ...(request.searches ?? [])]);
  return targets.size ? `${tool} ${[...targets].map(oneLine).join(' ')}` : tool;
}

/** `~/x` for a path in the home folder: how people write it. */
function tildify(absolute: string, home: string): string {
  if (home !== '/' && (absolute === home || absolute.startsWith(`${home}/`))) return `~${absolute.slice(home.length)}`;
  return absolute;
}

/** At most `limit` characters, saying how many more a person deciding does not see. */
function clipShown(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const kept = limit - 50; // room for the note
  return `${text.slice(0, kept)}… [${text.length - kept} more characters not shown]`;
}

function clip(text: string, limit = MAX_TEXT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Verdicts land in workflow history: keep them small whatever the command, yet every rule still counts. */
function bounded(verdict: CommandVerdict): CommandVerdict {
  return {
    ...verdict,
    rules: boundedRules(verdict.rules).map(({ linkFreePaths: _checked, targets: _followed, ...rule }) => ({ ...rule, command: clip(rule.command), key: boundedApprovalKey(rule.key) })),
    commands: verdict.commands.slice(0, MAX_VERDICT_COMMANDS).map((command) => ({
      ...command,
      text: clip(command.text),
      args: command.args.slice(0, 20).map((arg) => clip(arg)),
    })),
  };
}

/**
 * The rules, at most MAX_VERDICT_COMMANDS: those past the limit become one rule (as severe as the
 * worst of them) whose key names them all, so approving the first ones never approves the rest.
 */
function boundedRules(rules: readonly MatchedRule[]): MatchedRule[] {
  if (rules.length <= MAX_VERDICT_COMMANDS) return [...rules];
  const kept = rules.slice(0, MAX_VERDICT_COMMANDS - 1);
  const rest = rules.slice(MAX_VERDICT_COMMANDS - 1);
  const worst = rest[0] as MatchedRule; // Rules come most severe first.
  const folded: MatchedRule = {
    id: worst.id,
    description: `${worst.description} (and ${rest.length - 1} more rules)`,
    tier: worst.tier,
    key: `MORE:${rest.map((rule) => rule.key).join('\n')}`,
    command: worst.command,
  };
  return [...kept, folded];
}

/**
 * What the call would do, from the arguments exactly as its handler will get them (coerced,
 * validated, defaults filled), so no argument the model shapes oddly escapes the assessment.
 * Undefined when the tool will reject the arguments (and so run nothing).
 */
export function requestOf(entry: ToolEntry, args: Record<string, unknown>): AssessmentRequest | undefined {
  if (!entry.assess) return undefined;
  const parsed = entry.argumentsSchema.safeParse(coerceArguments(entry.schema.parameters, args));
  return parsed.success ? entry.assess(parsed.data) : undefined;
}

/**
 * Why a gated file call must not run now, if it must not: a path it names leads somewhere other
 * than what the gate judged (a link swapped, or the cwd moved, since the assessment).
 */
export async function pathsMovedSinceAssessment(
  entry: ToolEntry,
  args: Record<string, unknown>,
  checkedPaths: readonly string[],
  workspace: Workspace,
): Promise<string | undefined> {
  let request: AssessmentRequest | undefined;
  try {
    request = requestOf(entry, args);
  } catch {
    return 'BLOCKED: the call could not be checked again before it ran; nothing was read or written.';
  }
  if (!request) return undefined;
  for (const target of [...(request.reads ?? []), ...(request.searches ?? []), ...(request.writes ?? [])]) {
    const resolved = await workspace.realpath(target).catch(() => undefined);
    if (resolved === undefined || !checkedPaths.includes(resolved)) {
      return (
        `BLOCKED: ${target} now leads to ${resolved ?? 'a path that cannot be resolved'}, not to the path that was checked before ` +
        'this call was allowed (a symbolic link or the working directory changed). Nothing was read or written; call the tool again so the new target is checked.'
      );
    }
  }
  return undefined;
}
