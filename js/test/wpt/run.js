// A whole suite: the context and corpus resolved, every file run, the known failures applied,
// the report written (tests/python/wpt_runner.py run_suite()).
'use strict';

const path = require('node:path');
const { createContext } = require('./api');
const { REPO_ROOT, resolveCorpus, corpusFiles, corpusArgs, defaultExpectationsFile,
        noExpectations, loadExpectations } = require('./corpus');
const { count, elapsedMs, applyExpectations, reportJson, writeReport, checkReportPath } =
  require('./report');
const { runConformanceFile } = require('./conformance');
const { runValidationFile } = require('./validation');
const fs = require('node:fs');

// The closing line's label: "conformance-node-<backend>" or "validation-node".
function labelOf(suite, backend) {
  return suite === 'conformance' ? `conformance-node-${backend}` : 'validation-node';
}

// reports/wpt-conformance-node-<backend>.json or reports/wpt-validation-node.json of the
// repository.
function defaultReport(suite, backend) {
  return path.join(REPO_ROOT, 'reports', `wpt-${labelOf(suite, backend)}.json`);
}

// Runs a suite. Options: backend (conformance; default $CPPNN_BACKEND, else the package's
// default), corpus (files or directories; default the resolved corpus), report (a path; none when
// empty), expectations (a file; default the C++ runner's list), filter (case id substring).
// Resolves to {suite, label, backend, corpus, cases, expectations, unmatched, totals, timeMs,
// report, skipReason}. RunnerError for an unusable corpus, expectations or report file.
async function runSuite(suite = 'validation', options = {}) {
  const start = process.hrtime.bigint();
  const conformance = suite === 'conformance';
  const header = { suite, backend: '', corpus: '' };
  let state;
  if (conformance) {
    state = await createContext(options.backend || process.env.CPPNN_BACKEND || '');
    header.backend = String(state.context.backend);
  }
  const label = labelOf(suite, header.backend);
  const expectationsLabel = conformance ? `conformance-${header.backend}` : 'validation';
  const filter = options.filter || '';
  const done = (cases, expectations, unmatched, skipReason = '') => {
    const timeMs = elapsedMs(start);
    const report = reportJson(header, cases, timeMs, skipReason);
    if (options.report) writeReport(options.report, report);
    return { suite, label, backend: header.backend, corpus: header.corpus, cases, expectations,
             unmatched, totals: count(cases), timeMs, report, skipReason };
  };
  let files;
  if (options.corpus && options.corpus.length) {
    files = corpusArgs(options.corpus);
    header.corpus = options.corpus.map((c) => path.resolve(c)).join(' ');
  } else {
    const { dir, reason } = resolveCorpus(suite);
    if (dir === null) return done([], noExpectations(), [], reason);
    files = corpusFiles(dir);
    header.corpus = dir;
  }
  const expectationsFile = options.expectations || defaultExpectationsFile(expectationsLabel);
  let expectations = noExpectations();
  if (options.expectations || fs.existsSync(expectationsFile))
    expectations = loadExpectations(expectationsFile);
  if (options.report) checkReportPath(options.report, [...files, expectationsFile]);
  const cases = [];
  try {
    for (const f of files)
      cases.push(...(conformance ? await runConformanceFile(f, filter, state)
                                 : await runValidationFile(f, filter)));
  } finally {
    if (state) state.context.destroy();
  }
  const unmatched = applyExpectations(cases, expectations);
  return done(cases, expectations, unmatched);
}

module.exports = { labelOf, defaultReport, runSuite };
