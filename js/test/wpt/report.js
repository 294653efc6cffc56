// Case results and the report (wpt_common.h): case ids, totals, known failures applied, the
// summary printed and the JSON report in the C++ runner's schema, written atomically.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { RunnerError } = require('./corpus');

const PASSED = 'passed';
const FAILED = 'failed';
const SKIPPED = 'skipped';
const KNOWN = 'known-failure';

// "<file> :: <name>" plus " :: <variant>".
function caseId(file, name, variant) {
  return `${file} :: ${name}${variant !== null && variant !== undefined ? ` :: ${variant}` : ''}`;
}

// One case's result; `fields` holds the suite's own report members (metric, tolerance,
// max_error).
function caseResult(file, name, variant = null, fields = {}) {
  return { id: caseId(file, name, variant), file, name, variant, status: PASSED, message: '',
           timeMs: 0, fields };
}

// A corpus file that cannot be used: one failed case named after it.
function fileFailure(name, message) {
  return { id: name, file: name, name: '', variant: null, status: FAILED, message, timeMs: 0,
           fields: {} };
}

// {passed, failed, skipped, known}.
function count(cases) {
  const t = { passed: 0, failed: 0, skipped: 0, known: 0 };
  for (const c of cases) {
    if (c.status === PASSED) t.passed++;
    else if (c.status === FAILED) t.failed++;
    else if (c.status === SKIPPED) t.skipped++;
    else t.known++;
  }
  return t;
}

// Milliseconds since `start` (a process.hrtime.bigint()).
function elapsedMs(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

// Turns listed failures into known failures and listed passes into failures (stale entries);
// returns the listed ids that no case has, sorted.
function applyExpectations(cases, expectations) {
  const seen = new Set();
  for (const c of cases) {
    const reason = expectations.reasons.get(c.id);
    if (reason === undefined) continue;
    seen.add(c.id);
    if (c.status === FAILED) {
      c.status = KNOWN;
      c.message += ` [known failure: ${reason}]`;
    } else if (c.status === PASSED) {
      c.status = FAILED;
      c.message = `stale entry: listed in ${expectations.file} (${reason}) but passes now; ` +
                  'remove the entry';
    }
  }
  return [...expectations.reasons.keys()].filter((id) => !seen.has(id)).sort();
}

// "wpt-<label>: N passed, N failed, N skipped".
function closingLine(label, t) {
  return `wpt-${label}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`;
}

// One line per file, each unexpected failure with its message (all failures when `verbose`),
// the known-failure line and the closing line, as one string.
function summary(label, cases, expectations, verbose) {
  const out = [];
  for (let i = 0; i < cases.length;) {
    let j = i;
    while (j < cases.length && cases[j].file === cases[i].file) j++;
    const group = cases.slice(i, j);
    const t = count(group);
    out.push(`${cases[i].file}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped` +
             (t.known ? `, ${t.known} known failures` : ''));
    for (const c of group)
      if (c.status === FAILED || (verbose && c.status !== PASSED))
        out.push(`  ${c.status}: ${c.id}\n      ${c.message}`);
    i = j;
  }
  const t = count(cases);
  out.push(`known failures: ${t.known}` +
           (expectations.file ? ` (listed in ${expectations.file})` : ''));
  out.push(closingLine(label, t));
  return `${out.join('\n')}\n`;
}

// The report object: {suite, backend?, corpus, passed, failed, skipped, known_failures, time_ms,
// skip_reason?, cases: [{id, file, name, variant, status, <fields>, time_ms, message}]}.
function reportJson(header, cases, timeMs, skipReason = '') {
  const t = count(cases);
  const report = { suite: header.suite };
  if (header.backend) report.backend = header.backend;
  Object.assign(report, { corpus: header.corpus, passed: t.passed, failed: t.failed,
                          skipped: t.skipped, known_failures: t.known, time_ms: timeMs });
  if (skipReason) report.skip_reason = skipReason;
  report.cases = cases.map((c) => ({
    id: c.id, file: c.file, name: c.name, variant: c.variant, status: c.status, ...c.fields,
    time_ms: c.timeMs, message: c.message,
  }));
  return report;
}

// A double as nlohmann's dump writes it: the shortest round trip, fixed notation for decimal
// exponents from -4 to 15 (with ".0" when integral), else d.ddde+XX; non-finite as null.
function jsonDouble(d) {
  if (!Number.isFinite(d)) return 'null';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const [mantissa, e] = Math.abs(d).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const k = digits.length;
  const n = Number(e) + 1;  // value = 0.digits * 10^n
  let text;
  if (k <= n && n <= 15) text = `${digits}${'0'.repeat(n - k)}.0`;
  else if (n > 0 && n <= 15) text = `${digits.slice(0, n)}.${digits.slice(n)}`;
  else if (n > -4 && n <= 0) text = `0.${'0'.repeat(-n)}${digits}`;
  else {
    const x = n - 1;
    text = `${digits[0]}${k > 1 ? `.${digits.slice(1)}` : ''}e${x < 0 ? '-' : '+'}` +
           `${String(Math.abs(x)).padStart(2, '0')}`;
  }
  return d < 0 ? `-${text}` : text;
}

// Whether member `key` of `parent` is a double in the C++ runner's report (time_ms, max_error,
// and the tolerance of a graph case; a bit-exact case's tolerance is the integer 0).
function isDoubleMember(parent, key) {
  if (key === 'time_ms' || key === 'max_error') return true;
  return key === 'tolerance' && parent.metric !== 'bitExact';
}

// `v` as nlohmann's dump(1) of the C++ runner's report writes it: members sorted by name, indent
// 1, strings as UTF-8.
function reportText(v, indent = '', parent = null, key = null) {
  if (typeof v === 'number')
    return parent && isDoubleMember(parent, key) ? jsonDouble(v)
      : Number.isFinite(v) ? String(v) : 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const inner = `${indent} `;
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[\n${v.map((x) => inner + reportText(x, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(v).sort();
  if (!keys.length) return '{}';
  const members = keys.map((k) => `${inner}${JSON.stringify(k)}: ${reportText(v[k], inner, v, k)}`);
  return `{\n${members.join(',\n')}\n${indent}}`;
}

// Writes the report atomically (a temporary file renamed over `file`) in the C++ runner's format
// (reportText). RunnerError on failure.
function writeReport(file, report) {
  const text = `${reportText(report)}\n`;
  const directory = path.dirname(path.resolve(file));
  const tmp = path.join(directory, `.wpt-report-${process.pid}-${Date.now()}`);
  try {
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(tmp, text, { flag: 'wx', mode: 0o666 });
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // no temporary file left
    }
    throw new RunnerError(`cannot write the report ${file}: ${e.message}`);
  }
}

// The report never replaces an input (a corpus or the expectations file).
function checkReportPath(report, inputs) {
  const real = (p) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const target = real(report);
  for (const i of inputs)
    if (i && fs.existsSync(i) && real(i) === target)
      throw new RunnerError(`the report ${report} would replace the input ${i}`);
}

module.exports = {
  PASSED, FAILED, SKIPPED, KNOWN, caseId, caseResult, fileFailure, count, elapsedMs,
  applyExpectations, closingLine, summary, reportJson, jsonDouble, reportText, writeReport,
  checkReportPath,
};
