// Shell text kept for later (a trap handler, the prompt variables, a variable whose value a
// program runs as a command) is judged where it is set.
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
  "GIT_EXTERNAL_DIFF='rm -rf src' git diff",
  "export GIT_SSH_COMMAND='rm -rf src'; git fetch",
  "GIT_PAGER='rm -rf src' git log",
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf src' git log",
  "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm -rf src'\" git log",
  "LESSOPEN='|rm -rf src %s' less notes.txt",
  "RSYNC_RSH='rm -rf src' rsync -a src host:backup",
  "BROWSER='firefox:rm -rf src' xdg-open index.html",
])('%s waits for a person', (command) => {
  expect(['dangerous', 'unknown']).toContain(tier(command));
});

test.each(["trap 'echo bye' EXIT", 'trap - EXIT', 'trap EXIT', 'trap -p', "PS1='\\u@\\h \\w$ '", "PROMPT_COMMAND='history -a'", 'export EDITOR=vim', 'GIT_PAGER=cat git log', "GIT_SSH_COMMAND='ssh -i deploy_key' git fetch", "PAGER='less -R' man ls"])(
  '%s stays harmless',
  (command) => {
    expect(tier(command)).toBe('safe');
  },
);
