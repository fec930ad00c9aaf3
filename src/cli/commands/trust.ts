// `trust [path]`: use a project's hermes-temporal.yaml as it is now. Sessions can write in the
// project's folder, so its file is used only as a person last trusted it (config/project-trust.ts).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { checkProjectFile, hermesHome, openProjectFile, PROJECT_CONFIG_FILE } from '../../config/load';
import { digestOf, trustProjectFile } from '../../config/project-trust';

export function registerTrustCommand(program: Command): void {
  program
    .command('trust')
    .description(`Trust a project's ${PROJECT_CONFIG_FILE} as it is now (used only once trusted, and again after each change)`)
    .argument('[path]', `the file, or the folder holding it`, '.')
    .action((target: string) => {
      const resolved = path.resolve(target);
      const file = existsSync(resolved) && statSync(resolved).isDirectory() ? path.join(resolved, PROJECT_CONFIG_FILE) : resolved;
      if (path.basename(file) !== PROJECT_CONFIG_FILE) throw new Error(`Only a project's ${PROJECT_CONFIG_FILE} is trusted this way, not ${file}`);
      // Read once, as `run` will read it: the bytes shown and checked are the bytes trusted.
      const project = openProjectFile(file);
      if (!project) throw new Error(`No ${file}: nothing to trust`);
      // Refused keys are refused now, not at the next run.
      checkProjectFile(file, project.content);
      trustProjectFile(hermesHome(), project);
      console.log(`Trusted ${file} as it is now (${digestOf(project.content).slice(0, 19)}...); after a change, run trust again. It reads:`);
      for (const line of project.content.trimEnd().split('\n')) console.log(`  ${line}`);
    });
}
