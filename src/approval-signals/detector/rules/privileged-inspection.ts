// System tools people run as root only to look (`sudo systemctl status nginx`, `sudo journalctl
// -u app`, `sudo docker ps`, `sudo iptables -L`): read-only by their subcommand or options, so the
// privilege rule lets them run unasked. Anything not known here, as root, asks.
import type { ExecutedCommand } from '../analysis-types';
import { args } from './rule-helpers';
import { lookupTable } from '../lookup-table';

const LOOKING_SUBCOMMANDS = lookupTable<ReadonlySet<string>>({
  systemctl: new Set(['status', 'show', 'cat', 'list-units', 'list-unit-files', 'list-timers', 'list-sockets', 'list-dependencies', 'is-active', 'is-enabled', 'is-failed']),
  docker: new Set(['ps', 'images', 'logs', 'inspect', 'info', 'version', 'top', 'port', 'diff', 'stats']),
  podman: new Set(['ps', 'images', 'logs', 'inspect', 'info', 'version', 'top', 'port', 'diff', 'stats']),
  apt: new Set(['list', 'show', 'search', 'policy', 'depends', 'rdepends']),
  'apt-cache': new Set(['show', 'search', 'policy', 'depends', 'rdepends', 'madison', 'showpkg', 'stats']),
  nft: new Set(['list']),
});

/** Programs that only report, whatever their options. */
const LOOKING_PROGRAMS = new Set(['lsof', 'ss', 'netstat', 'lsblk', 'lscpu', 'lspci', 'lsusb', 'lsmod', 'dmidecode', 'getfacl', 'dpkg-query', 'last', 'lastlog', 'w', 'who']);

/** journalctl options that delete or move journal files. */
const JOURNAL_CHANGES = /^--(vacuum|rotate|flush|sync|relinquish-var|smart-relinquish-var|setup-keys|update-catalog)/;

/** Whether `command`, run with root rights, only looks at the system. */
export function onlyInspects(command: ExecutedCommand): boolean {
  const program = command.program ?? '';
  const words = args(command).map((word) => word.value);
  const subcommand = words.find((word) => !word.startsWith('-'));
  if (LOOKING_PROGRAMS.has(program)) return true;
  const looking = LOOKING_SUBCOMMANDS[program];
  if (looking) return subcommand !== undefined && looking.has(subcommand);
  switch (program) {
    case 'journalctl':
      return !words.some((word) => JOURNAL_CHANGES.test(word));
    case 'dmesg':
      // -c/-C clear the ring buffer, -D/-E/-n change what reaches the console.
      return !words.some((word) => /^-[a-zA-Z]*[cCDEn]/.test(word) || /^--(clear|read-clear|console)/.test(word));
    case 'iptables':
    case 'ip6tables':
      // Listing (-L, -S) only: every change has an option letter of its own.
      return words.some((word) => /^-[a-zA-Z]*[LS]|^--list/.test(word)) && words.every((word) => !word.startsWith('-') || /^-[LSnvxt]+$|^--(list|list-rules|numeric|verbose|exact|line-numbers|table)(=|$)/.test(word));
    case 'fdisk':
    case 'sfdisk':
      return words.some((word) => word === '-l' || word === '--list') && words.every((word) => !word.startsWith('-') || word === '-l' || word === '--list');
    case 'dpkg':
      return words.some((word) => word.startsWith('-')) && words.every((word) => !word.startsWith('-') || /^-[lLsS]$|^--(list|listfiles|status|search)$/.test(word));
    case 'crontab':
      return words.includes('-l') && words.every((word, index) => word === '-l' || word === '-u' || words[index - 1] === '-u');
    default:
      return false;
  }
}
