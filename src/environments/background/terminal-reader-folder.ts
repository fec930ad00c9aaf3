// The folder a program reading a terminal's input is in now, from /proc (Linux). Text typed into
// a kept shell runs where the shell is, which a `cd` typed earlier moved away from where it
// started: the gate judges the scripts the text runs there, not in the start folder.
import { readFile, readlink } from 'node:fs/promises';
import { isShell } from '../../approval-signals/detector/program-names';

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
async function statFields(pid: number): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * The folder of the shell that reads the terminal whose session `sessionLeader` leads, or
 * undefined when that is not known: the terminal's foreground process must be a shell of that
 * session running nothing (no child: a shell at its prompt, not one in the middle of `sleep 3;
 * cd sub`, whose folder is about to change). A shell busy in a builtin of its own (`read; cd
 * sub`) is not told apart: its folder is taken as it is now.
 */
export async function terminalReaderFolder(sessionLeader: number): Promise<string | undefined> {
  // Fields from the state on: 0 state, 1 ppid, 2 pgrp, 3 session, 4 tty_nr, 5 tpgid.
  const leader = await statFields(sessionLeader);
  const foreground = Number(leader?.[5]);
  if (!Number.isInteger(foreground) || foreground <= 0) return undefined;
  const reader = await statFields(foreground);
  if (!reader || Number(reader[3]) !== sessionLeader) return undefined;
  const name = (await readFile(`/proc/${foreground}/comm`, 'utf8').catch(() => '')).trim();
  if (!isShell(name)) return undefined;
  if (await hasChildren(foreground)) return undefined;
  const folder = await readlink(`/proc/${foreground}/cwd`).catch(() => undefined);
  // A folder removed since (` (deleted)`), or not reachable from here, is no place to look for files.
  return folder?.startsWith('/') && !folder.endsWith(' (deleted)') ? folder : undefined;
}

async function hasChildren(pid: number): Promise<boolean> {
  const tasks = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => undefined);
  // Without CONFIG_PROC_CHILDREN the file is missing: a busy shell cannot be told apart then.
  return tasks === undefined || tasks.trim() !== '';
}
