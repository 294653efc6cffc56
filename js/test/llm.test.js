// Text generation from JavaScript (docs/node.md, "Text generation"): LanguageModel and Generator
// over the tiny GGUF model that `cppnn_make_tiny_gguf` writes (CPPNN_TINY_GGUF_TOOL, else the
// build folder's bin/; a missing program fails the suite): loading on every backend, the
// tokenizer and chat template, the async iterator (pieces, result, determinism, stop strings,
// cancelling, chat turns reusing the cache), the event loop between steps, one generation per
// generator at a time, append/tokens/rewind, errors, lifetimes under the garbage collector, and
// the TypeScript declarations.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const { cppnn, backends } = require('./helpers');
const { buildDir } = require('../scripts/paths');

const { LanguageModel, Generator } = cppnn;

const packageDir = path.resolve(__dirname, '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cppnn-llm-'));
test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// The fixture: written once, before every test.
const tool = process.env.CPPNN_TINY_GGUF_TOOL || path.join(buildDir, 'bin', 'cppnn_make_tiny_gguf');
const tinyModel = path.join(scratch, 'tiny.gguf');
test.before(() => {
  assert.ok(fs.existsSync(tool),
            `${tool} is missing: build cppnn_make_tiny_gguf (or set CPPNN_TINY_GGUF_TOOL)`);
  execFileSync(tool, [tinyModel]);
});

// The backend most tests run on (the fastest compiled in); loading covers every backend.
const backend = backends.includes('cpu') ? 'cpu' : backends[0];

// One loaded model per backend and options, shared by the tests.
const loaded = new Map();
function model(options = {}) {
  const key = JSON.stringify({ backend, ...options });
  if (!loaded.has(key)) loaded.set(key, LanguageModel.load(tinyModel, { backend, ...options }));
  return loaded.get(key);
}

// Runs a generation to its end: {pieces, result}.
async function collect(stream) {
  const pieces = [];
  for await (const piece of stream) pieces.push(piece);
  return { pieces, result: await stream.result };
}

const greedy = { maxTokens: 16, ignoreEos: true };

test('LanguageModel.load on every backend: info, stop tokens, a greedy generation', async () => {
  for (const b of backends) {
    const m = await LanguageModel.load(tinyModel, { backend: b, contextLength: 64 });
    assert.ok(m instanceof LanguageModel);
    const { info } = m;
    assert.ok(Object.isFrozen(info) && Object.isFrozen(info.notes));
    assert.equal(info.name, 'tiny-llama');
    assert.equal(info.architecture, 'llama');
    assert.equal(info.backend, b);
    assert.equal(info.layers, 2);
    assert.equal(info.vocabularySize, 3 + 256 + 38);
    assert.equal(info.contextLength, 64);
    assert.equal(info.prefillChunk, 32);
    assert.ok(Array.isArray(info.notes));
    assert.ok(m.stopTokens instanceof Int32Array);
    assert.ok([...m.stopTokens].includes(2), `${[...m.stopTokens]}`);  // <|im_end|>, the EOS
    const gen = new Generator(m);
    const { pieces, result } =
      await collect(gen.generate('The', { maxTokens: 6, ignoreEos: true }));
    assert.equal(pieces.join(''), result.text, b);
    assert.equal(result.generatedTokens, 6, b);
    assert.equal(result.finishReason, 'length', b);
  }
});

test('tokenize and detokenize round trip; special tokens; the chat template', async () => {
  const m = await model();
  const text = 'The capital of France is Paris? Ünïcödé ✓ 123';
  const ids = m.tokenize(text, { addSpecial: false });
  assert.ok(ids instanceof Int32Array);
  assert.ok(ids.length > 0 && ids.length < Buffer.byteLength(text));  // merges apply
  assert.equal(m.detokenize(ids), text);
  assert.equal(m.detokenize(Array.from(ids)), text);
  // The model asks for no BOS: addSpecial changes nothing here.
  assert.deepEqual([...m.tokenize(text)], [...ids]);
  // Special tokens in the text: one id when parsed, their characters otherwise.
  assert.deepEqual([...m.tokenize('<|im_start|>')], [1]);
  assert.ok(m.tokenize('<|im_start|>', { parseSpecial: false }).length > 1);
  assert.equal(m.detokenize([1, ...ids, 2]), `<|im_start|>${text}<|im_end|>`);
  assert.equal(m.detokenize([1, ...ids, 2], { skipSpecial: true }), text);
  assert.equal(m.detokenize([-1, 100000, ...ids]), text);  // ids outside the vocabulary: skipped

  const messages = [{ role: 'user', content: 'Is Paris in France?' }];
  const system = '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by ' +
                 'Hugging Face<|im_end|>\n';
  const turn = '<|im_start|>user\nIs Paris in France?<|im_end|>\n';
  assert.equal(m.applyChatTemplate(messages), `${system}${turn}<|im_start|>assistant\n`);
  assert.equal(m.applyChatTemplate(messages, { addGenerationPrompt: false }), system + turn);
});

test('the async iterator: pieces concatenate to result.text; result fields', async () => {
  const m = await model();
  const gen = new Generator(m);
  const stream = gen.generate('The', greedy);
  assert.equal(stream[Symbol.asyncIterator](), stream);
  const { pieces, result } = await collect(stream);
  assert.ok(pieces.length > 0);
  for (const p of pieces) assert.ok(typeof p === 'string' && p.length > 0);
  assert.equal(pieces.join(''), result.text);
  assert.ok(result.tokens instanceof Int32Array);
  assert.equal(result.tokens.length, 16);
  assert.equal(result.generatedTokens, 16);
  assert.equal(result.finishReason, 'length');
  assert.equal(result.text, m.detokenize(result.tokens, { skipSpecial: true }));
  assert.equal(result.promptTokens, m.tokenize('The').length);
  assert.equal(result.reusedTokens, 0);
  assert.ok(result.promptSeconds > 0 && result.generateSeconds > 0);
  // The context: the prompt and every generated token.
  assert.deepEqual([...gen.tokens], [...m.tokenize('The'), ...result.tokens]);
  // After the end: next() keeps resolving done, return() too.
  assert.deepEqual(await stream.next(), { value: undefined, done: true });
  assert.deepEqual(await stream.return('x'), { value: 'x', done: true });
});

test('greedy decoding is deterministic; a seed fixes sampling', async () => {
  const m = await model();
  const a = await collect(new Generator(m).generate('The capital of France is', greedy));
  const b = await collect(new Generator(m).generate('The capital of France is', greedy));
  assert.deepEqual(b.pieces, a.pieces);
  assert.deepEqual([...b.result.tokens], [...a.result.tokens]);
  const sampling = { maxTokens: 16, ignoreEos: true, temperature: 1.5, topK: 50, topP: 0.95 };
  const s1 = await collect(new Generator(m).generate('The', { ...sampling, seed: 42 }));
  const s2 = await collect(new Generator(m).generate('The', { ...sampling, seed: 42n }));
  assert.deepEqual([...s2.result.tokens], [...s1.result.tokens]);
  const others = [];
  for (const seed of [1, 2, 3])
    others.push((await collect(new Generator(m).generate('The', { ...sampling, seed }))).result);
  assert.ok(others.some((r) => r.text !== s1.result.text), 'three other seeds gave the same text');
});

test('a stop string ends the generation before it', async () => {
  const m = await model();
  const full = (await collect(new Generator(m).generate('The', greedy))).result;
  assert.ok(full.text.length >= 4, JSON.stringify(full.text));
  const stop = full.text.slice(2, 4);
  const { pieces, result } =
    await collect(new Generator(m).generate('The', { ...greedy, stop: ['never seen', stop] }));
  assert.equal(result.finishReason, 'stop-string');
  assert.equal(result.text, full.text.slice(0, full.text.indexOf(stop)));
  assert.equal(pieces.join(''), result.text);
});

test('break cancels the generation; the generator is free again at once', async () => {
  const m = await model();
  const gen = new Generator(m);
  const stream = gen.generate('The', { maxTokens: 100, ignoreEos: true });
  let pieces = 0;
  for await (const piece of stream) {
    assert.ok(piece.length > 0);
    if (++pieces === 2) break;
  }
  const result = await stream.result;
  assert.equal(result.finishReason, 'cancelled');
  assert.ok(result.generatedTokens >= 2 && result.generatedTokens < 100,
            `${result.generatedTokens}`);
  // A next generation continues the same context.
  const before = gen.tokens.length;
  const next = await collect(gen.generate(' and', { maxTokens: 3, ignoreEos: true }));
  assert.equal(next.result.generatedTokens, 3);
  assert.ok(gen.tokens.length > before);
  // return() before any next(): nothing runs, the result says so.
  const unused = gen.generate('x', greedy);
  assert.deepEqual(await unused.return(), { value: undefined, done: true });
  const none = await unused.result;
  assert.equal(none.finishReason, 'cancelled');
  assert.equal(none.generatedTokens, 0);
  assert.deepEqual(await unused.next(), { value: undefined, done: true });
});

test('chat turns keep the cached conversation (reusedTokens)', async () => {
  const m = await model({ contextLength: 128, prefillChunk: 16 });
  const options = { maxTokens: 6, ignoreEos: true };
  const messages = [{ role: 'user', content: 'Is Paris in France?' }];
  const gen = new Generator(m);
  const first = await collect(gen.chat(messages, options));
  assert.equal(first.result.reusedTokens, 0);
  assert.equal(first.result.promptTokens, m.tokenize(m.applyChatTemplate(messages)).length);
  messages.push({ role: 'assistant', content: first.result.text },
                { role: 'user', content: 'And Rome?' });
  const second = await collect(gen.chat(messages, options));
  const firstPrompt = m.tokenize(m.applyChatTemplate(messages.slice(0, 1))).length;
  assert.ok(second.result.reusedTokens >= firstPrompt,
            `${second.result.reusedTokens} < ${firstPrompt}`);
  assert.equal(second.result.reusedTokens + second.result.promptTokens,
               m.tokenize(m.applyChatTemplate(messages)).length);
  // The same conversation on an empty cache gives the same reply.
  const fresh = await collect(new Generator(m).chat(messages, options));
  assert.equal(fresh.result.reusedTokens, 0);
  assert.deepEqual([...fresh.result.tokens], [...second.result.tokens]);
});

test('a full context ends the generation', async () => {
  const m = await model({ contextLength: 12, prefillChunk: 4 });
  const gen = new Generator(m);
  const { result } =
    await collect(gen.generate('The capital', { maxTokens: 100, ignoreEos: true }));
  assert.equal(result.finishReason, 'context-full');
  assert.equal(gen.tokens.length, 12);  // the prompt and every generated token
});

test('the event loop runs between generation steps', async () => {
  const m = await model();
  // An immediate re-arms itself once per loop turn: every step's promise settles on a new turn.
  let turns = 0;
  let spinning = true;
  const spin = () => {
    if (!spinning) return;
    ++turns;
    setImmediate(spin);
  };
  setImmediate(spin);
  // A timer fires while the decode steps run: the generation is cut short once it has fired
  // three times after the first piece (and at least 8 pieces came).
  let fired = 0;
  const timer = setInterval(() => ++fired, 1);
  const seen = [];
  let firstFired = 0;
  const gen = new Generator(m);
  const stream = gen.generate('The', { maxTokens: 200, ignoreEos: true });
  try {
    for await (const piece of stream) {
      assert.ok(piece.length > 0);
      if (seen.push(turns) === 1) firstFired = fired;
      if (seen.length >= 8 && fired - firstFired >= 3) break;
    }
  } finally {
    spinning = false;
    clearInterval(timer);
  }
  const result = await stream.result;
  assert.equal(result.finishReason, 'cancelled',
               `the timer fired ${fired - firstFired} times during ${seen.length} pieces`);
  for (let i = 1; i < seen.length; ++i)
    assert.ok(seen[i] > seen[i - 1], `no loop turn between pieces ${i - 1} and ${i}: ${seen}`);
});

test('one generation at a time per generator: InvalidStateError, never a crash', async () => {
  const m = await model();
  const gen = new Generator(m);
  const first = gen.generate('The', { maxTokens: 50, ignoreEos: true });
  const second = gen.generate('A', { maxTokens: 8, ignoreEos: true });
  const piece = first.next();  // holds the generator from here
  const isInvalidState = (e) => e instanceof DOMException && e.name === 'InvalidStateError';
  await assert.rejects(second.next(), isInvalidState);
  await assert.rejects(gen.append([5]), isInvalidState);
  await assert.rejects(gen.rewind(0), isInvalidState);
  assert.equal((await piece).done, false);
  // Another generator of the same model runs meanwhile.
  const other = await collect(new Generator(m).generate('A', { maxTokens: 4, ignoreEos: true }));
  assert.equal(other.result.generatedTokens, 4);
  // Several next() calls at once settle in order.
  const rest = await Promise.all([first.next(), first.next(), first.next()]);
  for (const r of rest) assert.ok(r.done === false && r.value.length > 0);
  const generated = (await first.return()) && (await first.result);
  assert.equal(generated.text, (await piece).value + rest.map((r) => r.value).join(''));
  // Once the first is closed, the second starts.
  const { result } = await collect(second);
  assert.equal(result.generatedTokens, 8);
});

test('append, tokens and rewind', async () => {
  const m = await model();
  const vocabulary = m.info.vocabularySize;
  const ids = m.tokenize('The capital of France');
  const gen = new Generator(m);
  assert.deepEqual([...gen.tokens], []);
  const all = await gen.append(ids, { allLogits: true });
  assert.ok(all instanceof Float32Array);
  assert.equal(all.length, ids.length * vocabulary);
  assert.deepEqual([...gen.tokens], [...ids]);
  // The last row is what a plain append of the same tokens gives.
  const other = new Generator(m);
  const last = await other.append(Array.from(ids));
  assert.equal(last.length, vocabulary);
  const row = all.subarray((ids.length - 1) * vocabulary);
  for (let i = 0; i < vocabulary; ++i) assert.ok(Math.abs(row[i] - last[i]) <= 1e-4, `logit ${i}`);
  // rewind() is queued after the work before it.
  const appended = gen.append([5, 6]);
  const rewound = gen.rewind(2);
  await appended;
  assert.equal(gen.tokens.length, ids.length + 2);
  await rewound;
  assert.deepEqual([...gen.tokens], [...ids.subarray(0, 2)]);
  // Greedy decoding after the rewind continues from those two tokens like a fresh context.
  const continued = await collect(gen.generate('', { maxTokens: 4, ignoreEos: true }));
  const fresh = new Generator(m);
  await fresh.append(ids.subarray(0, 2));
  const expected = await collect(fresh.generate('', { maxTokens: 4, ignoreEos: true }));
  assert.deepEqual([...continued.result.tokens], [...expected.result.tokens]);
  await gen.rewind(0);
  assert.equal(gen.tokens.length, 0);
  // Tokens outside the vocabulary or beyond the context: TypeError, the context unchanged.
  await assert.rejects(gen.append([vocabulary]), TypeError);
  await assert.rejects(gen.append(new Int32Array(300).fill(5)), /exceed the context/);
  assert.equal(gen.tokens.length, 0);
});

test('errors: missing files, bad arguments and options', async () => {
  const missing = path.join(scratch, 'missing.gguf');
  await assert.rejects(LanguageModel.load(missing), (e) => {
    assert.ok(e instanceof DOMException, `${e}`);
    assert.match(e.message, /missing\.gguf/);
    return true;
  });
  const garbage = path.join(scratch, 'garbage.gguf');
  fs.writeFileSync(garbage, 'GGUF not really');
  await assert.rejects(LanguageModel.load(garbage),
                       (e) => e instanceof DOMException && e.name === 'DataError');
  await assert.rejects(LanguageModel.load(), TypeError);
  await assert.rejects(LanguageModel.load(tinyModel, { contextLength: -1 }), /contextLength/);
  await assert.rejects(LanguageModel.load(tinyModel, 5), /options must be an object/);
  await assert.rejects(LanguageModel.load(tinyModel, { backend: 'nope' }),
                       (e) => e.name === 'NotSupportedError');
  assert.throws(() => new LanguageModel(), /Illegal constructor/);
  assert.throws(() => new Generator({}), /not a LanguageModel/);
  assert.throws(() => Generator(), TypeError);

  const m = await model();
  const gen = new Generator(m);
  const bad = [
    [{ maxTokens: -1 }, /options\.maxTokens/], [{ maxTokens: 2 ** 32 }, /options\.maxTokens/],
    [{ temperature: NaN }, /options\.temperature/], [{ temperature: -1 }, /options\.temperature/],
    [{ topK: 1.5e10 }, /options\.topK/], [{ topP: 0 }, /options\.topP/],
    [{ topP: 1.5 }, /options\.topP/], [{ repetitionPenalty: 0 }, /options\.repetitionPenalty/],
    [{ repetitionWindow: Infinity }, /options\.repetitionWindow/], [{ seed: -1 }, /options\.seed/],
    [{ seed: -1n }, /options\.seed/], [{ seed: 2n ** 64n }, /options\.seed/],
    [{ stop: 'x' }, /options\.stop/], [{ stop: ['a', ''] }, /options\.stop\[1\]/],
    [{ maxTokens: Symbol('x') }, TypeError], ['greedy', /options must be an object/],
  ];
  for (const [options, error] of bad) {
    assert.throws(() => gen.generate('The', options), error, JSON.stringify(String(options)));
    assert.throws(() => gen.chat([{ role: 'user', content: 'x' }], options), error);
  }
  assert.throws(() => gen.generate(), /prompt is required/);
  assert.throws(() => gen.chat('hello'), /messages must be an array/);
  assert.throws(() => gen.chat([{ role: 'user' }]), /messages\[0\]\.content is required/);
  assert.throws(() => gen.chat([null]), /messages\[0\] must be an object/);
  assert.throws(() => m.tokenize(), /text is required/);
  assert.throws(() => m.detokenize('abc'), TypeError);
  assert.throws(() => m.detokenize([1.5e10]), /tokens\[0\]/);
  assert.throws(() => m.applyChatTemplate([{ content: 'x' }]), /messages\[0\]\.role/);
  await assert.rejects(gen.append([1, 2 ** 31]), /tokens\[1\]/);
  await assert.rejects(gen.append([1n]), /tokens\[0\]/);
  await assert.rejects(gen.rewind(-1), /length/);
  // An empty prompt on an empty context: the first next() rejects, result too; then it is free.
  const empty = gen.generate('', greedy);
  await assert.rejects(empty.next(), /prompt is empty/);
  await assert.rejects(empty.result, /prompt is empty/);
  assert.deepEqual(await empty.next(), { value: undefined, done: true });
  const after = await collect(gen.generate('The', { maxTokens: 2, ignoreEos: true }));
  assert.equal(after.result.generatedTokens, 2);
});

test('generators and iterators dropped mid-generation are collected safely', async () => {
  // A child with --expose-gc: iterators abandoned between steps free their generator; objects
  // dropped while a step runs are kept until it settles.
  const script = `
    const { LanguageModel, Generator } = require(${JSON.stringify(packageDir)});
    (async () => {
      const model = await LanguageModel.load(process.argv[1], { backend: process.argv[2] });
      const gen = new Generator(model);
      (() => gen.generate('The', { maxTokens: 50, ignoreEos: true }).next())();
      await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 5; ++i) { global.gc(); await new Promise((r) => setImmediate(r)); }
      const out = [];
      for await (const p of gen.generate(' again', { maxTokens: 3, ignoreEos: true })) out.push(p);
      let pending = new Generator(model).generate('The', { maxTokens: 20 }).next();
      global.gc();
      const first = await pending;
      console.log(JSON.stringify({ pieces: out.length, first: typeof first.value }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const { stdout } = await promisify(execFile)(
    process.execPath, ['--expose-gc', '-e', script, tinyModel, backend], { cwd: packageDir });
  const out = JSON.parse(stdout);
  assert.ok(out.pieces > 0);
  assert.equal(out.first, 'string');
});

// ---- TypeScript declarations -------------------------------------------------------------------

const tsc = require.resolve('typescript/bin/tsc', { paths: [packageDir] });

// Compiles `files` with test/types/tsconfig.json's options (strict) plus `args`:
// {code, diagnostics: ['file:line TSnnnn'], output}.
async function compile(name, files, args = ['--noEmit']) {
  const config = path.join(scratch, `${name}.tsconfig.json`);
  fs.writeFileSync(config, JSON.stringify({
    extends: path.join(__dirname, 'types', 'tsconfig.json'), files }));
  let code = 0;
  let output = '';
  try {
    ({ stdout: output } = await promisify(execFile)(
      process.execPath, [tsc, '-p', config, '--pretty', 'false', ...args], { cwd: packageDir }));
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    ({ code, stdout: output } = e);
  }
  const diagnostics = [...output.matchAll(/^(.+)\((\d+),\d+\): error (TS\d+): /gm)]
    .map((m) => `${path.basename(m[1])}:${m[2]} ${m[3]}`);
  return { code, diagnostics, output };
}

const usage = `
import { Generator, LanguageModel } from 'cppnn';
import type {
  ChatMessage, FinishReason, GenerationOptions, GenerationResult, GenerationStream,
  LanguageModelInfo,
} from 'cppnn';
declare const process: { env: Record<string, string | undefined>; exitCode?: number };
declare const console: { log(...data: unknown[]): void; error(...data: unknown[]): void };

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error('llm usage: ' + what);
}

async function main(): Promise<void> {
  const model: LanguageModel = await LanguageModel.load(process.env.TINY_GGUF ?? '', {
    backend: process.env.TINY_BACKEND, contextLength: 256, prefillChunk: 8 });
  const info: LanguageModelInfo = model.info;
  check(info.layers === 2 && info.notes.length >= 0, 'info');
  const ids: Int32Array = model.tokenize('The capital', { addSpecial: false, parseSpecial: true });
  check(model.detokenize(ids, { skipSpecial: true }) === 'The capital', 'round trip');
  const messages: ChatMessage[] = [{ role: 'user', content: 'Hi' }];
  const prompt: string = model.applyChatTemplate(messages, { addGenerationPrompt: true });
  check(prompt.endsWith('assistant\\n'), 'template');
  const gen = new Generator(model);
  const options: GenerationOptions = {
    maxTokens: 8, temperature: 0.8, topK: 40, topP: 0.9, repetitionPenalty: 1.1,
    repetitionWindow: 16, seed: 7n, stop: ['\\n\\n'], ignoreEos: true };
  const stream: GenerationStream = gen.generate('The', options);
  let text = '';
  for await (const piece of stream) text += piece;
  const result: GenerationResult = await stream.result;
  const reason: FinishReason = result.finishReason;
  check(text === result.text && result.tokens.length === result.generatedTokens, 'result');
  for await (const piece of gen.chat(messages, { maxTokens: 4, seed: 1 })) {
    check(piece.length > 0, 'piece');
    break;
  }
  const logits: Float32Array = await gen.append([5, 6], { allLogits: true });
  check(logits.length === 2 * info.vocabularySize, 'logits');
  const tokens: Int32Array = gen.tokens;
  await gen.rewind(0);
  check(gen.tokens.length === 0 && tokens.length > 0, 'rewind');
  console.log('llm usage: ok ' + reason);
}
main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
`;

// Each misuse: the error its "// expect error TSnnnn" comment names, on the next line.
const misuse = `
import { Generator, LanguageModel } from 'cppnn';
import type { FinishReason, GenerationStream } from 'cppnn';
export async function misuse(model: LanguageModel, stream: GenerationStream): Promise<void> {
  // expect error TS2673
  new LanguageModel();
  const gen = new Generator(model);
  // expect error TS2322
  gen.generate('x', { maxTokens: '8' });
  // expect error TS2322
  gen.generate('x', { stop: 'a' });
  // expect error TS2741
  gen.chat([{ role: 'user' }]);
  // expect error TS2322
  const text: string = await stream.result;
  // expect error TS2322
  const reason: FinishReason = 'done';
  // expect error TS2345
  await gen.append('abc');
  // expect error TS2540
  gen.tokens = new Int32Array(1);
  void text; void reason;
}
`;

test('the TypeScript declarations: a program compiles under --strict and runs', async () => {
  const dir = path.join(scratch, 'ts');
  fs.mkdirSync(path.join(dir, 'out', 'node_modules'), { recursive: true });
  fs.symlinkSync(packageDir, path.join(dir, 'out', 'node_modules', 'cppnn'), 'dir');
  const file = path.join(dir, 'llm_usage.ts');
  fs.writeFileSync(file, usage);
  const strict = await compile('llm-usage', [file], ['--noEmit']);
  assert.equal(strict.code, 0, strict.output);
  const r = await compile('llm-usage-out', [file], ['--noEmit', 'false', '--outDir',
                                                     path.join(dir, 'out')]);
  assert.equal(r.code, 0, r.output);
  const env = { ...process.env, TINY_GGUF: tinyModel, TINY_BACKEND: backend };
  const { stdout } = await promisify(execFile)(
    process.execPath, [path.join(dir, 'out', 'llm_usage.js')], { env });
  assert.match(stdout, /^llm usage: ok (length|stop-string|stop)\n$/);
});

test('the TypeScript declarations reject misuse', async () => {
  const file = path.join(scratch, 'llm_misuse.ts');
  fs.writeFileSync(file, misuse);
  const expected = [];
  misuse.split('\n').forEach((line, i) => {
    const m = /\/\/ expect error (TS\d+)$/.exec(line.trim());
    if (m) expected.push(`llm_misuse.ts:${i + 2} ${m[1]}`);
  });
  const r = await compile('llm-misuse', [file]);
  assert.notEqual(r.code, 0);
  assert.deepEqual(r.diagnostics.sort(), expected.sort(), r.output);
});

test('GenerationStream: the declared members are the iterator\'s', async () => {
  const ts = require(require.resolve('typescript', { paths: [packageDir] }));
  const dts = path.join(packageDir, 'index.d.ts');
  const program = ts.createProgram([dts], { strict: true, noEmit: true, types: [],
                                            target: ts.ScriptTarget.ES2022,
                                            lib: ['lib.es2022.d.ts'] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(dts));
  const stream = checker.getExportsOfModule(module).find((e) => e.name === 'GenerationStream');
  // The interface's own members (not those it inherits), the symbol-keyed one included.
  const own = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(stream))
    .filter((p) => (p.declarations ?? []).some((d) => d.parent === stream.declarations[0]));
  const declared = own.map((p) => String(p.escapedName))
    .map((n) => (n.startsWith('__@asyncIterator') ? 'Symbol.asyncIterator' : n)).sort();
  const m = await model();
  const it = new Generator(m).generate('x');
  const proto = Object.getPrototypeOf(it);
  const actual = Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor');
  if (Object.getOwnPropertySymbols(proto).includes(Symbol.asyncIterator))
    actual.push('Symbol.asyncIterator');
  assert.deepEqual(declared, actual.sort());
  await it.return();
});
