// Shell text kept for later (a trap handler, the prompt variables) is judged where it is set.
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { VECTOR_CONTEXT } from './vectors/vector-types';

beforeAll(() => loadCommandClassifier());

const tier = (command: string) => classifyCommand(command, VECTOR_CONTEXT).tier;

test.each([
  "trap 'rm -rf src' EXIT",
  "trap -- 'rm -rf src' EXIT INT",
  "trap 'rm -rf src' DEBUG; echo tidy",
  "PROMPT_COMMAND='rm -rf src'",
  "export PROMPT_COMMAND='rm -rf src'",
  "declare -x PROMPT_COMMAND='rm -rf src'",
  "PROMPT_COMMAND=('rm -rf src')",
  "PROMPT_COMMAND[1]='rm -rf src'",
  "PROMPT_COMMAND='rm -rf src' bash -i",
  "PS1='$(rm -rf src) $ '",
  "export PS4='+`rm -rf src`'",
  'trap "$HANDLER" EXIT',
])('%s waits for a person', (command) => {
  expect(['dangerous', 'unknown']).toContain(tier(command));
});

test.each(["trap 'echo bye' EXIT", 'trap - EXIT', 'trap EXIT', 'trap -p', "PS1='\\u@\\h \\w$ '", "PROMPT_COMMAND='history -a'", 'export EDITOR=vim'])(
  '%s stays harmless',
  (command) => {
    expect(tier(command)).toBe('safe');
  },
);
