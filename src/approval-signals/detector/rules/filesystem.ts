// Disks and filesystems: formatting (`mkfs*`), `dd`, and tools that wipe or repartition a device.
import type { ExecutedCommand } from '../analysis-types';
import { hasOption, parseArgs } from '../flags';
import { isBlockDevice, isOtherDevice } from '../path-classes';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalCommand, resolveTarget, targetDisplay } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';
import { lookupTable } from '../lookup-table';

const FORMATTERS = /^(?:mkfs(?:\..+)?|mke2fs|mkdosfs|mkntfs|mkexfatfs|newfs(?:_.+)?|mkswap)$/;
const DEVICE_TOOLS = lookupTable<string[]>({
  wipefs: ['-a', '--all', '-o', '--offset'],
  blkdiscard: [],
  shred: [],
  sgdisk: ['-Z', '--zap-all', '-o', '--clear', '-n', '--new', '-d', '--delete'],
  sfdisk: [],
  fdisk: [],
  parted: [],
  cfdisk: [],
});
const LISTING = ['-l', '--list', '-p', '--print', '-d', '--dump', '-s', '--show-size', '-V', '--version', '-h', '--help'];

export const filesystemRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const program = command.program;
    if (program === null) continue;
    if (FORMATTERS.test(program)) hits.push(...formatHits(command, input.context));
    else if (program === 'dd') hits.push(...ddHits(command, input.context));
    else if (program in DEVICE_TOOLS) hits.push(...deviceToolHits(command, input.context, DEVICE_TOOLS[program]!));
  }
  return hits;
};

function formatHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const parsed = parseArgs(args(command), { shortValued: 'tbLOEcCGgiIjJmMNoru', longValued: ['type'] });
  const device = parsed.operands[0];
  if (!device) return [];
  const target = resolveTarget(device, command, context);
  const canonical = canonicalCommand(command, [command.program ?? 'mkfs', targetDisplay(device, command, context)]);
  const onDevice = target.path === null || target.path.startsWith('/dev/') || target.dynamic;
  return [{ id: onDevice ? 'H04' : 'D11', canonical, command: command.text }];
}

function ddHits(command: ExecutedCommand, context: RuleContext): RuleHit[] {
  const operands = args(command).filter((word) => /^(?:if|of)=/.test(word.value));
  if (!operands.length) return [];
  const shown = operands.map((word) => {
    const [key, ...rest] = word.value.split('=');
    return `${key}=${targetDisplay({ ...word, value: rest.join('='), raw: rest.join('=') }, command, context)}`;
  });
  const canonical = canonicalCommand(command, ['dd', ...shown.sort()]);
  const hits: RuleHit[] = [{ id: 'D12', canonical, command: command.text }];
  const output = operands.find((word) => word.value.startsWith('of='));
  if (output) {
    const path = resolveTarget({ ...output, value: output.value.slice(3), raw: output.value.slice(3) }, command, context).path;
    if (path !== null && isBlockDevice(path)) hits.push({ id: 'H05', canonical, command: command.text });
    else if (path !== null && isOtherDevice(path)) hits.push({ id: 'D13', canonical, command: command.text });
  }
  return hits;
}

function deviceToolHits(command: ExecutedCommand, context: RuleContext, destructiveOptions: string[]): RuleHit[] {
  const parsed = parseArgs(args(command));
  if (LISTING.some((name) => hasOption(parsed, name)) && command.program !== 'shred') return [];
  if (destructiveOptions.length && !destructiveOptions.some((name) => hasOption(parsed, name))) return [];
  const devices = parsed.operands.filter((word) => {
    const path = resolveTarget(word, command, context).path;
    return path !== null && isBlockDevice(path);
  });
  if (!devices.length) return [];
  const canonical = canonicalCommand(command, [command.program ?? '', ...devices.map((word) => targetDisplay(word, command, context))]);
  return [{ id: 'D13', canonical, command: command.text }];
}
