#!/usr/bin/env node
// node js/test/wpt/cli.js [--suite conformance|validation] [--backend NAME] [--corpus DIR|FILE...]
//   [--report PATH] [--expected-failures FILE] [--filter TEXT] [--verbose]
// Runs a WPT WebNN corpus (../shared/wpt/README.md) through the cppnn package's JavaScript API,
// like `cppnn wpt` and tests/python/wpt_runner.py. The last line reads
// `wpt-conformance-node-<backend>: N passed, N failed, N skipped` (or `wpt-validation-node: ...`).
// Exit status: 0 success, 1 failures or bad input, 2 usage error, 77 skipped (no corpus).
'use strict';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_SKIPPED = 77;

const USAGE = `usage: cli.js [--suite validation|conformance] [--backend NAME]
              [--corpus DIR|FILE...] [--report PATH] [--expected-failures FILE]
              [--filter TEXT] [--verbose]

Runs a WPT WebNN corpus (../shared/wpt/README.md) through the cppnn package's
JavaScript API (navigator.ml), like \`cppnn wpt\`.

  --suite NAME            validation replays the validation traces as JavaScript
                          calls; conformance builds, dispatches and compares every
                          conformance case (default: validation)
  --backend NAME          conformance: the backend (default: $CPPNN_BACKEND, else
                          the package's default)
  --corpus DIR|FILE...    corpus directories (their *.json but index.json) or files
                          (default: $CPPNN_WPT_DIR/<suite>, else ../shared/wpt/<suite>
                          from the current directory or the repository root)
  --report PATH           the JSON report, in the schema of \`cppnn wpt --report\`
                          (default: reports/wpt-conformance-node-<backend>.json or
                          reports/wpt-validation-node.json; '' writes none)
  --expected-failures FILE, --expectations FILE
                          known failures, one \`<case id>  # <reason>\` per line
                          (default: tests/wpt/validation-expected-failures.txt or
                          tests/wpt/conformance-<backend>-expected-failures.txt)
  --filter TEXT           run only the cases whose id contains TEXT
  --verbose, -v           also print known failures and skipped cases
`;

class UsageError extends Error {}

// The parsed arguments: {suite, backend, corpus: [], report (undefined: the default),
// expectations, filter, verbose, help}.
function parseArgs(argv) {
  const a = { suite: 'validation', backend: undefined, corpus: [], report: undefined,
              expectations: undefined, filter: '', verbose: false, help: false };
  const value = (i, flag) => {
    if (i >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i];
  };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline;
    if (arg.startsWith('--') && arg.includes('=')) {
      inline = arg.slice(arg.indexOf('=') + 1);
      arg = arg.slice(0, arg.indexOf('='));
    }
    const take = () => (inline !== undefined ? inline : value(++i, arg));
    switch (arg) {
      case '--suite':
        a.suite = take();
        if (a.suite !== 'validation' && a.suite !== 'conformance')
          throw new UsageError(`--suite must be validation or conformance, not "${a.suite}"`);
        break;
      case '--backend':
        a.backend = take();
        break;
      case '--corpus':
        if (inline !== undefined) {
          a.corpus.push(inline);
        } else {
          const before = a.corpus.length;
          while (i + 1 < argv.length && !argv[i + 1].startsWith('-')) a.corpus.push(argv[++i]);
          if (a.corpus.length === before) throw new UsageError('--corpus needs a value');
        }
        break;
      case '--report':
        a.report = take();
        break;
      case '--expected-failures':
      case '--expectations':
        a.expectations = take();
        break;
      case '--filter':
        a.filter = take();
        break;
      case '--verbose':
      case '-v':
        a.verbose = true;
        break;
      case '--help':
      case '-h':
        a.help = true;
        break;
      default:
        throw new UsageError(`unknown argument ${argv[i]}`);
    }
  }
  if (a.backend && a.suite !== 'conformance')
    throw new UsageError('--backend applies to --suite conformance only');
  return a;
}

// Runs the command line `argv`; resolves to the exit status.
async function main(argv) {
  let a;
  try {
    a = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${USAGE}\ncli.js: error: ${e.message}\n`);
    return EXIT_USAGE;
  }
  if (a.help) {
    process.stdout.write(USAGE);
    return EXIT_OK;
  }
  let wpt;
  try {
    wpt = { ...require('./run'), ...require('./report'), ...require('./corpus'),
            errorName: require('./api').errorName };
  } catch (e) {
    process.stderr.write(`cli.js: the cppnn package cannot be loaded: ${e.message}\n`);
    return EXIT_FAILED;
  }
  let run;
  try {
    let backend = '';
    if (a.suite === 'conformance') {
      backend = a.backend || process.env.CPPNN_BACKEND || '';
      try {
        const context = await navigator.ml.createContext(backend ? { backend } : {});
        backend = String(context.backend);
        context.destroy();
      } catch (e) {
        if (wpt.errorName(e) === null) throw e;
        process.stderr.write(`cli.js: ${wpt.errorName(e)}: ${e.message}\n`);
        return EXIT_FAILED;
      }
    }
    const report = a.report === undefined ? wpt.defaultReport(a.suite, backend) : a.report;
    run = await wpt.runSuite(a.suite, { backend, corpus: a.corpus, report,
                                        expectations: a.expectations, filter: a.filter });
  } catch (e) {
    if (!(e instanceof wpt.RunnerError)) throw e;
    process.stderr.write(`Error: cli.js: ${e.message}\n`);
    return EXIT_FAILED;
  }
  if (run.skipReason) {
    process.stdout.write(`wpt-${run.label}: skipped: ${run.skipReason}\n` +
                         `${wpt.closingLine(run.label, run.totals)}\n`);
    return EXIT_SKIPPED;
  }
  process.stdout.write(wpt.summary(run.label, run.cases, run.expectations, a.verbose));
  if (run.unmatched.length && !a.filter && !a.corpus.length) {
    process.stdout.write(`note: ${run.unmatched.length} entries of ${run.expectations.file} ` +
                         'name no case of this corpus:\n');
    for (const id of run.unmatched) process.stdout.write(`  ${id}\n`);
  }
  return run.totals.failed === 0 ? EXIT_OK : EXIT_FAILED;
}

module.exports = { parseArgs, main, UsageError };

// Run as a program (but not as a test file: `node --test test/` runs every file under test/).
if (require.main === module && !process.env.NODE_TEST_CONTEXT) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    process.stderr.write(`cli.js: internal error: ${e && e.stack ? e.stack : e}\n`);
    process.exitCode = EXIT_USAGE;
  });
}
