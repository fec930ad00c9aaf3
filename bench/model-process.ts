// The scripted model in a process of its own, as a model endpoint is in a deployment: its request
// handling then does not run on the event loop of the worker a benchmark measures.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelScriptInput } from '../src/model/model-script';

export interface ModelProcess {
  url: string;
  close(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'src/cli/main.ts');
const START_LIMIT_MS = 30_000;

export async function startScriptedModelProcess(script: ModelScriptInput): Promise<ModelProcess> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-model-'));
  const scriptFile = path.join(folder, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'scripted-model', '--script', scriptFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let printed = '';
    const timer = setTimeout(() => reject(new Error(`The scripted model did not start within ${START_LIMIT_MS / 1000} s`)), START_LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /at (http:\/\/\S+)/.exec(printed);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The scripted model exited (${code}) before serving: ${printed}`));
    });
  });
  return {
    url,
    async close() {
      child.kill('SIGINT');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
