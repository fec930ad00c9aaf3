// The context both corpora are judged in: a user's home, a project workspace inside it, and this
// runtime's config as the protected file (its home is then ~/.hermes-temporal).
import type { ClassifyContext } from '../../../../src/approval-signals/verdict';

export const CORPUS_CONTEXT: ClassifyContext = {
  backend: 'local',
  cwd: '/home/user/project',
  workspaceRoot: '/home/user/project',
  home: '/home/user',
  protectedFiles: ['/home/user/.hermes-temporal/config.yaml', '/home/user/project/hermes-temporal.yaml'],
};
