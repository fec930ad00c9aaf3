// Real services for backend tests (dockerd, sshd, ...) are started by scripts/services/*.sh,
// which print HERMES_TEST_* variables. Without them a suite is skipped, and says which service
// is missing; with HERMES_REQUIRE_SERVICES (set by .ci/run) a missing service fails instead.

export function serviceEnv(service: string, names: readonly string[]): Record<string, string> | undefined {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (!value) return undefined;
    values[name] = value;
  }
  return values;
}

/**
 * `describe` when the service's variables are set; otherwise a skipped suite whose name says how
 * to start the service (or, when the service is required, a failing test).
 */
export function describeWithService(
  service: string,
  names: readonly string[],
  title: string,
  body: (env: Record<string, string>) => void,
): void {
  const env = serviceEnv(service, names);
  if (env) {
    describe(title, () => body(env));
    return;
  }
  const required = (process.env.HERMES_REQUIRE_SERVICES ?? '').split(',').map((name) => name.trim());
  const hint = `${service} is not running: start it with scripts/services/${service}.sh start (sets ${names.join(', ')})`;
  if (required.includes(service)) {
    describe(title, () => {
      test(`requires ${service}`, () => {
        throw new Error(hint);
      });
    });
  } else {
    describe.skip(`${title} (skipped: ${hint})`, () => {
      test('needs the service', () => undefined);
    });
  }
}

/**
 * `test` when what it needs is here; otherwise a skipped test whose title names what is missing.
 * CI has everything: there a missing prerequisite runs the test, which fails, instead of a skip.
 */
export function testNeeding(available: boolean, missing: string, title: string, fn: jest.ProvidesCallback, timeoutMs?: number): void {
  if (available || process.env.CI) test(title, fn, timeoutMs);
  else test.skip(`${title} (skipped: ${missing})`, fn);
}
