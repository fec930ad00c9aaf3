// What the walker learns about a command text: the executed commands (after unwrapping), the
// words they receive, the files they write and the pipelines that connect them. Rules read this.

/** A command or process substitution inside a word, with the commands it runs. */
export interface Substitution {
  kind: '$(' | '`' | '<(' | '>(';
  commands: ExecutedCommand[];
  /** Output known before running (a substitution of `echo`/`printf` with literal arguments). */
  output?: string;
}

/** One shell word after quote removal. */
export interface ShellWord {
  /** Source text as written. */
  raw: string;
  /** Quote-removed text; expansions and substitutions kept as written (`$HOME`, `$(id)`). */
  value: string;
  /** No expansion or substitution: `value` is exactly what the program receives. */
  literal: boolean;
  /** Some part of the word was quoted. */
  quoted: boolean;
  /** Variables expanded in the word (`HOME` for `"$HOME/x"`). */
  variables: string[];
  substitutions: Substitution[];
  /** Unquoted glob characters (`*`, `?`, `[...]`). */
  glob: boolean;
  /**
   * The words this word becomes at run time when brace expansion or an unquoted `$IFS` splits it
   * (`{rm,-rf,/}` is three words); parts that stay unknown are kept as written.
   */
  fields?: string[];
  /** A best guess of the value when it is not literal (known variables, echo substitutions). */
  guess?: string;
}

/** A program and its arguments at one level of wrapping (`sudo -u root`, then `rm -rf x`). */
export interface Invocation {
  /** Lower-cased basename of the program, or `null` when the name is built at run time. */
  program: string | null;
  /** argv[0] is the program word. */
  argv: ShellWord[];
}

export type StdinFeed =
  | { kind: 'heredoc' | 'herestring'; text: string; literal: boolean; word?: ShellWord }
  | { kind: 'pipe'; producers: ExecutedCommand[]; text?: string }
  | { kind: 'process-substitution'; word: ShellWord }
  | { kind: 'file'; word: ShellWord }
  /** A network connection (`sh < /dev/tcp/h/p`, `nc -e sh h p`): what arrives there is the input. */
  | { kind: 'network'; address: string };

export interface ExecutedCommand {
  /** Lower-cased basename used by the rules; `null` when dynamic and not guessable. */
  program: string | null;
  /** Basename as written (for display); `null` when the name is built at run time. */
  name: string | null;
  /** The program word after quote removal, before taking the basename (`/usr/bin/rm`, `./x`). */
  path: string;
  argv: ShellWord[];
  /** Wrapper labels, outermost first (`sudo`, `env`, `bash -c`, `find -exec`). */
  wrappers: string[];
  /** The wrapper invocations that were peeled off, outermost first. */
  layers: Invocation[];
  /** Source text of the command. */
  text: string;
  /** Working directory it runs in (`null`: unknown after a dynamic `cd`). */
  cwd: string | null;
  background: boolean;
  stdin?: StdinFeed;
  pipeline?: { id: number; index: number };
  /** Arguments are appended at run time (`xargs`). */
  extraArgsUnknown: boolean;
  /** A re-parse host (`bash -c STR`, `eval`): its inner commands are listed separately. */
  host: boolean;
  /** argv is a guess for a command whose name is built at run time. */
  guessed: boolean;
  /** Hidden from the reported command list (extra guesses for the same syntax node). */
  hidden: boolean;
  /**
   * Found in the arguments of a program the detector does not know (`mytool rm -rf /`): it may
   * be run by it, so it is judged as if it were.
   */
  speculative?: boolean;
  /** Found only in the text of an unknown program guessed to run it (see guessed-findings.ts). */
  guessedRunner?: string;
}

export type WriteVia = 'redirect' | 'tee' | 'copy' | 'in-place' | 'dd' | 'truncate' | 'output' | 'extract';

export interface WriteTarget {
  via: WriteVia;
  /** `long` for `--in-place`, `perl` for `perl -i`/`ruby -i`. */
  flavour?: 'long' | 'perl';
  target: ShellWord;
  cwd: string | null;
  command: string;
  /** Canonical program description for keys (`tee`, `cp`, `sed -i`, `>`). */
  program: string;
  wrappers: string[];
  guessedRunner?: string;
}

export interface FunctionDefinition {
  name: string;
  bodyCommands: ExecutedCommand[];
}

export interface UnknownFact {
  id: 'U01' | 'U02' | 'U03' | 'U04' | 'U05';
  command: string;
  canonical: string;
}

export interface Analysis {
  commands: ExecutedCommand[];
  /** Pipelines of more than one stage; each stage lists the commands it runs. */
  pipelines: ExecutedCommand[][][];
  writes: WriteTarget[];
  /** Files read through `<` redirections (whatever the command). */
  reads: { target: ShellWord; cwd: string | null; command: string; guessedRunner?: string }[];
  functions: FunctionDefinition[];
  unknowns: UnknownFact[];
  parseErrors: string[];
  /**
   * Every variable name the text may assign, in order (`x=1`, `export`, `read`, `printf -v`, ...;
   * '*': any): an exported one can change what a later program runs (`GIT_EXTERNAL_DIFF`).
   */
  assigned: string[];
}

export function emptyAnalysis(): Analysis {
  return { commands: [], pipelines: [], writes: [], reads: [], functions: [], unknowns: [], parseErrors: [], assigned: [] };
}
