// Shell command strings inside interpreter code: `os.system("rm -rf /")`, `execSync('...')`,
// Ruby/Perl backquotes. They are parsed as shell too, so the same rules apply to them.

const CALLS = /\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|system|exec|execSync|spawnSync|shell_exec|passthru|popen)\s*\(\s*(?:r|f|b)?(["'])((?:\\.|(?!\1).)*)\1/gs;
const BACKQUOTES = /`([^`]+)`|%x\{([^}]*)\}|qx\{([^}]*)\}|qx\(([^)]*)\)/g;

export function embeddedShellCommands(code: string, allowBackquotes: boolean): string[] {
  const commands: string[] = [];
  for (const match of code.matchAll(CALLS)) if (match[2]) commands.push(unescapeQuoted(match[2]));
  if (allowBackquotes) {
    for (const match of code.matchAll(BACKQUOTES)) {
      const command = match[1] ?? match[2] ?? match[3] ?? match[4];
      if (command) commands.push(command);
    }
  }
  return commands.slice(0, 8);
}

function unescapeQuoted(text: string): string {
  return text.replace(/\\(["'\\])/g, '$1');
}
