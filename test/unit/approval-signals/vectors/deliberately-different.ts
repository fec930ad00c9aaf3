// Original vectors this runtime decides differently on purpose (see VECTOR-EXCEPTIONS.md). The
// vector tests assert the behaviour chosen here instead of the original's.
import type { VectorExpectation } from './vector-types';

export interface DeliberateDifference {
  command: string;
  original: VectorExpectation;
  ours: VectorExpectation;
  reason: string;
}

export const DELIBERATELY_DIFFERENT: DeliberateDifference[] = [
  {
    command: 'git branch -d feature-branch',
    original: 'flag',
    ours: 'safe',
    reason:
      '`git branch -d` is git\'s safe delete (it refuses unmerged branches). The original flags it only because its ' +
      '`-D` pattern is matched case-insensitively; its own test treats `git branch --delete feature-branch` as safe.',
  },
  {
    command: 'rm -f /tmp/hermes-verify-example.py',
    original: 'safe',
    ours: 'flag',
    reason:
      'The exemption exists for files written by the original\'s verification tool under the host temp dir; this ' +
      'runtime writes no such files, and a pure classifier must not depend on the host\'s temp directory. It is an ' +
      'ordinary delete outside the workspace (D01).',
  },
  {
    command: 'rm -f /tmp/hermes-ad-hoc-example.py',
    original: 'safe',
    ours: 'flag',
    reason: 'Same verification-artifact exemption as above.',
  },
  {
    command: 'sudo -i',
    original: 'safe',
    ours: 'flag',
    reason: 'An interactive root shell (N13): whatever it runs is not in the text, and the issue asks for it to need approval.',
  },
  {
    command: 'sudo -u root -i',
    original: 'safe',
    ours: 'flag',
    reason: 'Same: an interactive login shell as root (N13).',
  },
  {
    command: 'cat .env > backup.txt',
    original: 'safe',
    ours: 'flag',
    reason: 'Reading a `.env` file is reading secrets (N19); the copy it makes is not what the original vector tested (the redirect target).',
  },
  {
    command: 'cat ~/.hermes/config.yaml',
    original: 'safe',
    ours: 'flag',
    reason:
      "In the vector context ~/.hermes is this runtime's home (its config is a protected file); the config holds API keys and " +
      'passwords, and reading the runtime home needs approval (N19).',
  },
  {
    command: "perl -wne 'print' ~/.hermes/config.yaml",
    original: 'safe',
    ours: 'flag',
    reason: 'Same: printing the runtime config is reading its secrets (N19).',
  },
];
