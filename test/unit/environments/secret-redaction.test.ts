// What the model, the transcript and the CLI see of tool output that holds secrets: markers naming
// the kind of secret instead of its value, and ordinary output left exactly as it was.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../../../src/config/load';
import { truncateMiddle } from '../../../src/environments/bounded-output';
import { createSecretRedactor, isSecretVariableName, safeTail, urlPassword } from '../../../src/environments/secret-redaction';

// Fake values in the real formats (none of them was ever a working credential).
const FAKE = {
  openai: 'sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3',
  openaiLegacy: 'sk-T3BlbkFJ1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s0',
  anthropic: 'sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEfGhIjKlMnOp_QrSt',
  github: 'ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R',
  githubApp: 'ghs_9z8Y7x6W5v4U3t2S1r0Q9p8O7n6M5l4K3j2I',
  githubFineGrained: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS',
  gitlab: 'glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn',
  awsKeyId: 'AKIAIOSFODNN7EXAMPLE',
  awsSessionKeyId: 'ASIAY34FZKBOKMUTVV7A',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  slackBot: 'xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  slackWebhook: 'https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/abcdefghijklmnopqrstuvwx',
  google: 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY',
  stripe: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
  stripeRestricted: 'rk_live_51H8abcDEF123ghiJKL456mno',
  npm: 'npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
};

const RSA_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK',
  'LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const OPENSSH_KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACDkN2KxVqL1Wc5y3QoGQ0f9dX4n8kq2pN6y0ZJ9F3TzHAAAAJiKp7nWiq',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');

/** The environment of the attack: names the old filter missed, with realistic values. */
const WORKER_ENV = {
  PGPASSWORD: 'Pg-Prod-Pass-2026!',
  DATABASE_URL: 'postgres://app_user:Db-S3cret-Value@db.internal:5432/app',
  HERMES_STORE_POSTGRES_URL: 'postgresql://hermes:Hermes-Store-Pw-77@pg.internal:5432/hermes',
  REDIS_URL: 'redis://:Redis-Pass-4471@cache.internal:6379/0',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/cccccccccccccccccccccccc',
  GH_PAT: 'ghp_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8N',
  PRIVATE_KEY_PEM: RSA_KEY,
  DEPLOY_TOKEN: 'opaque-deploy-token-5f1c',
  // Ordinary variables that must stay readable.
  HOME: '/home/runner',
  PATH: '/usr/local/bin:/usr/bin:/bin',
  AWS_REGION: 'eu-central-1',
  GITHUB_SHA: '3f786850e387550fdab836ed7e6dc881de23001b',
  GITHUB_REPOSITORY: 'example-org/example-repo',
  GITHUB_WORKSPACE: '/home/runner/work/example-repo/example-repo',
  NODE_ENV: 'production',
  LANG: 'en_US.UTF-8',
};

const redactor = createSecretRedactor({ env: WORKER_ENV });

describe('well-known key formats are replaced by a marker naming the kind', () => {
  test.each([
    ['openai-key', FAKE.openai],
    ['openai-key', FAKE.openaiLegacy],
    ['anthropic-key', FAKE.anthropic],
    ['github-token', FAKE.github],
    ['github-token', FAKE.githubApp],
    ['github-token', FAKE.githubFineGrained],
    ['gitlab-token', FAKE.gitlab],
    ['aws-access-key-id', FAKE.awsKeyId],
    ['aws-access-key-id', FAKE.awsSessionKeyId],
    ['slack-token', FAKE.slackBot],
    ['google-api-key', FAKE.google],
    ['stripe-key', FAKE.stripe],
    ['stripe-key', FAKE.stripeRestricted],
    ['npm-token', FAKE.npm],
    ['jwt', FAKE.jwt],
  ])('%s: %s', (kind, secret) => {
    const text = `before ${secret} after`;
    expect(redactor.redact(text)).toBe(`before [REDACTED:${kind}] after`);
  });

  test('an AWS secret access key keeps its name', () => {
    expect(redactor.redact(`aws_secret_access_key = ${FAKE.awsSecret}\nregion = eu-west-1`)).toBe(
      'aws_secret_access_key = [REDACTED:aws-secret-key]\nregion = eu-west-1',
    );
    expect(redactor.redact(`{"SecretAccessKey": "${FAKE.awsSecret}"}`)).not.toContain(FAKE.awsSecret);
  });

  test('a Slack webhook URL keeps its host', () => {
    expect(redactor.redact(`posting to ${FAKE.slackWebhook}`)).toBe('posting to https://hooks.slack.com/[REDACTED:slack-webhook]');
  });

  test('Authorization headers keep their scheme', () => {
    expect(redactor.redact('curl -H "Authorization: Bearer abcdef0123456789abcdef0123"')).toBe(
      'curl -H "Authorization: Bearer [REDACTED:authorization]"',
    );
    expect(redactor.redact('authorization: Basic dXNlcjpwYXNzd29yZDEyMw==')).toBe('authorization: Basic [REDACTED:authorization]');
    expect(redactor.redact('token is Bearer 0123456789abcdefABCDEF.xyz')).toBe('token is Bearer [REDACTED:bearer-token]');
  });
});

describe('private-key blocks', () => {
  test('a PEM block split over lines is replaced whole, the text around it stays', () => {
    expect(redactor.redact(`key:\n${OPENSSH_KEY}\ndone`)).toBe('key:\n[REDACTED:private-key]\ndone');
  });

  test('a block whose END was cut off (truncated output) still goes', () => {
    const truncated = RSA_KEY.split('\n').slice(0, 3).join('\n');
    // Formats only: the worker's PEM variable would otherwise match line by line first.
    const redacted = createSecretRedactor({}).redact(`${truncated}\n`);
    expect(redacted).toContain('[REDACTED:private-key]');
    expect(redacted).not.toContain('MIIEowIBAAKCAQEA');
  });

  test('the tail of a block whose BEGIN was cut off (an output tail) goes too', () => {
    const tail = RSA_KEY.split('\n').slice(2).join('\n');
    expect(createSecretRedactor({}).redact(`...${tail}\nexit 0`)).toBe('...[REDACTED:private-key]\nexit 0');
    expect(createSecretRedactor({}).redact(JSON.stringify({ outputTail: tail }))).toBe('{"outputTail":"[REDACTED:private-key]"}');
  });

  test('inside a JSON tool result, where line breaks are escaped', () => {
    const result = JSON.stringify({ output: `cat id_rsa\n${RSA_KEY}`, exit_code: 0 });
    const redacted = redactor.redactResult(result);
    expect(JSON.parse(redacted)).toEqual({ output: 'cat id_rsa\n[REDACTED:env:PRIVATE_KEY_PEM]', exit_code: 0 });
    expect(redactor.redact(result)).not.toContain('MIIEowIBAAKCAQEA');
  });

  test('a public key or certificate is not a secret', () => {
    const text = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG user@host';
    expect(redactor.redact(text)).toBe(text);
  });
});

describe('URLs with a password keep the user and hide the password', () => {
  test.each([
    ['postgres://admin:hunter22@localhost:5432/db', 'postgres://admin:[REDACTED:url-password]@localhost:5432/db'],
    ['mysql://root:p%40ss%3Aword@127.0.0.1/x', 'mysql://root:[REDACTED:url-password]@127.0.0.1/x'],
    ['redis://:only-a-password@cache:6379', 'redis://:[REDACTED:url-password]@cache:6379'],
    ['https://deploy:tok3n@git.example.com/repo.git', 'https://deploy:[REDACTED:url-password]@git.example.com/repo.git'],
  ])('%s', (url, expected) => {
    expect(redactor.redact(`connecting to ${url} ...`)).toBe(`connecting to ${expected} ...`);
  });

  test('URLs without a password stay', () => {
    const text = 'https://example.com:8443/path?q=1 ssh://git@github.com/org/repo.git git@github.com:org/repo.git http://[::1]:8080/';
    expect(redactor.redact(text)).toBe(text);
  });
});

describe('password and token assignments (dotenv, shell, JSON, YAML)', () => {
  test.each([
    ['DB_PASSWORD=hunter2', 'DB_PASSWORD=[REDACTED:password]'],
    ['export API_TOKEN=abc123def', 'export API_TOKEN=[REDACTED:secret]'],
    ['psql --password=s3cr3t -h db', 'psql --password=[REDACTED:password] -h db'],
    ['GET /cb?access_token=abcdef123&state=x', 'GET /cb?access_token=[REDACTED:secret]&state=x'],
    ['{"password": "hunter2", "user": "bob"}', '{"password": "[REDACTED:password]", "user": "bob"}'],
    ["{'client_secret': 'abc-123-xyz'}", "{'client_secret': '[REDACTED:secret]'}"],
    ['db:\n  password: letmein\n  host: db', 'db:\n  password: [REDACTED:password]\n  host: db'],
    ['- api_key: AbCd1234', '- api_key: [REDACTED:secret]'],
  ])('%s', (text, expected) => {
    expect(redactor.redact(text)).toBe(expected);
  });

  test('references, placeholders and prose stay', () => {
    const text = [
      'PASSWORD=$DB_PASSWORD',
      'token=${TOKEN}',
      'password: <your-password>',
      'secret: true',
      'fix token: refresh on 401',
      '"max_tokens": 1024',
      '"type": "secret"',
    ].join('\n');
    expect(redactor.redact(text)).toBe(text);
  });

  test('a key embedded in JSON output of a command is found', () => {
    const output = JSON.stringify({ credentials: { openai: FAKE.openai, note: 'rotate monthly' } }, null, 2);
    const redacted = redactor.redact(output);
    expect(redacted).not.toContain(FAKE.openai);
    expect(JSON.parse(redacted)).toEqual({ credentials: { openai: '[REDACTED:openai-key]', note: 'rotate monthly' } });
  });
});

describe("the worker's secret variables are hidden by value", () => {
  test.each([
    ['PGPASSWORD', WORKER_ENV.PGPASSWORD],
    ['DATABASE_URL', WORKER_ENV.DATABASE_URL],
    ['HERMES_STORE_POSTGRES_URL', WORKER_ENV.HERMES_STORE_POSTGRES_URL],
    ['REDIS_URL', WORKER_ENV.REDIS_URL],
    ['SLACK_WEBHOOK_URL', WORKER_ENV.SLACK_WEBHOOK_URL],
    ['GH_PAT', WORKER_ENV.GH_PAT],
    ['PRIVATE_KEY_PEM', WORKER_ENV.PRIVATE_KEY_PEM],
    ['DEPLOY_TOKEN', WORKER_ENV.DEPLOY_TOKEN],
  ])('%s', (name, value) => {
    const redacted = redactor.redact(`value: ${value}\n`);
    expect(redacted).toBe(`value: [REDACTED:env:${name}]\n`);
  });

  test('the password of a URL variable alone, and encoded forms of a value', () => {
    expect(redactor.redact('pw=Db-S3cret-Value')).not.toContain('Db-S3cret-Value');
    expect(redactor.redact(`echo ${Buffer.from(WORKER_ENV.DEPLOY_TOKEN).toString('base64')}`)).toBe('echo [REDACTED:env:DEPLOY_TOKEN]');
    expect(redactor.redact(`q=${encodeURIComponent(WORKER_ENV.PGPASSWORD)}`)).toBe('q=[REDACTED:env:PGPASSWORD]');
    // A PEM variable printed without quotes (`echo $PRIVATE_KEY_PEM`) loses its line breaks: its lines still go.
    const unquoted = WORKER_ENV.PRIVATE_KEY_PEM.split('\n').join(' ');
    expect(redactor.redact(unquoted)).not.toMatch(/MIIEowIBAAKCAQEA|VTLw7onLRnrq0/);
  });

  test('a value in a JSON tool result is hidden even where JSON escapes its characters', () => {
    const result = JSON.stringify({ output: `"${WORKER_ENV.PGPASSWORD}"`, exit_code: 0 });
    expect(redactor.redactResult(result)).toBe(JSON.stringify({ output: '"[REDACTED:env:PGPASSWORD]"', exit_code: 0 }));
  });

  test('a variable whose value is a known key format is hidden whatever its name', () => {
    const custom = createSecretRedactor({ env: { MY_SETTING: FAKE.openai } });
    expect(custom.redact(`x ${FAKE.openai}`)).toBe('x [REDACTED:env:MY_SETTING]');
  });

  test("the worker's own directory stays readable: PWD is the shell's, not a password", () => {
    const cwd = '/work/projects/my-service';
    expect(createSecretRedactor({ env: { PWD: cwd, OLDPWD: '/work/projects' } }).redact(`ls ${cwd}`)).toBe(`ls ${cwd}`);
    expect(createSecretRedactor({ env: { MYSQL_PWD: 'hunter2-but-longer' } }).redact('pw hunter2-but-longer')).not.toContain('hunter2');
  });

  test('ordinary variables stay readable, short values are never matched', () => {
    const text = `cd ${WORKER_ENV.GITHUB_WORKSPACE} && git checkout ${WORKER_ENV.GITHUB_SHA} # ${WORKER_ENV.AWS_REGION} ${WORKER_ENV.NODE_ENV} ${WORKER_ENV.LANG}`;
    expect(redactor.redact(text)).toBe(text);
    const short = createSecretRedactor({ env: { API_KEY: 'abc' } });
    expect(short.redact('abc abc')).toBe('abc abc');
  });

  test('secret variable names, by the documented heuristic', () => {
    for (const name of ['PGPASSWORD', 'MYSQL_PWD', 'GH_PAT', 'GITHUB_TOKEN', 'OPENAI_API_KEY', 'SLACK_WEBHOOK_URL', 'PRIVATE_KEY_PEM', 'SENTRY_DSN', 'CLIENT_SECRET', 'GOOGLE_APPLICATION_CREDENTIALS', 'TLS_PEM']) {
      expect([name, isSecretVariableName(name)]).toEqual([name, true]);
    }
    for (const name of ['PATH', 'HOME', 'PWD', 'OLDPWD', 'AWS_REGION', 'GITHUB_SHA', 'MONKEY', 'KEYBOARD_LAYOUT', 'TOKENIZERS_PARALLELISM']) {
      expect([name, isSecretVariableName(name)]).toEqual([name, false]);
    }
  });

  test('urlPassword decodes the password of a URL', () => {
    expect(urlPassword('postgres://u:p%40ss@h/db')).toBe('p@ss');
    expect(urlPassword('https://example.com/x')).toBeUndefined();
  });
});

test('config secrets are hidden by value, named by their key', () => {
  const config = loadConfig({
    env: { HERMES_TEMPORAL_HOME: '/tmp/hermes-redaction-home' },
    projectDir: '/tmp',
    flags: {
      model: { api_key: 'model-key-value-0001', base_url: 'https://proxy-user:proxy-pass-9@llm.example.com/v1' },
      approvals: { webhook: { url: 'https://hooks.example.com/x', secret: 'webhook-hmac-secret-0002' }, smart: { api_key: 'smart-key-value-0003' } },
      terminal: {
        ssh: { password: 'ssh-password-0004' },
        modal: { token_id: 'ak-modal-id-0005', token_secret: 'as-modal-secret-0006' },
        daytona: { api_key: 'daytona-key-0007' },
        vercel_sandbox: { token: 'vercel-token-0008' },
        docker: { env: { SERVICE_TOKEN: 'docker-env-token-0009', LOG_LEVEL: 'debug-verbose' } },
      },
      store: { postgres_url: 'postgres://hermes:store-password-0010@pg:5432/hermes' },
    },
  });
  const configured = createSecretRedactor({ env: {}, config });
  const expectations: [string, string][] = [
    ['model-key-value-0001', 'config:model.api_key'],
    ['proxy-pass-9', 'config:model.base_url:password'],
    ['webhook-hmac-secret-0002', 'config:approvals.webhook.secret'],
    ['smart-key-value-0003', 'config:approvals.smart.api_key'],
    ['ssh-password-0004', 'config:terminal.ssh.password'],
    ['ak-modal-id-0005', 'config:terminal.modal.token_id'],
    ['as-modal-secret-0006', 'config:terminal.modal.token_secret'],
    ['daytona-key-0007', 'config:terminal.daytona.api_key'],
    ['vercel-token-0008', 'config:terminal.vercel_sandbox.token'],
    ['docker-env-token-0009', 'config:terminal.docker.env.SERVICE_TOKEN'],
    ['store-password-0010', 'config:store.postgres_url:password'],
  ];
  for (const [value, label] of expectations) expect(configured.redact(`[${value}]`)).toBe(`[[REDACTED:${label}]]`);
  expect(configured.redact('debug-verbose')).toBe('debug-verbose');
});

describe('ordinary output is left exactly as it is', () => {
  const ordinary = [
    'commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main, origin/main)',
    'Merge: 1a2b3c4 5d6e7f8',
    'Author: Dev Person <dev.person@example.com>',
    'Date:   Tue Dec 1 21:30:29 2026 +0000',
    '',
    '    Fix the token refresh; password prompts now time out (closes #42)',
    ' src/auth/token-store.ts | 12 ++++++------',
    'npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.',
    'added 412 packages, and audited 413 packages in 9s',
    'found 0 vulnerabilities',
    'npm notice New minor version of npm available! 10.8.2 -> 10.9.0',
    'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt',
    'digest: sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 size: 1570',
    'request id 123e4567-e89b-12d3-a456-426614174000 took 12ms',
    'SGVsbG8sIHRoaXMgaXMgb3JkaW5hcnkgdGV4dCBpbiBiYXNlNjQu',
    'docker.io/library/node:20-bookworm-slim@sha256:abc123',
    'Listening on http://127.0.0.1:8233 and https://registry.npmjs.org/-/v1/search?text=sk-learn',
    'PASS test/unit/auth/secret-store.test.ts (1.2 s)',
    'key_path: /home/user/.ssh/id_ed25519',
    'token_count=512 max_tokens=1024',
    'const apiKey = process.env.OPENAI_API_KEY;',
    '    token = self._load_token(path)',
    'secret = secrets.token_hex(16)',
    '  const token = await getToken();',
    '  conn_info.password = pass;',
    '  token: process.env.VERCEL_TOKEN!,',
    '  privateKey: privateKey',
    '  withXSRFToken: boolean | undefined,',
    "  headers: { 'X-API-Key': 'secret' },",
    'HERMES_TEMPORAL_HOME=/tmp/h OPENAI_API_KEY= npm run demo',
    'export OPENAI_API_KEY=sk-...   # your key',
    'postgres://user:password@host:5432/db and http://srt:<token>@127.0.0.1:8080',
    'ask-anything-skeleton sk-learn-pipeline-builder',
  ].join('\n');

  test('git log, npm output, digests, UUIDs, base64 of text and code', () => {
    expect(redactor.redact(ordinary)).toBe(ordinary);
  });

  test('thousands of random hashes, UUIDs and base64 strings: no false redaction', () => {
    const lines: string[] = [];
    for (let index = 0; index < 2000; index++) {
      lines.push(
        createHash('sha1').update(String(index)).digest('hex'),
        createHash('sha256').update(String(index)).digest('hex'),
        randomUUID(),
        Buffer.from(`line ${index} of ordinary text, nothing secret here`).toString('base64'),
        randomBytes(12).toString('hex'),
      );
    }
    const text = lines.join('\n');
    const redacted = redactor.redact(text);
    const falseRedactions = (redacted.match(/\[REDACTED:/g) ?? []).length;
    expect(falseRedactions).toBe(0);
  });
});

describe('secrets cut in two by truncation or a tail', () => {
  test('the word on each side of a truncation notice is hidden: its fragment is unrecognisable', () => {
    // A command can pad its output so that a secret straddles the cut.
    // A command can pad its output so that a secret straddles a cut: 40% of 2000 is kept at the head, 60% at the tail.
    const atHeadCut = `${'x '.repeat(395)}${WORKER_ENV.DEPLOY_TOKEN}${' y'.repeat(2000)}`;
    const atTailCut = `${'x '.repeat(2000)}${WORKER_ENV.DEPLOY_TOKEN}${' y'.repeat(590)}\nend`;
    for (const output of [atHeadCut, atTailCut]) {
      const cut = truncateMiddle(output, 2000);
      expect(cut).toMatch(/opaque-de|oken-5f1c/);
      const redacted = redactor.redact(cut);
      expect(redacted).toContain('[REDACTED:partial]');
      expect(redacted).not.toMatch(/opaque-de|oken-5f1c/);
      expect(redacted).toContain('[OUTPUT TRUNCATED - ');
      expect(redactor.redactResult(JSON.stringify({ output: cut }))).not.toMatch(/opaque-de|oken-5f1c/);
    }
  });

  test('a tail that begins inside a word (maybe a secret) hides that fragment', () => {
    expect(safeTail('short', 10)).toBe('short');
    expect(safeTail(`first ${WORKER_ENV.DEPLOY_TOKEN}\nsecond line`, 20)).toBe('[REDACTED:partial]\nsecond line');
    expect(safeTail('first second third', 12)).toBe('second third');
    // A long run of output is no secret fragment: kept as it is.
    expect(safeTail(`${'x'.repeat(5000)}\nEND`, 2000)).toBe(`${'x'.repeat(1996)}\nEND`);
  });
});

describe('robustness', () => {
  test('redacting twice gives the same text', () => {
    const text = `k=${FAKE.openai} postgres://a:b1234567@h ${RSA_KEY} password=hunter2 ${WORKER_ENV.PGPASSWORD}`;
    const once = redactor.redact(text);
    expect(redactor.redact(once)).toBe(once);
  });

  test('redactValue copies a JSON value with every string redacted', () => {
    const value = { outputTail: `token ${FAKE.github}`, nested: [{ url: WORKER_ENV.REDIS_URL }], count: 3, flag: true, none: null };
    expect(redactor.redactValue(value)).toEqual({
      outputTail: 'token [REDACTED:github-token]',
      nested: [{ url: '[REDACTED:env:REDIS_URL]' }],
      count: 3,
      flag: true,
      none: null,
    });
    expect(value.outputTail).toContain(FAKE.github);
    expect(redactor.redactValue({ [FAKE.openai]: 'used' })).toEqual({ '[REDACTED:openai-key]': 'used' });
  });

  test('redactResult keeps unchanged JSON byte for byte and changed JSON valid', () => {
    const pretty = JSON.stringify({ output: 'hello', exit_code: 0 }, null, 2);
    expect(redactor.redactResult(pretty)).toBe(pretty);
    const changed = redactor.redactResult(JSON.stringify({ output: `x ${FAKE.npm}`, error: null }));
    expect(JSON.parse(changed)).toEqual({ output: 'x [REDACTED:npm-token]', error: null });
    expect(redactor.redactResult('{not json sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9v')).toBe('{not json [REDACTED:openai-key]');
  });

  test('never throws, whatever it is given', () => {
    for (const input of ['', '\u0000\uffff', 'x'.repeat(200_000), '-----BEGIN PRIVATE KEY-----', 'a://b:c@', undefined, null, 42]) {
      expect(() => redactor.redact(input as string)).not.toThrow();
      expect(() => redactor.redactResult(input as string)).not.toThrow();
      expect(() => redactor.redactValue(input)).not.toThrow();
    }
  });

  test('output crafted to make patterns backtrack stays fast (a command can print anything)', () => {
    const base64Lines = randomBytes(38_000).toString('base64').replace(/.{64}/g, '$&\n');
    const crafted = [
      `PRIVATE KEY\n${base64Lines}`,
      `-----BEGIN PRIVATE KEY-----\n${base64Lines}`,
      '-----BEGIN PRIVATE KEY----- x\n'.repeat(2000),
      `${base64Lines}-----END PRIVATE KEY-----`.repeat(3),
      'a://b:c'.repeat(7000),
      'password='.repeat(5000),
      '"password": "'.repeat(3000),
      'sk-'.repeat(16_000),
      'eyJaaaaaaaaaa.'.repeat(4000),
      `password: ${'a'.repeat(40)} `.repeat(1000),
    ];
    for (const text of crafted) {
      const started = performance.now();
      redactor.redact(text);
      expect([text.slice(0, 30), performance.now() - started < 250]).toEqual([text.slice(0, 30), true]);
    }
  });

  test('a 50 KB output is redacted in a few milliseconds', () => {
    const text = `${'ordinary line of build output 0123456789abcdef\n'.repeat(1100)}${FAKE.openai}`;
    redactor.redact(text);
    const started = performance.now();
    for (let round = 0; round < 10; round++) redactor.redact(text);
    // Generous bound for a loaded CI machine; bench/redaction.ts measures it properly.
    expect((performance.now() - started) / 10).toBeLessThan(25);
  });
});
