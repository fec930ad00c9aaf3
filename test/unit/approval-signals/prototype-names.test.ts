// Program names, subcommands and options come from the model: the detector's tables must not
// answer `constructor` or `__proto__` from Object.prototype (that ended in an internal error).
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { VECTOR_CONTEXT } from './vectors/vector-types';

beforeAll(() => loadCommandClassifier());

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];
const PROGRAMS = ['git', 'npm', 'docker', 'kubectl', 'sed', 'tar', 'cmake', 'sudo', 'psql', 'aws', 'find', 'env', 'ssh', 'apt', 'python3', 'rg'];

test.each(NAMES)('%s as a program, subcommand or option is judged like any other word', (name) => {
  const commands = [`${name} x`, `${name.toLowerCase()} -c x`, ...PROGRAMS.flatMap((program) => [`${program} ${name} x`, `${program} --${name.toLowerCase()}=x y`])];
  for (const command of commands) {
    const verdict = classifyCommand(command, VECTOR_CONTEXT);
    expect({ command, rules: verdict.rules.map((rule) => rule.description).filter((text) => text.includes('internal error')) }).toEqual({ command, rules: [] });
  }
});
