// Links a text may make by other means than `ln -s` before it writes or reads through them. At
// gate time `notes.md` is no link yet, but `tar xf fixtures.tar && echo x >> notes.md` may first
// unpack `notes.md -> ~/.hermes/config.yaml`; so may unzip, cpio, a checkout, a patch or a
// link-keeping copy. What they unpack cannot be seen before they run: a path inside what they
// write into is a link of unknown destination, and the gate asks. A link moved or copied as a
// link (`mv A B`, `cp -a A B`, `rsync -a A B`, `ln A B`) is on disk already: `B` leads where
// `A` leads, which the gate looks up (approval-signals/linked-paths.ts). Pure.
//
// Order in the text is not order at run time (loops, functions called later, background jobs,
// the stages of a pipeline run at once), so a maker anywhere in the text counts, the command
// itself excepted.
import type { Analysis, ExecutedCommand, ShellWord } from './analysis-types';
import { hasOption, isLongPrefix, optionWord, parseArgs } from './flags';
import { gitSubcommandIndex } from './git-arguments';
import { isInside, isStrictlyInside, normalisePath } from './paths';
import { isBuildTool } from './program-knowledge';
import { args, resolveTarget } from './rules/rule-helpers';
import type { RuleContext } from './rules/rule-types';
import { literalWord } from './shell-words';

/** A command that may leave links of unknown destination inside `inside` (the folders it writes into) or at `at` itself. */
export interface LinkMaker {
  command: ExecutedCommand;
  inside: string[];
  at: string[];
}

/** `to`, and what is under it, is after the command what `from` (and what is under it) is: a link stays a link. */
export interface LinkCopy {
  command: ExecutedCommand;
  from: string;
  to: string;
}

export interface LinksMadeInText {
  makers: LinkMaker[];
  copies: LinkCopy[];
}

/** What an access of a path may meet: a link of unknown destination, and the paths on disk whose destination it takes. */
export interface MadeLinkAt {
  maker?: ExecutedCommand;
  sources: string[];
}

/** Anywhere: a folder only known at run time. */
const ANYWHERE = '/';
/** Copies of copies followed this deep; past it the path is taken for an unknown link. */
const MAX_COPY_DEPTH = 4;

const TARS = new Set(['tar', 'bsdtar', 'gtar']);
/** git subcommands that write the work tree from commits, patches or stashes (links in them come out as links). */
const TREE_WRITING_GIT = new Set(['checkout', 'switch', 'restore', 'pull', 'merge', 'rebase', 'cherry-pick', 'revert', 'stash', 'apply', 'am', 'clone', 'worktree', 'submodule', 'subtree', 'sparse-checkout', 'bisect', 'read-tree', 'checkout-index', 'reset']);
/** Subversion and Mercurial subcommands that write the working copy (both keep links). */
const TREE_WRITING_SVN = new Set(['checkout', 'co', 'update', 'up', 'switch', 'sw', 'export', 'merge', 'patch', 'revert']);
const TREE_WRITING_HG = new Set(['clone', 'update', 'up', 'checkout', 'co', 'pull', 'import', 'patch', 'unshelve', 'rebase', 'merge', 'revert', 'graft', 'backout', 'histedit', 'strip', 'unbundle']);
/** Past this many makers and copies in one text every access asks: each access is matched against them all. */
const MAX_MAKERS = 256;

export function linksMadeInText(analysis: Analysis, context: RuleContext): LinksMadeInText {
  const found: LinksMadeInText = { makers: [], copies: [] };
  for (const command of analysis.commands) {
    if (command.program === null || command.host) continue;
    const made = linksMadeBy(command, context);
    if (made.inside.length || made.at.length) found.makers.push({ command, ...made });
    for (const copy of copiesBy(command, context)) {
      if (copy.from === undefined) found.makers.push({ command, inside: [copy.to], at: [copy.to] });
      else found.copies.push({ command, from: copy.from, to: copy.to });
    }
  }
  return found;
}

/** Whether the command only reads what it moves, unpacks or applies (a link among them stays a link, or fails to parse). */
export function movesLinksOnly(command: string, made: LinksMadeInText): boolean {
  return made.makers.some((maker) => maker.command.text === command) || made.copies.some((copy) => copy.command.text === command);
}

/** Whether a read by `program` is judged at all: build and test tools run the tree's own code, which reads anything it likes. */
export function readerRunsTreeCode(program: string | null): boolean {
  return program !== null && isBuildTool(program);
}

/** What `path`, accessed by `command`, may be by the time it is accessed. */
export function madeLinkAt(path: string, command: string, made: LinksMadeInText, depth = 0, budget = { visits: 64 }): MadeLinkAt {
  // Too many to match each access against, or copies of copies past what is followed: taken for an unknown link.
  const first = made.makers[0]?.command ?? made.copies[0]?.command;
  if (first && (made.makers.length + made.copies.length > MAX_MAKERS || --budget.visits < 0)) return { maker: first, sources: [] };
  const maker = made.makers.find((candidate) => candidate.command.text !== command && (candidate.inside.some((folder) => isStrictlyInside(path, folder)) || candidate.at.some((at) => isInside(path, at))));
  if (maker) return { maker: maker.command, sources: [] };
  const sources: string[] = [];
  for (const copy of made.copies) {
    if (copy.command.text === command || !isInside(path, copy.to)) continue;
    const source = normalisePath(copy.from + path.slice(copy.to.length));
    if (depth >= MAX_COPY_DEPTH) return { maker: copy.command, sources: [] };
    const further = madeLinkAt(source, copy.command.text, made, depth + 1, budget);
    if (further.maker) return further;
    sources.push(source, ...further.sources);
  }
  return { sources: [...new Set(sources)] };
}

/** Folders an unpacking, checkout or patch writes into (links of unknown destination may come out there). */
function linksMadeBy(command: ExecutedCommand, context: RuleContext): { inside: string[]; at: string[] } {
  const words = args(command);
  const place = (word: ShellWord | undefined): string => (word === undefined ? null : resolveTarget(word, command, context).path) ?? ANYWHERE;
  const here = command.cwd ?? ANYWHERE;
  const folders = (...names: string[]) => {
    const given = optionWords(words, ...names);
    return { inside: given.length ? given.map(place) : [here], at: [] };
  };
  const none = { inside: [], at: [] };
  const program = command.program!;
  if (TARS.has(program)) return tarExtracts(words) ? folders('-C', '--directory') : none;
  switch (program) {
    case 'unzip':
      return words.some((word) => /^-[a-zA-Z]*[lptvzZ]/.test(word.value)) ? none : folders('-d');
    case '7z':
    case '7za':
    case '7zz':
      return ['x', 'e'].includes(words[0]?.value ?? '') ? folders('-o') : none;
    case 'unar':
      return folders('-o', '--output-directory');
    case 'cpio':
      if (words.some((word) => /^-[a-zA-Z]*i/.test(word.value) || word.value === '--extract')) return folders('-D', '--directory');
      return words.some((word) => /^-[a-zA-Z]*p/.test(word.value) || word.value === '--pass-through') ? { inside: parseArgs(words, { shortValued: 'CDEFHIMORs' }).operands.map(place), at: [] } : none;
    case 'pax':
      return words.some((word) => /^-[a-zA-Z]*r/.test(word.value)) ? { inside: [here], at: [] } : none;
    case 'patch':
      return folders('-d', '--directory');
    case 'git':
      return gitTreeWrites(command, words, context, place);
    case 'svn':
      return TREE_WRITING_SVN.has(words.find((word) => !word.value.startsWith('-'))?.value ?? '') ? inRepository(command.cwd, context) : none;
    case 'hg':
      return TREE_WRITING_HG.has(words.find((word) => !word.value.startsWith('-'))?.value ?? '') ? inRepository(command.cwd, context) : none;
    case 'python':
    case 'python3': {
      // `python3 -m tarfile -e a.tar [dir]` unpacks as tar does (into the folder named, or here).
      const module = words.findIndex((word) => word.value === '-m');
      const rest = words.slice(module + 2);
      if (module === -1 || words[module + 1]?.value !== 'tarfile' || !rest.some((word) => ['-e', '--extract'].includes(word.value))) return none;
      return { inside: [here, ...rest.filter((word) => !word.value.startsWith('-')).map(place)], at: [] };
    }
    case 'rsync':
      return rsyncFromElsewhere(words, place);
    case 'ln':
      return lnWithUnknownTarget(words, place);
    case 'docker':
    case 'podman': {
      // `docker cp ctr:/x ./y` copies a container's links as links.
      const operands = parseArgs(words).operands;
      if (operands[0]?.value !== 'cp' || operands.length < 3 || !operands.slice(1, -1).some((word) => !word.literal || isRemote(word.value))) return none;
      const destination = place(operands.at(-1));
      return { inside: [destination], at: [destination] };
    }
    default:
      return none;
  }
}

function tarExtracts(words: readonly ShellWord[]): boolean {
  // Old style: the first word is a bundle without a dash (`tar xzf a.tgz`).
  const first = words[0]?.value ?? '';
  if (/^[a-zA-Z]+$/.test(first) && first.includes('x')) return true;
  return words.some((word) => /^-[a-zA-Z]*x/.test(word.value) || isLongPrefix(word.value, '--extract', 5) || word.value === '--get');
}

function gitTreeWrites(command: ExecutedCommand, words: readonly ShellWord[], context: RuleContext, place: (word: ShellWord | undefined) => string): { inside: string[]; at: string[] } {
  const index = gitSubcommandIndex(words);
  const subcommand = words[index]?.value ?? '';
  const rest = words.slice(index + 1);
  if (!TREE_WRITING_GIT.has(subcommand) || !writesTree(subcommand, rest)) return { inside: [], at: [] };
  const global = words.slice(0, index);
  const worktree = optionWords(global, '--work-tree')[0] ?? optionWords(global, '-C')[0];
  const base = worktree === undefined ? command.cwd : place(worktree);
  const { inside } = inRepository(base, context);
  // A clone, a new worktree or submodule: the folder named.
  if (['clone', 'worktree', 'submodule'].includes(subcommand)) inside.push(...rest.filter((word) => !word.value.startsWith('-') && !/^[\w.+-]+:|^[^/]*@[^/]*:/.test(word.value)).map((word) => resolveTarget(word, { cwd: base }, context).path ?? ANYWHERE));
  return { inside, at: [] };
}

/** A working copy whose top may be above the folder the tool runs in: the workspace is taken as that top. */
function inRepository(base: string | null, context: RuleContext): { inside: string[]; at: string[] } {
  if (base === null) return { inside: [ANYWHERE], at: [] };
  return { inside: isInside(base, context.workspaceRoot) ? [base, context.workspaceRoot] : [base], at: [] };
}

function writesTree(subcommand: string, rest: readonly ShellWord[]): boolean {
  const values = rest.map((word) => word.value);
  switch (subcommand) {
    case 'stash':
      return !['list', 'show', 'create', 'store', 'drop', 'clear'].includes(values[0] ?? '');
    case 'apply':
      return !values.some((value) => ['--check', '--stat', '--numstat', '--summary', '--cached'].includes(value)) || values.includes('--apply');
    case 'reset':
      return values.some((value) => ['--hard', '--merge', '--keep'].includes(value));
    case 'worktree':
      return values[0] === 'add';
    case 'submodule':
      return ['update', 'add', 'init'].includes(values[0] ?? 'update') || values.length === 0;
    case 'bisect':
      return !['log', 'view', 'visualize', 'terms'].includes(values[0] ?? '');
    case 'read-tree':
      return values.some((value) => /^-[a-z]*u/.test(value));
    case 'checkout':
    case 'switch': {
      // A new branch where one stands (`checkout -b x`, `switch -c x`) leaves the tree as it is.
      const newBranch = values.findIndex((value) => ['-b', '-B', '-c', '-C', '--orphan', '--create', '--force-create'].includes(value));
      return newBranch === -1 || values.filter((value, index) => index !== newBranch + 1 && !value.startsWith('-')).length > 0;
    }
    case 'checkout-index':
    default:
      return true;
  }
}

/** `rsync -a host:dir dest`: what arrives cannot be seen (local sources are copies, see copiesBy). */
function rsyncFromElsewhere(words: readonly ShellWord[], place: (word: ShellWord | undefined) => string): { inside: string[]; at: string[] } {
  const parsed = parseRsync(words);
  if (!parsed || !keepsLinks(parsed.options)) return { inside: [], at: [] };
  if (!parsed.sources.some((word) => !word.literal || isRemote(word.value))) return { inside: [], at: [] };
  const destination = place(parsed.destination);
  return { inside: [destination], at: [destination] };
}

/** `ln -s "$X" notes.md`: a link whose destination is only known at run time. */
function lnWithUnknownTarget(words: readonly ShellWord[], place: (word: ShellWord | undefined) => string): { inside: string[]; at: string[] } {
  const parsed = parseArgs(words, { shortValued: 'St', longValued: ['target-directory', 'suffix', 'backup'] });
  const directory = optionWords(words, '-t', '--target-directory')[0];
  const link = directory === undefined && parsed.operands.length > 1 ? parsed.operands.at(-1) : undefined;
  const files = link ? parsed.operands.slice(0, -1) : parsed.operands;
  if (files.every((word) => word.literal)) return { inside: [], at: [] };
  const at = link ? place(link) : directory !== undefined ? place(directory) : ANYWHERE;
  return { inside: [at], at: [at] };
}

/** Moves and link-keeping copies: each source (undefined when only known at run time) and where it lands. */
function copiesBy(command: ExecutedCommand, context: RuleContext): { from?: string; to: string }[] {
  const words = args(command);
  let sources: ShellWord[];
  let destination: ShellWord | undefined;
  let intoFolder = false;
  let cwdOfSources: (string | null)[] = [command.cwd];
  switch (command.program) {
    case 'mv':
    case 'cp':
    case 'ln': {
      const parsed = parseArgs(words, { shortValued: 'St', longValued: ['target-directory', 'suffix', 'backup'] });
      // A plain `cp` or `cp -L` writes what a link leads to, as a plain file: a read, judged as one.
      if (command.program === 'cp' && (!keepsLinksCp(parsed.options) || hasOption(parsed, '-L', '--dereference'))) return [];
      const directory = optionWords(words, '-t', '--target-directory')[0];
      destination = directory ?? (parsed.operands.length > 1 ? parsed.operands.at(-1) : undefined);
      sources = directory ? parsed.operands : parsed.operands.slice(0, -1);
      intoFolder = directory !== undefined || sources.length > 1;
      if (command.program === 'ln' && destination === undefined && parsed.operands.length === 1) {
        sources = parsed.operands;
        destination = literalWord('.');
        intoFolder = true;
      }
      if (command.program === 'ln' && hasOption(parsed, '-s', '--symbolic') && destination) {
        // A symbolic link's relative text is read from the link's folder.
        const link = resolveTarget(destination, command, context).path;
        cwdOfSources = link === null ? [command.cwd] : [command.cwd, link, link.slice(0, link.lastIndexOf('/')) || '/'];
      }
      break;
    }
    case 'git': {
      const index = gitSubcommandIndex(words);
      if (words[index]?.value !== 'mv') return [];
      const parsed = parseArgs(words.slice(index + 1));
      destination = parsed.operands.at(-1);
      sources = parsed.operands.slice(0, -1);
      intoFolder = sources.length > 1;
      break;
    }
    case 'rsync': {
      const parsed = parseRsync(words);
      if (!parsed || !keepsLinks(parsed.options) || parsed.sources.some((word) => !word.literal || isRemote(word.value))) return [];
      destination = parsed.destination;
      sources = parsed.sources;
      break;
    }
    default:
      return [];
  }
  if (destination === undefined) return [];
  const to = resolveTarget(destination, command, context).path;
  // Onto a name only known when it runs: any path may become the link.
  if (to === null) return [{ to: ANYWHERE }];
  return sources.flatMap((source) => {
    if (!source.literal) return [{ to }];
    return cwdOfSources.flatMap((cwd) => {
      const from = resolveTarget(source, { cwd }, context).path;
      if (from === null) return [{ to }];
      const named = `${to === '/' ? '' : to}/${from.slice(from.lastIndexOf('/') + 1)}`;
      // Into a folder it lands under its own name; onto a name it takes that name (which may be a folder: both).
      return intoFolder ? [{ from, to: named }] : [{ from, to }, { from, to: named }];
    });
  });
}

function keepsLinksCp(options: readonly { name: string; value?: string }[]): boolean {
  return options.some((option) => ['-a', '-d', '-P', '-R', '-r', '-s', '-l', '--archive', '--no-dereference', '--recursive', '--symbolic-link', '--link'].includes(option.name) || (option.name === '--preserve' && /links|all/.test(option.value ?? '')));
}

function keepsLinks(options: readonly { name: string }[]): boolean {
  return options.some((option) => ['-a', '-l', '--archive', '--links'].includes(option.name));
}

function parseRsync(words: readonly ShellWord[]): { options: { name: string }[]; sources: ShellWord[]; destination: ShellWord } | undefined {
  const parsed = parseArgs(words, { shortValued: 'efBT', longValued: ['exclude', 'include', 'filter', 'rsh', 'exclude-from', 'include-from', 'temp-dir', 'backup-dir', 'suffix', 'chmod', 'chown', 'rsync-path'] });
  const destination = parsed.operands.at(-1);
  if (!destination || parsed.operands.length < 2 || isRemote(destination.value)) return undefined;
  return { options: parsed.options, sources: parsed.operands.slice(0, -1), destination };
}

function isRemote(text: string): boolean {
  return /^[^/]*:/.test(text);
}

/** Every value given to any of `names` (`-C dir`, `-Cdir`, `--directory=dir`), in order, before any `--`. */
function optionWords(words: readonly ShellWord[], ...names: string[]): ShellWord[] {
  const found: ShellWord[] = [];
  for (let index = 0; index < words.length && words[index]!.value !== '--'; index++) {
    if (names.includes(words[index]!.value) && index + 1 < words.length) found.push(words[++index]!);
    else {
      const joined = optionWord([words[index]!], ...names);
      if (joined) found.push(joined.word);
    }
  }
  return found;
}
