// Shell text kept for later (a trap handler, the prompt variables, a variable whose value a
// program runs as a command) is judged where it is set; so is a variable naming a file a program
// writes (a history file), as a write of that file.
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

test.each([
  ['HISTFILE=~/.bashrc bash -i', 'N11'],
  ['export HISTFILE=/home/user/.profile', 'N11'],
  ['HISTFILE=~/.bashrc; bash -i', 'N11'],
  ['declare -x HISTFILE="$HOME/.zshenv"', 'N11'],
  ['env HISTFILE=~/.ssh/authorized_keys bash -i', 'N11'],
  ['HISTFILE=~/.bashrc.d/history bash -i', 'N11'],
  ['LESSHISTFILE=~/.bash_profile less notes.txt', 'N11'],
  ['NODE_REPL_HISTORY=.git/hooks/pre-commit node', 'N31'],
  ['PYTHON_HISTORY=.git/config python3', 'N31'],
  ['MYSQL_HISTFILE=/etc/profile.d/x.sh mysql', 'N10'],
  ['PSQL_HISTORY=~/.hermes-temporal/config.yaml psql', 'SELF01'],
  ['SQLITE_HISTORY=~/.profile sqlite3 app.db', 'N11'],
  ["env GIT_EXTERNAL_DIFF='rm -rf src' git diff", 'D02'],
  ["sudo GIT_EXTERNAL_DIFF='rm -rf src' git diff", 'D02'],
  ['sudo -u root HISTFILE=/etc/profile bash -i', 'N10'],
])('%s writes or runs what it names (%s)', (command, rule) => {
  const verdict = classifyCommand(command, VECTOR_CONTEXT);
  expect({ tier: verdict.tier, rules: verdict.rules.map((matched) => matched.id) }).toEqual({ tier: 'dangerous', rules: expect.arrayContaining([rule]) });
});

test.each(["trap 'echo bye' EXIT", 'HISTFILE=/dev/null bash -i', 'export HISTFILE=~/.bash_history', 'HISTFILE=.history bash -i', 'PYTHON_HISTORY=/home/user/.python_history python3', 'SSLKEYLOGFILE=/tmp/keys.log curl https://example.com', 'trap - EXIT', 'trap EXIT', 'trap -p', "PS1='\\u@\\h \\w$ '", "PROMPT_COMMAND='history -a'", 'export EDITOR=vim', 'GIT_PAGER=cat git log', "GIT_SSH_COMMAND='ssh -i deploy_key' git fetch", "PAGER='less -R' man ls"])(
  '%s stays harmless',
  (command) => {
    expect(tier(command)).toBe('safe');
  },
);
