// Benchmark: secret redaction of a 50 KB tool output (ordinary build/git output with a few
// secrets), with a worker environment holding a dozen secret variables. Prints latency; it does
// not pass or fail.
//   npx tsx bench/redaction.ts             (200 rounds)
//   ROUNDS=1000 npx tsx bench/redaction.ts
import { createHash, randomUUID } from 'node:crypto';
import { createSecretRedactor } from '../src/environments/secret-redaction';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const TARGET_CHARS = 50 * 1024;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function ordinaryLine(index: number): string {
  const sha = createHash('sha1').update(String(index)).digest('hex');
  switch (index % 6) {
    case 0:
      return `commit ${sha}\nAuthor: Dev Person <dev@example.com>\nDate:   Tue Dec 1 12:00:${String(index % 60).padStart(2, '0')} 2026 +0000\n\n    Fix the retry loop in module ${index}\n`;
    case 1:
      return `npm warn deprecated package-${index}@1.0.${index}: use other-package instead\nadded ${index} packages, and audited ${index * 3} packages in 2s\n`;
    case 2:
      return `${createHash('sha256').update(String(index)).digest('hex')}  dist/file-${index}.js\n`;
    case 3:
      return `request ${randomUUID()} finished in ${index} ms (status 200) https://registry.example.org/pkg/-/pkg-${index}.tgz\n`;
    case 4:
      return `${Buffer.from(`ordinary text number ${index} in base64`).toString('base64')}\n`;
    default:
      return `  PASS  test/unit/module-${index}.test.ts (${(index % 9) / 10}s)\n`;
  }
}

function output(): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < TARGET_CHARS; index++) {
    const line =
      index === 50
        ? 'export OPENAI_API_KEY=sk-proj-abc123DEF456ghi789JKL012mno345pqr678\n'
        : index === 120
          ? '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n'
          : index === 200
            ? 'connecting to postgres://app:s3cretPassw0rd@db.internal:5432/app\n'
            : ordinaryLine(index);
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

function main(): void {
  const env: Record<string, string> = { ...process.env } as Record<string, string>;
  Object.assign(env, {
    PGPASSWORD: 'Tr0ub4dor&3-horse',
    DATABASE_URL: 'postgres://app:s3cretPassw0rd@db.internal:5432/app',
    HERMES_STORE_POSTGRES_URL: 'postgresql://hermes:hermes-db-pass-91@pg:5432/hermes',
    REDIS_URL: 'redis://:redis-pass-4471@cache:6379/0',
    SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0000000/B0000000/abcdefghijklmnopqrstuvwx',
    GH_PAT: `ghp_${'x1Y2'.repeat(9)}`,
    PRIVATE_KEY_PEM: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----',
    OPENAI_API_KEY: 'sk-proj-abc123DEF456ghi789JKL012mno345pqr678',
    STRIPE_SECRET_KEY: `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
    DEPLOY_TOKEN: 'deploy-token-0123456789',
  });
  const buildStarted = performance.now();
  const redactor = createSecretRedactor({ env });
  const buildMs = performance.now() - buildStarted;
  const text = output();
  const json = JSON.stringify({ output: text, exit_code: 0, error: null });

  const measure = (run: () => string) => {
    for (let round = 0; round < 20; round++) run();
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      run();
      samples.push(performance.now() - started);
    }
    return samples.sort((left, right) => left - right);
  };
  const format = (ms: number) => `${ms.toFixed(3)} ms`;
  const report = (label: string, samples: number[]) =>
    console.log(`${label.padEnd(28)} median ${format(percentile(samples, 50))}  p95 ${format(percentile(samples, 95))}  max ${format(samples.at(-1) ?? 0)}`);

  console.log(`redactor built in ${buildMs.toFixed(2)} ms; ${redactor.knownValueCount} known values (with encoded forms)`);
  console.log(`output: ${text.length} characters; ${ROUNDS} rounds`);
  report('redact(text)', measure(() => redactor.redact(text)));
  report('redactResult(json result)', measure(() => redactor.redactResult(json)));
  const markers = redactor.redact(text).match(/\[REDACTED:[^\]]+\]/g) ?? [];
  console.log(`markers in the output: ${markers.length} (${[...new Set(markers)].join(', ')})`);
}

main();
