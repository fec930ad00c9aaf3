// The detector on the two corpora: at least 97% of the must-flag commands need approval or are
// refused (dangerous/hardline), and at most 5% of everyday developer commands are held up
// (dangerous/hardline/unknown). The misses and false positives are printed when it fails.
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { followNamedPaths } from '../../../src/approval-signals/linked-paths';
import { CORPUS_CONTEXT } from './corpus/corpus-context';
import { everydayCommands } from './corpus/everyday-corpus';
import { MUST_FLAG_CORPUS, mustFlagCommands } from './corpus/must-flag-corpus';

beforeAll(() => loadCommandClassifier());

const describeVerdict = (command: string) => {
  const verdict = classifyCommand(command, CORPUS_CONTEXT);
  return `${verdict.tier}${verdict.rules.length ? ` (${verdict.rules.map((rule) => rule.id).join(', ')})` : ''}`;
};

describe('the corpora', () => {
  it('are large enough and spread over every class', () => {
    expect(mustFlagCommands().length).toBeGreaterThanOrEqual(350);
    expect(everydayCommands().length).toBeGreaterThanOrEqual(300);
    for (const group of MUST_FLAG_CORPUS) expect(group.commands.length).toBeGreaterThanOrEqual(10);
    const all = mustFlagCommands().map((entry) => entry.command);
    expect(new Set(all).size).toBe(all.length);
  });

  it('flags at least 97% of the must-flag commands', () => {
    const commands = mustFlagCommands();
    const misses = commands.filter(({ command }) => !['dangerous', 'hardline'].includes(classifyCommand(command, CORPUS_CONTEXT).tier));
    const recall = (commands.length - misses.length) / commands.length;
    if (misses.length) console.log(`missed (${misses.length}/${commands.length}):\n${misses.map(({ group, command }) => `  [${group}] ${JSON.stringify(command)} -> ${describeVerdict(command)}`).join('\n')}`);
    expect(recall).toBeGreaterThanOrEqual(0.97);
  });

  it('holds up at most 5% of everyday commands', () => {
    const commands = everydayCommands();
    const flagged = commands.filter(({ command }) => !['safe', 'low_risk'].includes(classifyCommand(command, CORPUS_CONTEXT).tier));
    if (flagged.length) console.log(`false positives (${flagged.length}/${commands.length}):\n${flagged.map(({ group, command }) => `  [${group}] ${JSON.stringify(command)} -> ${describeVerdict(command)}`).join('\n')}`);
    expect(flagged.length / commands.length).toBeLessThanOrEqual(0.05);
  });

  it('gain no question from links an earlier command may make (nothing is a link on disk)', async () => {
    const nothingOnDisk = async (paths: readonly string[]) => paths.map(() => undefined);
    const asked: string[] = [];
    for (const { command } of everydayCommands()) {
      const verdict = await followNamedPaths(command, CORPUS_CONTEXT, classifyCommand(command, CORPUS_CONTEXT), nothingOnDisk);
      if (verdict.rules.some((rule) => rule.id === 'N44')) asked.push(command);
    }
    expect(asked).toEqual([]);
  });
});
