// Helpers shared by the registry tests: stand-in tools for names this project does not ship, and
// a pino logger that keeps its records in memory so tests can read the warnings.
import pino from 'pino';
import { z } from 'zod';
import type { Logger } from '../../../src/logging';
import type { ToolRegistry } from '../../../src/registry/registry';
import type { CheckFn } from '../../../src/registry/tool-entry';
import { CORE_TOOLS, TOOLSETS } from '../../../src/registry/toolset-table';

export interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export const LOG_LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A real pino logger writing JSON lines into `records`. */
export function captureLogger(): { logger: Logger; records: LogRecord[]; warnings: () => string[] } {
  const records: LogRecord[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void records.push(JSON.parse(line) as LogRecord) });
  const warnings = () => records.filter((record) => record.level === LOG_LEVEL.warn).map((record) => record.msg);
  return { logger, records, warnings };
}

export interface StandInOptions {
  checkFn?: CheckFn;
  description?: string;
}

/** Registers tools that answer `{"tool": name}`, standing in for tools this project does not have. */
export function registerStandIns(
  registry: ToolRegistry,
  toolset: string,
  names: readonly string[],
  options: StandInOptions = {},
): void {
  for (const name of names) {
    registry.register({
      name,
      toolset,
      schema: z.object({}),
      description: options.description ?? `Stand-in for ${name}`,
      checkFn: options.checkFn,
      handler: () => JSON.stringify({ tool: name }),
    });
  }
}

/**
 * Fills a registry with a stand-in for every tool named by the static toolsets, each registered
 * under the first plain (non-preset, non-posture, non-composite) toolset that lists it, like the
 * original's built-ins. Core tools listed by no plain toolset (`read_terminal`, `close_terminal`)
 * go to `terminal`, where the original registers them.
 */
export function registerStaticUniverse(registry: ToolRegistry): void {
  for (const [toolset, definition] of Object.entries(TOOLSETS)) {
    if (toolset.startsWith('hermes-') || definition.posture || definition.includes.length) continue;
    registerStandIns(registry, toolset, definition.tools.filter((tool) => !registry.has(tool)));
  }
  registerStandIns(registry, 'terminal', CORE_TOOLS.filter((tool) => !registry.has(tool)));
}

/** Tool names of a definitions list, in order. */
export function namesOf(definitions: readonly { function: { name: string } }[]): string[] {
  return definitions.map((definition) => definition.function.name);
}
