// The dangerous-command detector's public entry. `loadCommandClassifier()` loads the shell
// grammar once; after that `classifyCommand()` is synchronous, pure and deterministic (it runs
// as a local activity whose result is recorded in workflow history).
import os from 'node:os';
import { classifyText } from './detector/classify-text';
import { isShellParserLoaded, loadShellParser } from './detector/shell-parser';
import { failureVerdict } from './detector/verdict-builder';
import type { ClassifyContext, CommandVerdict } from './verdict';

export function loadCommandClassifier(): Promise<void> {
  return loadShellParser();
}

export function isCommandClassifierLoaded(): boolean {
  return isShellParserLoaded();
}

/** Classifies a shell command. Never throws for any input once loaded: failures are `unknown`. */
export function classifyCommand(command: string, context: ClassifyContext): CommandVerdict {
  if (!isShellParserLoaded()) throw new Error('classifyCommand called before the shell parser was loaded: await loadCommandClassifier() first');
  try {
    return classifyText(command, context);
  } catch (error) {
    return failureVerdict(command, `internal error while classifying: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A context for tests and the CLI: local backend, this directory as cwd and workspace root. */
export function defaultClassifyContext(overrides: Partial<ClassifyContext> = {}): ClassifyContext {
  const cwd = overrides.cwd ?? process.cwd();
  return { backend: 'local', cwd, workspaceRoot: overrides.workspaceRoot ?? cwd, home: os.homedir(), protectedFiles: [], ...overrides };
}
