// Data destroyed without a delete: `shred`/`srm`/`wipe` of any file, `truncate` of a file outside
// the workspace or of a database, `fallocate` (fills the disk or punches holes), and moving the
// home folder, its dot-folders or a system folder out of the way (`mv ~ /tmp/x`, `mv /etc /etc.bak`).
import { parseArgs } from '../flags';
import { classifyDeleteTarget, isCredentialPath, isHomeDotfile, isSystemConfigPath } from '../path-classes';
import { isInside } from '../paths';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalParsed, resolveTarget } from './rule-helpers';
import type { Rule } from './rule-types';

const SHREDDERS = new Set(['shred', 'srm', 'wipe', 'secure-delete', 'sfill', 'sdmem', 'fallocate']);
const DATA_FILE = /\.(?:db|sqlite3?|mdb|sql|dump|bak|wal|ibd|frm|myd|parquet|csv|json|ya?ml)$/i;

export const dataDestructionRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  const { context } = input;
  for (const command of input.analysis.commands) {
    const program = command.program;
    if (program === null || command.host) continue;
    if (SHREDDERS.has(program)) {
      const parsed = parseArgs(args(command), { shortValued: 'nsloO', longValued: ['iterations', 'size', 'random-source', 'length', 'offset'] });
      if (parsed.operands.length && !args(command).some((word) => ['--help', '--version'].includes(word.value))) hits.push({ id: 'N17', canonical: canonicalParsed(command, parsed, context, true), command: command.text });
      continue;
    }
    if (program === 'truncate') {
      const parsed = parseArgs(args(command), { shortValued: 'sr', longValued: ['size', 'reference'] });
      const destroys = parsed.operands.some((word) => {
        const path = resolveTarget(word, command, context).path;
        return path === null || !isInside(path, context.workspaceRoot) ? !(path ?? '').startsWith('/tmp/') : DATA_FILE.test(path);
      });
      if (destroys) hits.push({ id: 'N17', canonical: canonicalParsed(command, parsed, context, true), command: command.text });
      continue;
    }
    if (program === 'mv') {
      const parsed = parseArgs(args(command), { shortValued: 'St', longValued: ['target-directory', 'suffix', 'backup'] });
      const sources = parsed.options.some((option) => option.name === '-t' || option.name === '--target-directory') ? parsed.operands : parsed.operands.slice(0, -1);
      const away = sources.some((word) => {
        const path = resolveTarget(word, command, context).path;
        if (path === null) return false;
        if (isInside(context.workspaceRoot, path)) return true;
        const parent = path.slice(0, path.lastIndexOf('/')) || '/';
        const dotFolder = isHomeDotfile(path, context.home) && (path.split('/').length === context.home.split('/').length + 1 || isCredentialPath(path, context.home));
        return classifyDeleteTarget(path, context.home) !== undefined || dotFolder || (isSystemConfigPath(parent) && !/\.[\w-]+$/.test(path)) || /^\/var\/lib\/[^/]+$/.test(path) || /^\/(?:opt|srv|mnt)$/.test(path);
      });
      if (away) hits.push({ id: 'N18', canonical: canonicalParsed(command, parsed, context, true), command: command.text });
    }
  }
  return hits;
};
