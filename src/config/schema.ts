// The one configuration schema: config files, environment variables and CLI flags all land here.
// Keys are snake_case, as in the original Hermes config.yaml.
import { z } from 'zod';
import { BACKENDS } from '../environments/terminal-environment';
import { mcpServersSchema } from '../mcp/server-config';

const positiveInt = z.number().int().positive();

/**
 * Tools of sessions on a backend can run on their own task queue, served by a worker on the
 * machine that has the backend (e.g. `tools-docker` on the Docker host).
 */
const taskQueue = z.string().min(1).optional();

/** `name:public_key` (from `HERMES__APPROVALS__APPROVERS`) as the entry it names; anything else as it is. */
function approverFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const at = value.lastIndexOf(':');
  return at > 0 ? { name: value.slice(0, at), public_key: value.slice(at + 1) } : { name: value, public_key: '' };
}

const dockerSchema = z
  .object({
    /** Docker API socket (DOCKER_HOST unix:// paths work too). */
    socket_path: z.string().default('/var/run/docker.sock'),
    image: z.string().default('debian:bookworm-slim'),
    /** Network access for containers; off unless asked for. */
    network: z.boolean().default(false),
    memory_mb: positiveInt.default(2048),
    cpus: z.number().positive().default(1),
    pids_limit: positiveInt.default(512),
    /**
     * Most MiB a container may write to its own filesystem (Docker's `--storage-opt size`); only
     * storage drivers with quotas keep it (btrfs with quotas on, overlay2 on XFS with pquota), and
     * a daemon that cannot keep it refuses the session. Unset: no bound.
     */
    disk_mb: positiveInt.optional(),
    /** `host:container[:ro]` bind mounts; any host mount turns dangerous-command checks back on. */
    volumes: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    /** Names of worker environment variables copied into the container. */
    forward_env: z.array(z.string()).default([]),
    /** Working directory inside the container. */
    workdir: z.string().default('/workspace'),
    /** Containers kill themselves after this long, even if their worker vanished. */
    lifetime_seconds: positiveInt.default(6 * 3600),
    /** Labelled containers older than this are removed by the orphan reaper. */
    orphan_max_age_seconds: positiveInt.default(12 * 3600),
    task_queue: taskQueue,
  })
  .strict();

const localSchema = z
  .object({
    /** on: every command runs in the bubblewrap sandbox; off: unsandboxed, with the worker's rights. */
    sandbox: z.enum(['on', 'off']).default('on'),
    /** none: no network but the sandbox's own loopback; host: the machine's network, loopback included. */
    network: z.enum(['none', 'host']).default('none'),
    /** Processes a session may run at once (fork bombs stop here). */
    max_processes: positiveInt.default(512),
    /** Address space per process, MiB (RLIMIT_AS). */
    max_memory_mb: positiveInt.default(8192),
    /** Largest file a command may write, MiB (RLIMIT_FSIZE). */
    max_file_size_mb: positiveInt.default(4096),
    /** Size of the sandbox's private /tmp, MiB. */
    tmp_size_mb: positiveInt.default(1024),
    /** What a session's background process logs may hold together in the host's temp folder, MiB (a process gets at most a quarter). */
    background_log_total_mb: positiveInt.default(2048),
    /** More files or folders commands must not see (`~/` means the home folder). */
    hidden_paths: z.array(z.string().min(1)).default([]),
    /** Folders commands may read although they hold data (other projects, non-dot home folders): absolute or `~/`. */
    read_paths: z.array(z.string().refine((entry) => entry.startsWith('/') || entry.startsWith('~/'), 'must be an absolute path or start with ~/')).default([]),
    /** Path of the bwrap binary; found on PATH when unset. */
    bwrap_path: z.string().optional(),
    /** Commands run by the workers of this queue (a sandbox host), not the session's worker. */
    task_queue: taskQueue,
  })
  .strict();

const sshSchema = z
  .object({
    host: z.string().optional(),
    port: z.number().int().min(1).max(65535).default(22),
    user: z.string().optional(),
    key_path: z.string().optional(),
    password: z.string().optional(),
    /** Pinned host key: SHA256 fingerprint as `ssh-keygen -lf` prints it (`SHA256:...`) or hex. */
    host_fingerprint: z.string().optional(),
    /** Accept a host whose key is not pinned (unsafe; off by default). */
    trust_unknown_host: z.boolean().default(false),
    /** Channels in flight per connection; keep below the server's MaxSessions (default 10). */
    max_channels: z.number().int().min(1).max(64).default(8),
    keepalive_seconds: positiveInt.default(15),
    /** Working directory on the remote host (`~` when unset). */
    workdir: z.string().optional(),
    task_queue: taskQueue,
  })
  .strict();

const singularitySchema = z
  .object({
    /** `apptainer` or `singularity`; found on PATH when unset (apptainer first). */
    binary: z.string().optional(),
    image: z.string().default('docker://debian:bookworm-slim'),
    /** Persistent overlay directory per session; a writable tmpfs when unset. */
    overlay_dir: z.string().optional(),
    /**
     * The host's network for instances, loopback included (Apptainer's own default); off unless
     * asked for: a private loopback only (`--net --network none`).
     */
    network: z.boolean().default(false),
    /**
     * The `bind path` entries of apptainer.conf (a site's shared storage, /scratch and the like):
     * off unless asked for, as the instance's commands are not judged.
     */
    site_binds: z.boolean().default(false),
    /**
     * Processes a command and what it starts may run at once (RLIMIT_NPROC): an instance shares the
     * host's process table, and no cgroup bounds it without root.
     */
    max_processes: positiveInt.default(512),
    /** Address space per process, MiB (RLIMIT_AS), as on the local backend: nor does a cgroup bound an instance's memory. */
    max_memory_mb: positiveInt.default(8192),
    workdir: z.string().default('/workspace'),
    task_queue: taskQueue,
  })
  .strict();

const modalSchema = z
  .object({
    token_id: z.string().optional(),
    token_secret: z.string().optional(),
    environment: z.string().optional(),
    app_name: z.string().default('hermes-temporal'),
    image: z.string().default('python:3.12-slim'),
    workdir: z.string().default('/workspace'),
    timeout_seconds: positiveInt.default(3600),
    /** Base URL of a Modal-compatible endpoint (tests point it at a local stand-in). */
    endpoint: z.string().optional(),
    task_queue: taskQueue,
  })
  .strict();

const daytonaSchema = z
  .object({
    api_key: z.string().optional(),
    api_url: z.string().optional(),
    target: z.string().optional(),
    image: z.string().default('python:3.12-slim'),
    workdir: z.string().default('/home/daytona/workspace'),
    task_queue: taskQueue,
  })
  .strict();

const vercelSchema = z
  .object({
    token: z.string().optional(),
    team_id: z.string().optional(),
    project_id: z.string().optional(),
    image: z.string().optional(),
    workdir: z.string().default('/vercel/sandbox'),
    timeout_seconds: positiveInt.default(1800),
    task_queue: taskQueue,
  })
  .strict();

export const configSchema = z
  .object({
    model: z
      .object({
        name: z.string().min(1).default('gpt-4o-mini'),
        /** Any OpenAI-compatible endpoint; unset means api.openai.com. */
        base_url: z.url().optional(),
        /** Read by workers only; never written into workflow history. */
        api_key: z.string().optional(),
        timeout_seconds: positiveInt.default(600),
        /** Attempts for retryable model failures (429, 5xx, network). */
        max_attempts: positiveInt.default(8),
        retry_initial_interval_ms: positiveInt.default(1000),
        /**
         * Retry an endpoint that refuses connections or whose host does not resolve although it
         * has never answered (a local model server still starting). Off: such a first call fails
         * the session at once, saying which URL could not be reached.
         */
        retry_unreachable: z.boolean().default(false),
        temperature: z.number().min(0).max(2).optional(),
      })
      .strict()
      .prefault({}),
    temporal: z
      .object({
        /** host:port of an existing server; unset means `run` starts an embedded dev server. */
        address: z.string().min(1).optional(),
        namespace: z.string().min(1).default('default'),
        task_queue: z.string().min(1).default('hermes-temporal'),
        /** Base URL of the Web UI, for printed links when connecting to an existing server. */
        ui_url: z.url().optional(),
        /** Path of the `temporal` CLI binary. */
        cli_path: z.string().optional(),
        dev_server: z
          .object({
            ip: z.string().default('127.0.0.1'),
            port: z.number().int().min(1).max(65535).default(7233),
            ui_port: z.number().int().min(1).max(65535).default(8233),
            /** SQLite file for `hermes-temporal dev`; defaults to <home>/temporal.db. */
            db_file: z.string().optional(),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    worker: z
      .object({
        max_concurrent_activities: positiveInt.default(100),
        /**
         * execute_code scripts this worker runs at once (each a process of its own); the rest wait
         * for one to end. A script holds no activity slot, so this alone bounds them.
         */
        max_concurrent_scripts: positiveInt.default(32),
        max_concurrent_workflow_tasks: positiveInt.default(40),
        /** Running tools get this long to finish when the worker is asked to stop. */
        shutdown_grace_seconds: z.number().int().min(0).default(30),
        /** A worker started while its server is down retries this long (0: for ever) before exiting. */
        connect_timeout_seconds: z.number().int().min(0).default(600),
        /**
         * Sessions kept in memory between their workflow tasks (about 400 KB each, measured by bench/parked-sessions.ts). Beyond it the least
         * recently used (sessions parked on an approval, say) are evicted and replayed from their
         * short history when they wake. The SDK's own default grows with the heap limit (thousands
         * on a large machine), so parked sessions filled the worker's memory.
         */
        max_cached_workflows: positiveInt.default(200),
        /**
         * Workflow tasks polled at once. Unset: half of max_concurrent_workflow_tasks (the SDK's
         * advice); the SDK's default of 10 left tasks queued for seconds while the worker idled.
         */
        max_concurrent_workflow_task_polls: z.number().int().min(2).optional(),
        /**
         * Tool calls of one turn handed to this worker with the workflow task that schedules them
         * (eager activities), instead of each going through the server's matching. The SDK's
         * default of 3 made a turn of 16 parallel calls start its last call ~150 ms after its first.
         * 0 sends every call through matching (spread over all workers of the queue).
         */
        max_eager_activities_per_task: z.number().int().min(0).default(16),
      })
      .strict()
      .prefault({}),
    session: z
      .object({
        max_turns: positiveInt.default(50),
        toolsets: z.array(z.string()).default(['hermes-cli']),
        disabled_toolsets: z.array(z.string()).default([]),
        /** Working directory for sessions; defaults to the directory `run` is started in. */
        cwd: z.string().optional(),
        /**
         * Which terminal calls of one model turn may run side by side (read by the worker):
         * `read_only` those the detector parses as only reading, `always` every foreground one,
         * `never` none. Calls that write a file still wait for reads of it either way.
         */
        parallel_terminal: z.enum(['read_only', 'always', 'never']).default('read_only'),
        /**
         * Calls of one turn that run at once, at most; the rest wait for a free slot. Below the
         * server's 2,000 pending activities per workflow, which a reply of 2,048 reads passed.
         */
        max_parallel_tool_calls: positiveInt.max(1000).default(64),
        /**
         * Background processes (notify_on_complete) watched at once, each by an activity; the others
         * are watched as those end. With max_parallel_tool_calls, below the server's 2,000 pending
         * activities per workflow, which a model starting thousands of processes passed.
         */
        max_parallel_watches: positiveInt.max(900).default(256),
      })
      .strict()
      .prefault({}),
    terminal: z
      .object({
        backend: z.enum(BACKENDS).default('local'),
        timeout_seconds: positiveInt.default(180),
        max_foreground_timeout_seconds: positiveInt.default(600),
        max_output_chars: positiveInt.default(50_000),
        /**
         * Worker environment variables that commands may see, beyond the allowlist (PATH, HOME,
         * USER, LOGNAME, LANG, LC_*, TERM, TZ, TMPDIR, SHELL).
         */
        env_passthrough: z.array(z.string()).default([]),
        /** Time between SIGTERM and SIGKILL when a command or process tree is stopped. */
        kill_grace_seconds: z.number().min(0).max(60).default(2),
        local: localSchema.prefault({}),
        docker: dockerSchema.prefault({}),
        ssh: sshSchema.prefault({}),
        singularity: singularitySchema.prefault({}),
        modal: modalSchema.prefault({}),
        daytona: daytonaSchema.prefault({}),
        vercel_sandbox: vercelSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    store: z
      .object({
        /** SQLite file holding transcripts; defaults to <home>/sessions.db. */
        path: z.string().optional(),
        /** PostgreSQL instead of SQLite, for workers on several machines: `postgres://user:pass@host:5432/db`. */
        postgres_url: z
          .string()
          .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
          .optional(),
        /** Connections each process keeps to PostgreSQL at most (default 10). */
        postgres_pool_size: positiveInt.optional(),
        /** A write into a full store is retried this long (the activity's deadline may end it sooner). */
        full_retry_seconds: z.number().int().min(0).default(600),
      })
      .strict()
      .prefault({}),
    approvals: z
      .object({
        /** manual: ask a human; smart: an auxiliary model decides clear cases first; off: never ask. */
        mode: z.enum(['manual', 'smart', 'off']).default('manual'),
        /** A pending approval waits this long; then it counts as denied. */
        timeout_seconds: positiveInt.default(1800),
        /** What happens to dangerous commands in unattended sessions (nobody can answer). */
        unattended_policy: z.enum(['deny', 'approve']).default('deny'),
        /** Glob patterns of commands that are always refused, in every mode. */
        deny: z.array(z.string()).default([]),
        /**
         * Accept unsigned decisions (the Temporal UI's `approvalDecision` signal). Only for servers
         * with their own authentication: anyone who reaches an open server could answer.
         */
        accept_unsigned: z.boolean().default(false),
        /**
         * Run root sessions whose start no trusted key signed (started from the Temporal UI or
         * another SDK). Only for servers with their own authentication: anyone who reaches an open
         * server could start a session with approvals off.
         */
        accept_unsigned_starts: z.boolean().default(false),
        /** Public keys of approvers on other machines (`hermes-temporal approver show` prints one); workers also run sessions they start. */
        approvers: z
          .array(
            // `name:public_key` is the same entry as one line, for the environment (a container's worker).
            z.preprocess(
              approverFromText,
              z
                .object({
                  name: z.string().min(1).max(100).regex(/^\S+$/, 'must be one word (no spaces)'),
                  public_key: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be an Ed25519 public key: 64 hex characters'),
                })
                .strict(),
            ),
          )
          .max(20)
          .default([]),
        webhook: z
          .object({
            /** POSTed a signed JSON description of every pending approval. */
            url: z.url().optional(),
            /** HMAC-SHA256 key for the X-Hermes-Signature-256 header (both directions). */
            secret: z.string().min(16).optional(),
            timeout_seconds: positiveInt.default(10),
          })
          .strict()
          .prefault({}),
        smart: z
          .object({
            /** Auxiliary model for smart approval; defaults to the session's model endpoint. */
            model: z.string().optional(),
            base_url: z.url().optional(),
            api_key: z.string().optional(),
            timeout_seconds: positiveInt.default(30),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    /** Sub-agents (`delegate_task`): each child is a child workflow running its own session. */
    delegation: z
      .object({
        /** Children of one session running at once; more wait their turn. Also the largest batch. */
        max_concurrent_children: positiveInt.default(3),
        /** How deep sub-agents may nest: 1 means children cannot delegate further. */
        max_spawn_depth: positiveInt.default(1),
        /** Turn budget of each child. */
        max_iterations: positiveInt.default(50),
        /** A child running longer is cancelled and reported as timed out; 0: no limit (else at least 30). */
        child_timeout_seconds: z.number().int().min(0).default(0),
        /** A child's final answer is cut (head and tail) to this many characters in its parent's conversation. */
        max_summary_chars: positiveInt.default(24_000),
        /** false: role 'orchestrator' is forced to 'leaf'. */
        orchestrator_enabled: z.boolean().default(true),
        /** Model for children; unset: the parent's. */
        model: z.string().min(1).optional(),
        /** Endpoint for children; unset: the parent's. */
        base_url: z.url().optional(),
        /** Key for `base_url`; read by workers only, never written into workflow history. */
        api_key: z.string().optional(),
        /** Children list the same MCP servers as their parent (they inherit its toolsets); `false` is not honoured yet. */
        inherit_mcp_toolsets: z.boolean().default(true),
        /**
         * Children's dangerous commands are approved without asking a human. Off by default: a child's
         * command waits for approval like its parent's, answerable from the root session.
         */
        subagent_auto_approve: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    /**
     * Plugins add tools, toolsets and hooks; they load when the worker starts. Every plugin is
     * opt-in: only those named in `enabled` load, and `disabled` always wins.
     */
    plugins: z
      .object({
        enabled: z.array(z.string().min(1)).default([]),
        disabled: z.array(z.string().min(1)).default([]),
        /** Also look in the project's `.hermes-temporal/plugins/` and `node_modules` (code the agent may have written: off by default). */
        project: z.boolean().default(false),
        /** A plugin hook that runs longer is abandoned (a pre_tool_call hook then blocks the call). */
        hook_timeout_seconds: z.number().positive().max(300).default(30),
      })
      .strict()
      .prefault({}),
    /** Shell hooks: programs run on the worker at hook events, JSON on stdin, JSON decision on stdout. */
    hooks: z
      .array(
        z
          .object({
            event: z.string().min(1),
            /** Program and arguments, split like a shell would (no shell runs it); `~/` is the home folder. */
            command: z.string().min(1),
            /** Regular expression on the tool name (tool events only); unset: every tool. */
            matcher: z.string().optional(),
            timeout_seconds: z.number().positive().max(300).default(60),
          })
          .strict(),
      )
      .default([]),
    /**
     * Snapshots of the session's workspace (local backend) before the first call of a turn that
     * may change it, kept in shadow git repositories under <home>/checkpoints/ for `rollback`.
     */
    checkpoints: z
      .object({
        enabled: z.boolean().default(true),
        /** Checkpoints kept per workspace; older ones are dropped. */
        keep: positiveInt.max(10_000).default(50),
        /** A workspace with more files than this (excluded folders and .gitignore'd files aside) gets no checkpoint, with a logged warning. */
        max_files: positiveInt.max(1_000_000).default(20_000),
        /** Files larger than this are left out of checkpoints. */
        max_file_mb: z.number().positive().max(10_000).default(10),
        /** The workspace's own repository (.git) has its history kept while its objects are no larger than this; a larger one gets a logged warning. */
        max_git_mb: z.number().positive().max(100_000).default(256),
        /** One snapshot may take this long (waiting for another included); past it, it is skipped. */
        timeout_seconds: positiveInt.max(600).default(30),
      })
      .strict()
      .prefault({}),
    session_search: z
      .object({
        /**
         * Which past sessions a session recalls: `workspace`, those started in its own folder or
         * below it (another project's transcripts hold its files, which the sandbox hides), or `all`.
         */
        scope: z.enum(['workspace', 'all']).default('workspace'),
      })
      .strict()
      .prefault({}),
    memory: z
      .object({
        /** MEMORY.md: the agent's own notes, injected into every new session's system prompt. */
        memory_enabled: z.boolean().default(true),
        /** USER.md: what the agent knows about the user, injected the same way. */
        user_profile_enabled: z.boolean().default(true),
        /** Characters (not tokens) of all MEMORY.md entries together. */
        memory_char_limit: positiveInt.max(100_000).default(2200),
        /** Characters of all USER.md entries together. */
        user_char_limit: positiveInt.max(100_000).default(1375),
      })
      .strict()
      .prefault({}),
    /**
     * MCP servers whose tools sessions get (`mcp__<server>__<tool>`), as in the original's
     * config.yaml; string values may hold `${ENV_VAR}` placeholders, filled on the worker.
     */
    mcp_servers: mcpServersSchema,
    /** Approval keys (or exact commands) approved forever; `always` answers add to it. */
    command_allowlist: z.array(z.string()).default([]),
    logging: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
        /** `pretty`: short lines for people on stderr; `json`: pino's JSON lines on stderr. */
        format: z.enum(['pretty', 'json']).default('pretty'),
        /** Also write every log record, as JSON, to this file. */
        file: z.string().optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type HermesConfig = z.infer<typeof configSchema>;
/** What a config file, the environment or flags may say: any subset, unvalidated. */
export type PartialConfig = z.input<typeof configSchema>;
