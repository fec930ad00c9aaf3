// The one configuration schema: config files, environment variables and CLI flags all land here.
// Keys are snake_case, as in the original Hermes config.yaml.
import { z } from 'zod';
import { BACKENDS } from '../environments/terminal-environment';

const positiveInt = z.number().int().positive();

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
        max_concurrent_workflow_tasks: positiveInt.default(40),
        /** Running tools get this long to finish when the worker is asked to stop. */
        shutdown_grace_seconds: z.number().int().min(0).default(30),
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
      })
      .strict()
      .prefault({}),
    terminal: z
      .object({
        backend: z.enum(BACKENDS).default('local'),
        timeout_seconds: positiveInt.default(180),
        max_foreground_timeout_seconds: positiveInt.default(600),
        max_output_chars: positiveInt.default(50_000),
        /** Secret-looking environment variables that commands may still see. */
        env_passthrough: z.array(z.string()).default([]),
      })
      .strict()
      .prefault({}),
    store: z
      .object({
        /** SQLite file holding transcripts; defaults to <home>/sessions.db. */
        path: z.string().optional(),
      })
      .strict()
      .prefault({}),
    logging: z
      .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn') })
      .strict()
      .prefault({}),
  })
  .strict();

export type HermesConfig = z.infer<typeof configSchema>;
/** What a config file, the environment or flags may say: any subset, unvalidated. */
export type PartialConfig = z.input<typeof configSchema>;
