// What the next npm, npx or yarn would read in the workspace, outside any sandbox: keys that run
// programs or load code are taken out of any package config the session created or changed; the
// user's own, unchanged, stay as they are.
import { readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync, existsSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { disarmPackageConfigs, packageConfigBaseline, readPackageConfigBaseline, recordPackageConfigBaseline, withoutIniKeys, withoutYamlKeys } from '../../../src/environments/package-config-guard';
import { startSwapping } from '../../helpers/folder-swapper';
import { tempDir } from '../../helpers/temp-dirs';

describe('the keys that go', () => {
  it('.npmrc and .yarnrc: programs, code to load, other configs and registries; tokens and the rest stay', () => {
    const npmrc = [
      '; a comment',
      'node-options=--require=/work/.cache/warm.js',
      'script-shell = /work/payload.sh',
      'Shell=/bin/evil',
      'onload-script=./x.js',
      'git=./git.sh',
      'registry=https://evil.example/',
      '@acme:registry=https://evil.example/',
      'globalconfig=/work/other.npmrc',
      'node-options[]=--import=x',
      '"editor"=./vi.sh',
      '//registry.npmjs.org/:_authToken=npm_TOKEN',
      'save-exact=true',
      '',
    ].join('\n');
    const { kept, keys } = withoutIniKeys(npmrc);
    expect(keys).toEqual(['node-options', 'script-shell', 'Shell', 'onload-script', 'git', 'registry', '@acme:registry', 'globalconfig', 'node-options', 'editor']);
    expect(kept).toBe('; a comment\n//registry.npmjs.org/:_authToken=npm_TOKEN\nsave-exact=true\n');
    expect(withoutIniKeys('yarn-path "./.cache/yarn.js"\n--install.require ./x.js\nnetwork-timeout 600000\n')).toEqual({ kept: 'network-timeout 600000\n', keys: ['yarn-path', '--install.require'] });
  });

  it('.yarnrc.yml: yarnPath, plugins with everything listed under them, and the registries; the rest stays', () => {
    const yaml = [
      'nodeLinker: node-modules',
      'yarnPath: .cache/yarn.cjs',
      'plugins:',
      '- path: .cache/plugin.cjs',
      '  spec: x',
      '  - nested',
      '"npmRegistryServer": "https://evil.example"',
      'enableTelemetry: false',
      'injectEnvironmentFiles:',
      '  - .env.evil',
      '',
    ].join('\n');
    const { kept, keys } = withoutYamlKeys(yaml);
    expect(keys).toEqual(['yarnPath', 'plugins', 'npmRegistryServer', 'injectEnvironmentFiles']);
    expect(kept).toBe('nodeLinker: node-modules\nenableTelemetry: false\n');
  });
});

describe('disarmPackageConfigs', () => {
  it("leaves the user's own files as the session found them, and disarms what changed or appeared since", () => {
    const workspace = tempDir();
    const state = tempDir();
    // The user's own, with a key it would take out of a planted file: it stays.
    writeFileSync(path.join(workspace, '.yarnrc'), 'yarn-path "/opt/yarn.js"\n');
    writeFileSync(path.join(workspace, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_TOKEN\n', { mode: 0o600 });
    recordPackageConfigBaseline(state, workspace);
    const baseline = readPackageConfigBaseline(state);
    expect(disarmPackageConfigs(baseline)).toEqual([]);

    writeFileSync(path.join(workspace, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_TOKEN\nnode-options=--require=./.cache/warm.js\n');
    writeFileSync(path.join(workspace, '.yarnrc.yml'), 'yarnPath: ./.cache/yarn.cjs\n');
    expect(disarmPackageConfigs(baseline)).toEqual(['.npmrc node-options', '.yarnrc.yml yarnPath']);
    expect(readFileSync(path.join(workspace, '.npmrc'), 'utf8')).toBe('//registry.npmjs.org/:_authToken=npm_TOKEN\n');
    expect(lstatSync(path.join(workspace, '.npmrc')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(workspace, '.yarnrc'), 'utf8')).toBe('yarn-path "/opt/yarn.js"\n');
    // Nothing left to take: said once.
    expect(disarmPackageConfigs(baseline)).toEqual([]);
    // A second record keeps the first: the session's start is what counts.
    recordPackageConfigBaseline(state, workspace);
    expect(readPackageConfigBaseline(state)).toEqual(baseline);
  });

  it('removes a link in place of a config rather than writing through it', () => {
    const workspace = tempDir();
    const state = tempDir();
    recordPackageConfigBaseline(state, workspace);
    const target = path.join(tempDir(), 'elsewhere');
    writeFileSync(target, 'node-options=--require=x\n');
    symlinkSync(target, path.join(workspace, '.npmrc'));
    expect(disarmPackageConfigs(readPackageConfigBaseline(state))).toEqual(['.npmrc']);
    expect(existsSync(path.join(workspace, '.npmrc'))).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('node-options=--require=x\n');
  });

  it("never reads, rewrites or renames through a folder swapped for a link: the user's ~/.npmrc and ~/.bunfig.toml stay", () => {
    const workspace = tempDir();
    const state = tempDir();
    const home = tempDir();
    mkdirSync(path.join(workspace, 'packages', 'app'), { recursive: true });
    mkdirSync(path.join(workspace, 'packages', 'lib'), { recursive: true });
    writeFileSync(path.join(workspace, 'packages', 'app', '.npmrc'), 'save-exact=true\n');
    writeFileSync(path.join(workspace, 'packages', 'lib', '.bunfig.toml'), 'smol = true\n');
    recordPackageConfigBaseline(state, workspace);
    const npmrc = 'registry=https://npm.internal.example/\n//npm.internal.example/:_authToken=user-token\n';
    writeFileSync(path.join(home, '.npmrc'), npmrc);
    writeFileSync(path.join(home, '.bunfig.toml'), 'preload = ["./user.ts"]\n');
    // A command swaps each package folder for a link to the home, and the parent of one too.
    renameSync(path.join(workspace, 'packages', 'app'), path.join(workspace, 'packages', 'app-old'));
    symlinkSync(home, path.join(workspace, 'packages', 'app'));
    renameSync(path.join(workspace, 'packages'), path.join(workspace, 'packages-old'));
    mkdirSync(path.join(workspace, 'packages'));
    symlinkSync(home, path.join(workspace, 'packages', 'lib'));
    symlinkSync(path.join(workspace, 'packages-old', 'app'), path.join(workspace, 'packages', 'app'));
    const baseline = readPackageConfigBaseline(state);
    // (The moved folder's files, made a moment ago, count as new: only what lies behind a link must stay.)
    const removed = disarmPackageConfigs(baseline, { everywhere: true, written: [path.join(workspace, 'packages', 'lib', '.npmrc')] });
    expect(removed.filter((entry) => entry.startsWith('packages/'))).toEqual([]);
    expect(readFileSync(path.join(home, '.npmrc'), 'utf8')).toBe(npmrc);
    expect(readFileSync(path.join(home, '.bunfig.toml'), 'utf8')).toContain('user.ts');
    expect(existsSync(path.join(home, '.bunfig.toml.hermes-disarmed'))).toBe(false);
  });

  it('writes its rewritten config through no link planted under the name of its temporary file', () => {
    const workspace = tempDir();
    const state = tempDir();
    recordPackageConfigBaseline(state, workspace);
    const target = path.join(tempDir(), '.bashrc');
    writeFileSync(target, '# the user\'s\n');
    symlinkSync(target, path.join(workspace, `.npmrc.hermes-${process.pid}.tmp`));
    writeFileSync(path.join(workspace, '.npmrc'), 'node-options=--require=x\necho planted\n');
    expect(disarmPackageConfigs(readPackageConfigBaseline(state))).toEqual(['.npmrc node-options']);
    expect(readFileSync(target, 'utf8')).toBe("# the user's\n");
    expect(readFileSync(path.join(workspace, '.npmrc'), 'utf8')).toBe('echo planted\n');
  });

  it("guards subfolders' configs and the tools' code files (.pnpmfile.cjs, bunfig.toml): the user's stay, new or changed ones are disarmed", () => {
    const workspace = tempDir();
    const state = tempDir();
    mkdirSync(path.join(workspace, 'packages', 'app'), { recursive: true });
    mkdirSync(path.join(workspace, 'packages', 'web'), { recursive: true });
    mkdirSync(path.join(workspace, 'node_modules', 'dep'), { recursive: true });
    // The user's own, there before the session: they stay.
    writeFileSync(path.join(workspace, 'packages', 'app', '.npmrc'), 'registry=https://npm.example.com/\n');
    writeFileSync(path.join(workspace, '.pnpmfile.cjs'), 'module.exports = { hooks: {} };\n');
    recordPackageConfigBaseline(state, workspace);
    const baseline = readPackageConfigBaseline(state);
    expect(disarmPackageConfigs(baseline, { everywhere: true })).toEqual([]);

    writeFileSync(path.join(workspace, 'packages', 'app', '.npmrc'), 'registry=https://npm.example.com/\nnode-options=--require=./x.js\n');
    writeFileSync(path.join(workspace, 'packages', 'web', '.yarnrc.yml'), 'plugins:\n  - path: ./x.js\nenableTelemetry: false\n');
    writeFileSync(path.join(workspace, 'packages', 'web', '.pnpmfile.cjs'), "require('./x.js');\n");
    writeFileSync(path.join(workspace, 'bunfig.toml'), 'preload = ["./x.js"]\n');
    // No tool reads a package's own config inside node_modules.
    writeFileSync(path.join(workspace, 'node_modules', 'dep', '.npmrc'), 'node-options=--require=./x.js\n');
    // Each command: the top folder and the files the session found; the rest at its end.
    expect(disarmPackageConfigs(baseline).sort()).toEqual(['bunfig.toml (set aside as bunfig.toml.hermes-disarmed)', 'packages/app/.npmrc node-options', 'packages/app/.npmrc registry']);
    expect(disarmPackageConfigs(baseline, { everywhere: true }).sort()).toEqual(['packages/web/.pnpmfile.cjs (set aside as .pnpmfile.cjs.hermes-disarmed)', 'packages/web/.yarnrc.yml plugins']);
    expect(readFileSync(path.join(workspace, 'packages', 'web', '.yarnrc.yml'), 'utf8')).toBe('enableTelemetry: false\n');
    expect(existsSync(path.join(workspace, 'packages', 'web', '.pnpmfile.cjs'))).toBe(false);
    expect(readFileSync(path.join(workspace, 'bunfig.toml.hermes-disarmed'), 'utf8')).toContain('preload');
    expect(readFileSync(path.join(workspace, '.pnpmfile.cjs'), 'utf8')).toContain('hooks');
    expect(readFileSync(path.join(workspace, 'node_modules', 'dep', '.npmrc'), 'utf8')).toContain('node-options');
    // A file a tool wrote is checked at once, wherever it lies.
    mkdirSync(path.join(workspace, 'packages', 'lib'));
    const written = path.join(workspace, 'packages', 'lib', '.yarnrc');
    writeFileSync(written, 'yarn-path ./x.js\n');
    expect(disarmPackageConfigs(baseline, { written: [written] })).toEqual(['packages/lib/.yarnrc yarn-path']);
  });

  it("leaves a subfolder's config the first look did not reach and nobody changed since", () => {
    const workspace = tempDir();
    const state = tempDir();
    recordPackageConfigBaseline(state, workspace);
    mkdirSync(path.join(workspace, 'deep'));
    const old = path.join(workspace, 'deep', '.npmrc');
    writeFileSync(old, 'registry=https://npm.example.com/\n');
    const baseline = readPackageConfigBaseline(state)!;
    // As if it had been there before the session: its change time older than the look.
    expect(disarmPackageConfigs({ ...baseline, since: Date.now() + 60_000 }, { everywhere: true })).toEqual([]);
    expect(disarmPackageConfigs(baseline, { everywhere: true })).toEqual(['deep/.npmrc registry']);
  });

  it('counts a file written just after the first look as new even when the file system clock stamps it a few ms earlier', () => {
    const workspace = tempDir();
    const state = tempDir();
    recordPackageConfigBaseline(state, workspace);
    mkdirSync(path.join(workspace, 'deep'));
    const planted = path.join(workspace, 'deep', '.npmrc');
    writeFileSync(planted, 'node-options=--require=./x.js\n');
    const baseline = readPackageConfigBaseline(state)!;
    // The kernel's coarse clock lags Date.now() by up to a tick (4-10 ms).
    const lagged = { ...baseline, since: statSync(planted).ctimeMs + 8 };
    expect(disarmPackageConfigs(lagged, { everywhere: true })).toEqual(['deep/.npmrc node-options']);
  });
  it('setting a code file aside removes nothing outside the workspace when a folder under that name has a link swapped in', async () => {
    const workspace = realpathSync(tempDir());
    const home = realpathSync(tempDir());
    const names = Array.from({ length: 40 }, (_, index) => `precious-${index}`);
    for (const name of names) writeFileSync(path.join(home, name), 'precious');
    const baseline = packageConfigBaseline(workspace);
    const setAside = path.join(workspace, 'bunfig.toml.hermes-disarmed');
    let rounds = 0;
    for (let round = 0; round < 30; round++) {
      // The name the code file is set aside under, taken by a folder whose subfolder a script
      // swaps with a link to the home while the worker clears the name.
      rmSync(setAside, { recursive: true, force: true });
      mkdirSync(path.join(setAside, 'inner'), { recursive: true });
      for (const name of names) writeFileSync(path.join(setAside, 'inner', name), 'made by the session');
      symlinkSync(home, path.join(setAside, 'inner-alt'));
      rmSync(path.join(workspace, 'bunfig.toml'), { force: true });
      writeFileSync(path.join(workspace, 'bunfig.toml'), `preload = ["./x${round}.js"]\n`);
      const { started, stop } = startSwapping(path.join(setAside, 'inner'), path.join(setAside, 'inner-alt'));
      try {
        await started;
        if (disarmPackageConfigs(baseline).includes('bunfig.toml (set aside as bunfig.toml.hermes-disarmed)')) rounds++;
      } finally {
        await stop();
      }
      expect(readdirSync(home).sort()).toEqual([...names].sort());
      expect(existsSync(path.join(workspace, 'bunfig.toml'))).toBe(false);
    }
    expect(rounds).toBeGreaterThan(5);
  }, 60_000);
});

