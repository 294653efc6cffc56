// Corpus loading (wpt_common.h): where a suite's corpus lives, its files, the --corpus arguments,
// the corpus JSON (integers kept exactly) and the known-failure lists of the C++ runner.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { parseCorpusJson } = require('./json');

// The repository root (js/test/wpt/ is three levels below it).
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

// A problem with the runner's own input (corpus, expectations or report file).
class RunnerError extends Error {}

// Whether `p` is a directory (false when it does not exist).
function isDirectory(p) {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

// Whether `p` is a regular file (false when it does not exist).
function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// $CPPNN_WPT_DIR/<suite>, else ../shared/wpt/<suite> from the current directory, else from the
// repository root: {dir} or {dir: null, reason}.
function resolveCorpus(suite) {
  const tried = [];
  if (process.env.CPPNN_WPT_DIR) tried.push(path.join(process.env.CPPNN_WPT_DIR, suite));
  tried.push(path.join('..', 'shared', 'wpt', suite));
  tried.push(path.join(REPO_ROOT, '..', 'shared', 'wpt', suite));
  for (const p of tried) if (isDirectory(p)) return { dir: path.resolve(p), reason: '' };
  return {
    dir: null,
    reason: `no WPT ${suite} corpus: tried ${tried.map((p) => path.normalize(p)).join(' ')} ` +
            '(set CPPNN_WPT_DIR or pass --corpus)',
  };
}

// The corpus files of a directory (*.json except index.json), sorted by name.
function corpusFiles(directory) {
  return fs.readdirSync(directory)
    .filter((f) => f.endsWith('.json') && f !== 'index.json' && isFile(path.join(directory, f)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((f) => path.join(directory, f));
}

// The files named by --corpus (directories expand to their corpus files).
function corpusArgs(args) {
  const files = [];
  for (const a of args) {
    if (isDirectory(a)) files.push(...corpusFiles(a));
    else if (isFile(a)) files.push(a);
    else throw new RunnerError(`the corpus ${a} does not exist`);
  }
  return files;
}

// Parses a corpus file; RunnerError when it cannot be read or parsed.
function loadJson(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new RunnerError(`${file}: ${e.message}`);
  }
  try {
    return parseCorpusJson(text);
  } catch (e) {
    throw new RunnerError(`${file}: ${e.message}`);
  }
}

// tests/wpt/<label>-expected-failures.txt from the current directory, else the repository's
// (label: "validation" or "conformance-<backend>", the C++ runner's lists).
function defaultExpectationsFile(label) {
  const rel = path.join('tests', 'wpt', `${label}-expected-failures.txt`);
  if (fs.existsSync(rel)) return rel;
  return path.join(REPO_ROOT, rel);
}

// The known failures: {file ('' for none), reasons: Map(case id -> reason)}.
function noExpectations() {
  return { file: '', reasons: new Map() };
}

// Reads an expectations file: one `<case id>  # <reason>` per line; blank lines and lines
// starting with '#' are comments. RunnerError for an unreadable file or a line without reason.
function loadExpectations(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new RunnerError(`cannot read the expectations file: ${e.message}`);
  }
  const e = { file, reasons: new Map() };
  const lines = text.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, k) => {
    const s = line.trim();
    if (!s || s.startsWith('#')) return;
    const hash = s.indexOf(' #');  // the reason starts at the first " #"
    const id = hash < 0 ? s : s.slice(0, hash).trim();
    const reason = hash < 0 ? '' : s.slice(hash + 2).trim();
    if (!reason)
      throw new RunnerError(`${file}:${k + 1}: an entry needs a reason: \`<case id>  # <reason>\``);
    if (e.reasons.has(id)) throw new RunnerError(`${file}:${k + 1}: duplicate entry ${id}`);
    e.reasons.set(id, reason);
  });
  return e;
}

module.exports = {
  REPO_ROOT, RunnerError, isDirectory, isFile, resolveCorpus, corpusFiles, corpusArgs, loadJson,
  defaultExpectationsFile, noExpectations, loadExpectations,
};
