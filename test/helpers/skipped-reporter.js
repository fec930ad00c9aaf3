// Jest reporter: the run's closing lines say which suites were skipped and why (each skipped
// suite or test names its reason in its title as "(skipped: <reason>)"), so a missing service
// is not lost above the summary.
'use strict';

const { writeSync } = require('node:fs');

const REASON = /\(skipped: ([^()]*(?:\([^()]*\)[^()]*)*)\)/;

class SkippedReporter {
  onRunComplete(_contexts, results) {
    const reasons = new Map();
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (test.status !== 'pending' && test.status !== 'skipped') continue;
        const match = [...test.ancestorTitles, test.title].map((title) => REASON.exec(title)).find(Boolean);
        const reason = match ? match[1] : 'no reason given';
        const files = reasons.get(reason) ?? new Set();
        files.add(file.testFilePath);
        reasons.set(reason, files);
      }
    }
    if (!reasons.size) return;
    const lines = [...reasons].map(([reason, files]) => `  skipped: ${brief(reason)} (${files.size} ${files.size === 1 ? 'file' : 'files'})`);
    // Jest prints its summary after every reporter's onRunComplete: write at exit, to come last.
    process.once('exit', () => writeSync(2, `\nSkipped tests, and why:\n${lines.join('\n')}\n`));
  }
}

/** "docker is not running: start it with X (sets Y)" -> "docker (start it with X)". */
function brief(reason) {
  const service = /^(\S+) is not running: (start it with [^(]*?)\s*(\(sets .*\))?$/.exec(reason);
  return service ? `${service[1]} (${service[2]})` : reason;
}

module.exports = SkippedReporter;
