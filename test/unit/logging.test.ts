// What a person sees of the logs: short "LEVEL: message" lines, unless JSON is asked for; a log
// file always gets JSON.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { testNeeding } from '../helpers/services';
import { tempDir } from '../helpers/temp-dirs';

const LOGGING = path.resolve(__dirname, '../../src/logging.ts');

/** What a process that logs one warning writes to stderr. */
function runAndCaptureStderr(options: Record<string, unknown>): string {
  const script = `require(${JSON.stringify(LOGGING)}).createLogger(${JSON.stringify(options)}).warn({ detail: 1 }, 'the sandbox is off')`;
  try {
    // Exit non-zero so that execFileSync hands back stderr.
    execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', `${script}; process.exit(3)`], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    return (error as { stderr: string }).stderr;
  }
  throw new Error('the logging process did not exit as told');
}

let prettyInstalled = true;
try {
  require.resolve('pino-pretty');
} catch {
  prettyInstalled = false;
}

const prettyTitle = 'by default a warning is one short line for people, not a JSON record';
testNeeding(prettyInstalled, 'pino-pretty is not installed: run npm install', prettyTitle, () => {
  const output = runAndCaptureStderr({ level: 'warn' });
  expect(output.trim()).toBe('WARN: the sandbox is off {"detail":1}');
});

test('with format json each record is a pino JSON line', () => {
  const output = runAndCaptureStderr({ level: 'warn', format: 'json' });
  expect(JSON.parse(output.trim())).toMatchObject({ level: 40, msg: 'the sandbox is off', detail: 1 });
});

test('a log file gets JSON records whatever the console format', () => {
  const file = path.join(tempDir('hermes-log-'), 'logs', 'hermes.jsonl');
  runAndCaptureStderr({ level: 'warn', format: 'pretty', file });
  expect(JSON.parse(readFileSync(file, 'utf8').trim())).toMatchObject({ level: 40, msg: 'the sandbox is off' });
});
