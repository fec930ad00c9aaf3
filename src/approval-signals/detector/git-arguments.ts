// Where a git command line's subcommand is: after git's own options, some of which take a value.
import type { ShellWord } from './analysis-types';

/** git's own options that take the next word as their value (`git -C dir status`). */
const GLOBAL_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix']);

/** The index of the subcommand in git's arguments (`args.length` when there is none). */
export function gitSubcommandIndex(args: readonly ShellWord[]): number {
  let index = 0;
  for (; index < args.length && args[index]!.value.startsWith('-'); index++) {
    if (GLOBAL_VALUED.has(args[index]!.value)) index++;
  }
  return index;
}
