// The WPT WebNN corpus through the JavaScript API (test/wpt/, a port of
// tests/python/wpt_runner.py):
// * the comparison rules (WPT's toHalf, the ULP and ATOL metrics, NaN, infinity, exact integers),
//   the cases of tests/python/test_wpt.py and tests/unit/wpt_compare_test.cpp;
// * the conformance corpus on the reference and ort backends: at least 99% pass, and the failures
//   are exactly the C++ runner's known failures
//   (tests/wpt/conformance-<backend>-expected-failures.txt);
// * the validation traces replayed as JavaScript calls: no unexpected failure, and the same result
//   per trace as the C++ runner (reports/wpt-validation.json, written by ctest; else
//   `build/bin/cppnn wpt --suite validation` when it exists; else that comparison is skipped).
// The suites write reports/wpt-conformance-node-<backend>.json and
// reports/wpt-validation-node.json.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { parseJson, parseCorpusJson } = require('./wpt/json');
const { numericString, formatDouble } = require('./wpt/numbers');
const { BITS, toHalf, typedArray, packNibbles, unpackNibbles, encode } = require('./wpt/encode');
const { Tolerance, float32UlpDistance, float16UlpDistance, checkInteger, checkOutput } =
  require('./wpt/compare');
const { REPO_ROOT, resolveCorpus, loadExpectations, defaultExpectationsFile } =
  require('./wpt/corpus');
const { FAILED, KNOWN, PASSED, closingLine } = require('./wpt/report');
const { runSuite, defaultReport } = require('./wpt/run');
const { cppnn } = require('./wpt/api');

// ---- comparison rules ---------------------------------------------------------------------------

// One element's check: [pass, error].
function check(dataType, actual, expected, metric = 'ULP', value = 0, exact = false) {
  const r = checkOutput(dataType, actual, 1, [expected], new Tolerance(metric, value), exact);
  return [r.mismatches === 0, r.maxError];
}
const f32 = (x) => new Float32Array([x]);
const f16Bits = (b) => new Uint16Array([b]);
// The next float32 above x.
function nextUp(x) {
  const a = new Float32Array([x]);
  const u = new Int32Array(a.buffer);
  if (a[0] === 0) u[0] = 1;
  else u[0] += a[0] > 0 ? 1 : -1;
  return a[0];
}
function bits(dataType, v) {
  const a = typedArray(dataType, [v]);
  if (BITS[dataType] === 4) return a[0];
  const U = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array, 8: BigUint64Array }[
    a.BYTES_PER_ELEMENT];
  return new U(a.buffer)[0];
}

test('toHalf of exact values', () => {
  assert.equal(toHalf(1.0), 0x3c00);
  assert.equal(toHalf(-2.0), 0xc000);
  assert.equal(toHalf(65504.0), 0x7bff);
  assert.equal(toHalf(2 ** -14), 0x0400);
  assert.equal(toHalf(2 ** -24), 0x0001);
  assert.equal(toHalf(-0.0), 0x8000);
  assert.equal(toHalf(0.0), 0x0000);
});

test('toHalf rounds half up in magnitude', () => {
  assert.equal(toHalf(1.0 + 2 ** -11), 0x3c01);
  assert.equal(toHalf(-(1.0 + 2 ** -11)), 0xbc01);
  assert.equal(toHalf(1.0 + 2 ** -12), 0x3c00);
  assert.equal(toHalf(65520.0), 0x7c00);
  assert.equal(toHalf(1.0 + 2 ** -11 - 2 ** -40), 0x3c01);
});

test('toHalf of subnormals, overflow and NaN', () => {
  assert.equal(toHalf(1.5 * 2 ** -25), 0x0000);
  assert.equal(toHalf(-1.5 * 2 ** -25), 0x8000);
  assert.equal(toHalf(1.5 * 2 ** -24), 0x0002);
  assert.equal(toHalf(1e10), 0x7c00);
  assert.equal(toHalf(-Infinity), 0xfc00);
  assert.equal(toHalf(NaN), 0x7e00);
});

test('typed array conversions are JavaScript\'s', () => {
  assert.equal(bits('float32', 1e39), 0x7f800000);
  assert.equal(bits('float32', -1e39), 0xff800000);
  assert.equal(bits('float32', 1.0), 0x3f800000);
  assert.equal(bits('int8', 200.0), 0xc8);
  assert.equal(bits('int8', -1.9), 0xff);
  assert.equal(bits('int32', -1), 0xffffffff);
  assert.equal(bits('uint32', 4294967297.0), 1);
  assert.equal(bits('int32', NaN), 0);
  assert.equal(bits('int64', -(2n ** 63n)), 0x8000000000000000n);
  assert.equal(bits('uint64', 2n ** 64n - 1n), 2n ** 64n - 1n);
  assert.equal(bits('int64', -1.5), 2n ** 64n - 1n);
  assert.equal(bits('int4', -1), 0xf);
  assert.equal(bits('uint4', 15), 0xf);
  assert.equal(bits('float16', 1.0), 0x3c00);  // Uint16Array bits
});

test('ULP distances', () => {
  assert.equal(float32UlpDistance(1.0, nextUp(1.0)), 1);
  assert.equal(float32UlpDistance(-0.0, 0.0), 0);
  const tiny = Math.fround(1e-45);
  assert.equal(float32UlpDistance(tiny, -tiny), 2);
  assert.equal(float32UlpDistance(-1.0, -nextUp(1.0)), 1);
  assert.equal(float16UlpDistance(0x8000, 0x0000), 0);
  assert.equal(float16UlpDistance(0x3c00, 0x3c01), 1);
  assert.equal(float16UlpDistance(0x8001, 0x0001), 0x8000);
});

test('float32 ULP', () => {
  const next = f32(nextUp(1.0));
  assert.ok(check('float32', next, 1.0, 'ULP', 1)[0]);
  assert.deepEqual(check('float32', next, 1.0, 'ULP', 0), [false, 1]);
  assert.ok(check('float32', f32(0.1), 0.1)[0]);
});

test('NaN and infinity', () => {
  const negNan = new Float32Array(new Uint32Array([0xffc00000]).buffer);
  assert.ok(check('float32', negNan, NaN, 'ULP', 100, true)[0]);
  assert.ok(!check('float32', f32(1.0), NaN, 'ULP', 100)[0]);
  assert.ok(!check('float32', f32(NaN), 1.0, 'ATOL', 1)[0]);
  assert.equal(check('float32', f32(NaN), 1.0, 'ULP', 100)[1], Infinity);
  assert.ok(check('float32', f32(Infinity), Infinity, 'ULP', 100)[0]);
  assert.ok(check('float32', f32(-Infinity), -Infinity, 'ATOL', 1)[0]);
  assert.ok(!check('float32', f32(3.4028234663852886e38), Infinity, 'ULP', 100)[0]);
  assert.ok(!check('float32', f32(Infinity), -Infinity, 'ULP', 100)[0]);
  assert.ok(check('float16', f16Bits(0x7e01), NaN, 'ULP', 100)[0]);
  assert.ok(!check('float16', f16Bits(0x7bff), Infinity, 'ULP', 100)[0]);
  assert.ok(check('float16', f16Bits(0xfc00), -Infinity, 'ULP', 100)[0]);
});

test('float16 ULP', () => {
  assert.ok(check('float16', f16Bits(0x3c01), 1.0, 'ULP', 1)[0]);
  assert.ok(!check('float16', f16Bits(0x3c02), 1.0, 'ULP', 1)[0]);
  assert.ok(check('float16', f16Bits(0x3c01), 1.0 + 2 ** -11)[0]);
  assert.ok(!check('float16', f16Bits(0x8001), 2 ** -24, 'ULP', 100)[0]);
  assert.ok(check('float16', f16Bits(0x8000), 0.0)[0]);
});

test('ATOL', () => {
  assert.ok(check('float32', f32(1.0), 1.0 + 1 / 2048, 'ATOL', 1 / 1024)[0]);
  assert.ok(!check('float32', f32(1.0), 1.0 + 1 / 512, 'ATOL', 1 / 1024)[0]);
  const [ok, err] = check('float16', f16Bits(0x3c00), 1.001, 'ATOL', 1 / 512);
  assert.ok(ok && Math.abs(err - 0.001) < 1e-12);
  assert.ok(!check('float16', f16Bits(0x3c00), 1.01, 'ATOL', 1 / 512)[0]);
});

test('exactCompare checks the sign of zero', () => {
  assert.ok(check('float32', f32(-0.0), 0.0)[0]);
  assert.ok(!check('float32', f32(-0.0), 0.0, 'ULP', 0, true)[0]);
  assert.ok(check('float32', f32(-0.0), -0.0, 'ULP', 0, true)[0]);
  assert.ok(!check('float16', f16Bits(0x8000), 0.0, 'ULP', 0, true)[0]);
  assert.ok(!check('float32', f32(nextUp(1.0)), 1.0, 'ULP', 5, true)[0]);
});

test('integers are exact', () => {
  const zero = new Tolerance('ULP', 0);
  const one = new Tolerance('ULP', 1);
  assert.ok(checkInteger(-(2n ** 63n), zero, -(2n ** 63n)).pass);
  assert.ok(!checkInteger(-(2n ** 63n) + 1n, zero, -(2n ** 63n)).pass);
  assert.equal(checkInteger(2n ** 64n - 1n, zero, 2n ** 64n - 2n).error, 1);
  assert.equal(checkInteger(-1, zero, 1).error, 2);
  assert.ok(checkInteger(3, zero, 3).pass);
  assert.ok(checkInteger(3, one, 4).pass);
  assert.ok(!checkInteger(0, zero, NaN).pass);
  const r = checkOutput('uint64', new BigUint64Array([2n ** 64n - 1n]), 1, [2n ** 64n - 1n], zero,
                        false);
  assert.equal(r.mismatches, 0);
  const big = checkOutput('int64', new BigInt64Array([2n ** 62n + 1n]), 1, [2n ** 62n], zero,
                          false);
  assert.equal(big.first, '[0] got 4611686018427387905, expected 4611686018427387904 (error 1)');
});

test('the output check reports the first mismatch', () => {
  const ok = checkOutput('float32', new Float32Array([1, 2, 3]), 3, [1, 2, 3],
                         new Tolerance('ULP', 0), false);
  assert.deepEqual([ok.checked, ok.mismatches], [3, 0]);
  const bad = checkOutput('float32', new Float32Array([1, 5, 4]).buffer, 3, [1, 2, 3],
                          new Tolerance('ATOL', 0.5), false);
  assert.equal(bad.mismatches, 2);
  assert.equal(bad.maxError, 3);
  assert.equal(bad.first, '[1] got 5, expected 2 (error 3)');
});

test('scalar expected data checks the first 1000 elements', () => {
  const v = new Float32Array(2000).fill(7);
  v[1500] = 0;
  const r = checkOutput('float32', v, v.length, [7], new Tolerance('ULP', 0), false);
  assert.deepEqual([r.checked, r.mismatches], [1000, 0]);
});

test('int4 packing', () => {
  const packed = new Uint8Array([0xf7, 0x08]);
  assert.deepEqual(unpackNibbles(packed, 3, true), [7, -1, -8]);
  assert.deepEqual(unpackNibbles(packed, 2, false), [7, 15]);
  const r = checkOutput('int4', packed, 3, [7, -1, -8], new Tolerance('ULP', 0), false);
  assert.equal(r.mismatches, 0);
  assert.deepEqual([...packNibbles([7, 15, 8])], [0xf7, 0x08]);
  assert.deepEqual([...encode([7, -1, -8], 'int4', [3], 'x')], [0xf7, 0x08]);
  assert.deepEqual([...encode(-1, 'int4', [3], 'x')], [0xff, 0x0f]);
  assert.deepEqual([...encode(2.5, 'float16', [2], 'x')], [0x4100, 0x4100]);
  assert.deepEqual([...encode(['-9223372036854775808', 1], 'int64', [2], 'x')],
                   [-(2n ** 63n), 1n]);
});

test('formatDouble is C++ to_chars', () => {
  const cases = [[1.0, '1'], [100.0, '100'], [0.5, '0.5'], [1e5, '1e+05'], [123456.0, '123456'],
                 [1e-5, '1e-05'], [0.0001, '1e-04'], [0.001, '0.001'], [-0.0, '-0'],
                 [90.6768569946289, '90.6768569946289'], [1e16, '1e+16'],
                 [8222.29296875, '8222.29296875'], [55254687.0, '55254687'],
                 [1.5e300, '1.5e+300'], [NaN, 'NaN'], [-Infinity, '-Infinity']];
  for (const [x, s] of cases) assert.equal(formatDouble(x), s, String(x));
});

test('corpus numbers', () => {
  assert.ok(Number.isNaN(numericString('NaN')));
  assert.equal(numericString('-9223372036854775808'), -(2n ** 63n));
  assert.equal(numericString('18446744073709551615'), 2n ** 64n - 1n);
  assert.equal(numericString('45'), 45);
  assert.equal(numericString('1.5'), 1.5);
  assert.equal(numericString('+1'), undefined);
  assert.equal(numericString('x'), undefined);
});

test('the corpus JSON keeps integers exact', () => {
  const text = '[1, -0, -0.0, 1.5, 9007199254740993, -9223372036854775808, ' +
               '18446744073709551615, 184467440737095511615, "a\\"b\\\\"]';
  const expected = [1, 0, -0, 1.5, 9007199254740993n, -(2n ** 63n), 2n ** 64n - 1n,
                    184467440737095511615, 'a"b\\'];
  assert.deepEqual(parseJson(text), expected);
  assert.deepEqual(parseCorpusJson(text), expected);
  assert.ok(Object.is(parseCorpusJson('[-0]')[0], 0));
  assert.deepEqual(parseCorpusJson('{"x": [2251799813685248, 0.5]}'),
                   { x: [2251799813685248, 0.5] });
  assert.throws(() => parseJson('[1,]'));
  assert.throws(() => parseJson('[01]'));
});

// ---- the suites ---------------------------------------------------------------------------------

const BACKENDS = (process.env.CPPNN_NODE_BACKENDS
  ? process.env.CPPNN_NODE_BACKENDS.split(',') : cppnn.availableBackends())
  .filter((b) => b === 'reference' || b === 'ort');

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// Failures and known failures by id, for assertion messages.
function failures(run) {
  return Object.fromEntries(run.cases.filter((c) => c.status === FAILED || c.status === KNOWN)
    .map((c) => [c.id, c.message]));
}

for (const backend of ['reference', 'ort']) {
  test(`conformance on ${backend}`, async (t) => {
    if (!resolveCorpus('conformance').dir) return t.skip(resolveCorpus('conformance').reason);
    if (!BACKENDS.includes(backend))
      return t.skip(`the ${backend} backend is not compiled in (or not in CPPNN_NODE_BACKENDS)`);
    const run = await runSuite('conformance', { backend,
                                                report: defaultReport('conformance', backend) });
    t.diagnostic(`${closingLine(run.label, run.totals)} (${(run.timeMs / 1000).toFixed(1)} s)`);

    await t.test('at least 99% pass', () => {
      assert.ok(run.cases.length > 0);
      assert.ok(run.totals.passed >= 0.99 * run.cases.length, JSON.stringify(failures(run)));
    });
    await t.test('the failures are the C++ runner\'s known failures', () => {
      const listed = [...loadExpectations(defaultExpectationsFile(`conformance-${backend}`))
        .reasons.keys()].sort();
      const unexpected = run.cases.filter((c) => c.status === FAILED)
        .map((c) => `${c.id}: ${c.message}`);
      assert.deepEqual(unexpected, []);
      assert.deepEqual(run.cases.filter((c) => c.status === KNOWN).map((c) => c.id).sort(), listed);
    });
    await t.test('the report has the C++ runner\'s schema and results', () => {
      const ours = readJson(defaultReport('conformance', backend));
      assert.deepEqual(Object.keys(ours).sort(),
                       ['backend', 'cases', 'corpus', 'failed', 'known_failures', 'passed',
                        'skipped', 'suite', 'time_ms']);
      assert.deepEqual(Object.keys(ours.cases[0]).sort(),
                       ['file', 'id', 'max_error', 'message', 'metric', 'name', 'status',
                        'time_ms', 'tolerance', 'variant']);
      const cppFile = path.join(REPO_ROOT, 'reports', `wpt-conformance-${backend}.json`);
      if (!fs.existsSync(cppFile)) return;
      const ref = readJson(cppFile);
      assert.deepEqual(Object.keys(ref).sort(), Object.keys(ours).sort());
      assert.deepEqual(Object.keys(ref.cases[0]).sort(), Object.keys(ours.cases[0]).sort());
      if (ref.corpus === ours.corpus) {
        const status = (r) => Object.fromEntries(r.cases.map((c) => [c.id, c.status]));
        assert.deepEqual(status(ours), status(ref));
      }
    });
  });
}

// The C++ runner's validation report for `corpus`, or null.
function cppValidationReport(corpus) {
  const file = path.join(REPO_ROOT, 'reports', 'wpt-validation.json');
  if (fs.existsSync(file)) {
    const report = readJson(file);
    if (report.corpus === corpus) return report;
  }
  const tool = path.join(REPO_ROOT, 'build', 'bin', 'cppnn');
  try {
    fs.accessSync(tool, fs.constants.X_OK);
  } catch {
    return null;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wpt-node-'));
  try {
    const out = path.join(tmp, 'wpt-validation.json');
    spawnSync(tool, ['wpt', '--suite', 'validation', '--corpus', corpus, '--report', out],
              { cwd: REPO_ROOT, stdio: 'ignore', timeout: 600000 });
    return fs.existsSync(out) ? readJson(out) : null;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

test('validation', async (t) => {
  if (!resolveCorpus('validation').dir) return t.skip(resolveCorpus('validation').reason);
  const run = await runSuite('validation', { report: defaultReport('validation', '') });
  t.diagnostic(`${closingLine(run.label, run.totals)} (${(run.timeMs / 1000).toFixed(1)} s)`);

  await t.test('no unexpected failures', () => {
    const unexpected = run.cases.filter((c) => c.status === FAILED)
      .map((c) => `${c.id}: ${c.message}`);
    assert.deepEqual(unexpected, []);
  });
  await t.test('the same result per trace as the C++ runner', (st) => {
    const report = cppValidationReport(run.corpus);
    if (!report)
      return st.skip('no C++ validation report (run ctest in build/) and no build/bin/cppnn');
    const ref = new Map(report.cases.map((c) => [c.id, c]));
    assert.deepEqual(run.cases.map((c) => c.id).sort(), [...ref.keys()].sort());
    const statusDiff = run.cases.filter((c) => c.status !== ref.get(c.id).status)
      .map((c) => `${c.id}: ${c.status} (${c.message}), C++ ${ref.get(c.id).status}`);
    assert.deepEqual(statusDiff, []);
    // The notes of passing traces come from the replay itself (steps not run, calls flipped to
    // TypeError by opSupportLimits()), so they must agree too.
    const notes = run.cases
      .filter((c) => c.status === PASSED && c.message !== ref.get(c.id).message)
      .map((c) => `${c.id}: "${c.message}", C++ "${ref.get(c.id).message}"`);
    assert.deepEqual(notes, []);
  });
});

test('cli.js runs a corpus file and prints the closing line', (t) => {
  const corpus = resolveCorpus('conformance').dir;
  if (!corpus || !BACKENDS.includes('reference'))
    return t.skip('no conformance corpus or reference backend');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wpt-node-'));
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const cli = path.join(__dirname, 'wpt', 'cli.js');
  try {
    const report = path.join(tmp, 'r.json');
    const r = spawnSync(process.execPath, [cli, '--suite', 'conformance', '--backend', 'reference',
                                           '--corpus', path.join(corpus, 'abs.json'),
                                           '--report', report], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const last = r.stdout.trim().split('\n').pop();
    assert.match(last, /^wpt-conformance-node-reference: \d+ passed, 0 failed, 0 skipped$/);
    assert.equal(readJson(report).backend, 'reference');
    const usage = spawnSync(process.execPath, [cli, '--suite', 'nope'], { env, encoding: 'utf8' });
    assert.equal(usage.status, 2);
    const backendOnValidation = spawnSync(process.execPath, [cli, '--backend', 'ort'],
                                          { env, encoding: 'utf8' });
    assert.equal(backendOnValidation.status, 2);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
