// What the next npm, npx or yarn would read in the workspace, outside any sandbox: keys that run
// programs or load code are taken out of any package config the session created or changed; the
// user's own, unchanged, stay as they are.
import { readFileSync, symlinkSync, writeFileSync, existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { disarmPackageConfigs, readPackageConfigBaseline, recordPackageConfigBaseline, withoutIniKeys, withoutYamlKeys } from '../../../src/environments/package-config-guard';
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
});
