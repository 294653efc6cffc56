"""Text generation from Python (cppnn.LanguageModel, cppnn.Generator, cppnn.generate) on the tiny
GGUF model of tests/llm/tiny_gguf.h, written by the cppnn_make_tiny_gguf fixture program:
loading on every backend, logits, greedy and seeded generation, streaming, stop strings, chat
turns that reuse the cache, cancelling, errors, threads, and the type stub.

The fixture program is $CPPNN_TINY_GGUF_TOOL (`make test-python` sets it; the tests fail when it
is set and missing), else build/bin/cppnn_make_tiny_gguf (the tests are skipped when neither is
there, i.e. only when run standalone before a build)."""

import ast
import gc
import os
import pathlib
import subprocess
import threading
import time

import numpy as np
import pytest

import cppnn

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = pathlib.Path(cppnn.__file__).parent
PROMPT = "The capital of France is"


def fixture_tool():
    """The program that writes the tiny GGUF model."""
    env = os.environ.get("CPPNN_TINY_GGUF_TOOL")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            pytest.fail(f"CPPNN_TINY_GGUF_TOOL={env} is not an executable program")
        return env
    default = ROOT / "build" / "bin" / "cppnn_make_tiny_gguf"
    if not default.is_file():
        pytest.skip("cppnn_make_tiny_gguf is not built (set CPPNN_TINY_GGUF_TOOL)")
    return str(default)


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory):
    path = tmp_path_factory.mktemp("llm") / "tiny.gguf"
    subprocess.run([fixture_tool(), str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def model(tiny_gguf):
    """The tiny model on the default backend, 256 cache positions, prefill steps of 8 tokens."""
    return cppnn.LanguageModel.load(tiny_gguf, context_length=256, prefill_chunk=8)


def greedy(generator, prompt=PROMPT, **options):
    """Runs a greedy generation past the stop tokens; returns its pieces and result."""
    options.setdefault("max_tokens", 12)
    options.setdefault("ignore_eos", True)
    stream = generator.generate(prompt, **options)
    pieces = list(stream)
    return pieces, stream.result


# ---- The model ------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", cppnn.available_backends())
def test_load_on_every_backend(tiny_gguf, backend):
    m = cppnn.LanguageModel.load(tiny_gguf, backend=backend, context_length=64, prefill_chunk=4)
    info = m.info
    assert info.backend == backend and m.context.backend == backend
    assert info.architecture == "llama" and info.layers == 2
    assert info.context_length == 64 and info.prefill_chunk == 4
    assert info.vocabulary_size >= 297 and info.name
    assert isinstance(info.notes, list)
    assert "llama" in repr(info)
    ids = m.tokenize("The cat is in Paris", add_special=False)
    g = cppnn.Generator(m)
    logits = g.append(ids, all_logits=True)
    assert logits.dtype == np.float32 and logits.shape == (len(ids), info.vocabulary_size)
    last = cppnn.Generator(m).append(ids)
    assert last.shape == (info.vocabulary_size,)
    np.testing.assert_allclose(logits[-1], last, rtol=1e-4, atol=1e-3)
    assert np.isfinite(logits).all() and np.abs(last).max() > 0
    # Every backend agrees with the reference backend (the oracle).
    reference = cppnn.Generator(
        cppnn.LanguageModel.load(tiny_gguf, backend="reference", context_length=64,
                                 prefill_chunk=4)).append(ids)
    scale = 1 + np.abs(reference).max()
    assert np.abs(last - reference).max() <= 2e-2 * scale
    # Greedy generation runs on it, and the streamed pieces make the text.
    pieces, result = greedy(g, max_tokens=6)
    assert "".join(pieces) == result.text and result.generated_tokens == 6


def test_logits_deterministic(model):
    ids = model.tokenize(PROMPT)
    a = cppnn.Generator(model).append(ids, all_logits=True)
    b = cppnn.Generator(model).append(ids, all_logits=True)
    assert np.array_equal(a, b)
    # Prefilling in two parts gives the same logits as in one.
    g = cppnn.Generator(model)
    g.append(ids[:3])
    np.testing.assert_allclose(g.append(ids[3:]), a[-1], rtol=1e-4, atol=1e-3)
    assert g.tokens == ids


def test_tokenizer_and_template(model):
    ids = model.tokenize("Hello the world", add_special=False)
    assert model.detokenize(ids) == "Hello the world"
    assert model.tokenize("<|im_start|>", add_special=False) == [1]
    assert len(model.tokenize("<|im_start|>", add_special=False, parse_special=False)) > 1
    assert model.detokenize([1, 73, 2]) == "<|im_start|>F<|im_end|>"  # ids 3.. are the bytes
    assert model.detokenize([1, 73, 2], skip_special=True) == "F"
    assert model.detokenize(np.array([73, 74], np.int32).tolist()) == "FG"
    assert 2 in model.stop_tokens  # <|im_end|>
    prompt = model.apply_chat_template([{"role": "user", "content": "Hi"}])
    assert prompt.startswith("<|im_start|>system\n")
    assert "<|im_start|>user\nHi<|im_end|>\n" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
    assert "<|im_start|>assistant" not in model.apply_chat_template(
        [{"role": "user", "content": "Hi"}], add_generation_prompt=False)
    assert "LanguageModel(" in repr(model)


# ---- Generation -----------------------------------------------------------------------------


def test_greedy_equal_across_generators(model):
    pieces, result = greedy(cppnn.Generator(model))
    pieces2, result2 = greedy(cppnn.Generator(model))
    assert result.tokens == result2.tokens and len(result.tokens) == 12
    assert pieces == pieces2
    assert "".join(pieces) == result.text
    assert result.finish_reason == "length"
    assert result.generated_tokens == 12 and result.reused_tokens == 0
    assert result.prompt_tokens == len(model.tokenize(PROMPT))
    assert result.prompt_seconds >= 0 and result.generate_seconds >= 0
    assert result.generated_tokens_per_second >= 0 and "length" in repr(result)
    assert all(piece for piece in pieces)


def test_generator_state(model):
    g = cppnn.Generator(model)
    assert g.result is None and g.tokens == [] and g.model.info.name == model.info.name
    _, result = greedy(g, max_tokens=5)
    assert len(g.tokens) == result.prompt_tokens + 5
    assert g.result.tokens == result.tokens
    g.rewind(3)
    assert len(g.tokens) == 3
    g.rewind(1000)
    assert len(g.tokens) == 3
    g.rewind(0)
    assert g.tokens == []


def test_seeded_sampling(model):
    options = dict(temperature=0.9, top_k=40, top_p=0.95, repetition_penalty=1.3, seed=1234)
    _, a = greedy(cppnn.Generator(model), max_tokens=8, **options)
    _, b = greedy(cppnn.Generator(model), max_tokens=8, **options)
    assert a.tokens == b.tokens and len(a.tokens) == 8
    _, c = greedy(cppnn.Generator(model), max_tokens=8, **dict(options, seed=np.uint64(1234)))
    assert c.tokens == a.tokens


def test_stop_strings(model):
    pieces, result = greedy(cppnn.Generator(model))
    if len(pieces) < 2:
        pytest.skip("the greedy text has fewer than two pieces")
    stop = pieces[1]
    cut = result.text.index(stop)
    stream_pieces, stopped = greedy(cppnn.Generator(model), stop=["never \x01 here", stop])
    assert stopped.finish_reason == "stop-string"
    assert stopped.text == result.text[:cut] == "".join(stream_pieces)
    # A single string is one stop string.
    _, single = greedy(cppnn.Generator(model), stop=stop)
    assert single.text == stopped.text


def test_chat_turns_reuse_the_cache(model):
    g = cppnn.Generator(model)
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    first = g.chat(messages, max_tokens=6, ignore_eos=True)
    reply = "".join(first)
    assert first.result.reused_tokens == 0 and first.result.generated_tokens == 6
    assert first.result.text == reply
    messages += [{"role": "assistant", "content": reply},
                 {"role": "user", "content": "And of Spain?"}]
    second = g.chat(messages, max_tokens=6, ignore_eos=True)
    list(second)
    assert second.result.reused_tokens > 0
    assert second.result.reused_tokens >= first.result.prompt_tokens - 1
    # The prompt of the second turn is the template's rendering of the whole conversation.
    rendered = model.tokenize(model.apply_chat_template(messages))
    assert g.tokens[:len(rendered)] == rendered


def test_breaking_out_cancels(model):
    g = cppnn.Generator(model)
    for piece in g.generate(PROMPT, max_tokens=12, ignore_eos=True):
        assert piece
        break
    gc.collect()
    assert g.result.finish_reason == "cancelled" and g.result.generated_tokens < 12
    with g.generate(PROMPT, max_tokens=12, ignore_eos=True) as stream:
        next(stream)
    assert stream.finished and stream.result.finish_reason == "cancelled"
    stream = g.generate(PROMPT, max_tokens=12, ignore_eos=True)
    next(stream)
    stream.close()
    assert stream.result.finish_reason == "cancelled"
    with pytest.raises(StopIteration):
        next(stream)
    stream.close()  # idempotent


def test_a_new_generation_supersedes_the_stream(model):
    g = cppnn.Generator(model)
    old = g.generate(PROMPT, max_tokens=12, ignore_eos=True)
    next(old)
    new = g.generate(" and", max_tokens=3, ignore_eos=True)
    with pytest.raises(cppnn.InvalidStateError, match="another generation"):
        next(old)
    with pytest.raises(cppnn.InvalidStateError):
        old.result
    assert len(list(new)) >= 1 and new.result.generated_tokens == 3


def test_module_generate(tiny_gguf, model):
    pieces = list(cppnn.generate(tiny_gguf, PROMPT, max_tokens=6, ignore_eos=True,
                                 context_length=256, prefill_chunk=8))
    expected, _ = greedy(cppnn.Generator(model), max_tokens=6)
    assert pieces == expected
    stream = cppnn.generate(model, "Hi", chat=True, max_tokens=4, ignore_eos=True)
    text = "".join(stream)
    chat_stream = cppnn.Generator(model).chat([{"role": "user", "content": "Hi"}], max_tokens=4,
                                              ignore_eos=True)
    assert text == "".join(chat_stream) and stream.result.generated_tokens == 4
    messages = [{"role": "user", "content": "Hi"}]
    assert "".join(cppnn.generate(model, messages, chat=True, max_tokens=4,
                                  ignore_eos=True)) == text
    with pytest.raises(cppnn.TypeError, match="context_length"):
        cppnn.generate(model, PROMPT, context_length=64)
    with pytest.raises(cppnn.TypeError):
        cppnn.generate(model, messages)
    assert cppnn.load_model(tiny_gguf, context_length=32).info.context_length == 32


# ---- Errors ---------------------------------------------------------------------------------


def test_file_errors(tiny_gguf, tmp_path):
    with pytest.raises(cppnn.DataError, match="missing.gguf"):
        cppnn.LanguageModel.load(tmp_path / "missing.gguf")
    bad = tmp_path / "truncated.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00")
    with pytest.raises(cppnn.DataError, match="truncated.gguf"):
        cppnn.LanguageModel.load(bad)
    # The same model with general.architecture "gemma": not a model cppnn runs.
    data = tiny_gguf.read_bytes()
    key = data.index(b"general.architecture")
    value = key + len(b"general.architecture") + 4 + 8  # the value type (u32), its length (u64)
    assert data[value:value + 5] == b"llama"
    other = tmp_path / "gemma.gguf"
    other.write_bytes(data[:value] + b"gemma" + data[value + 5:])
    with pytest.raises(cppnn.NotSupportedError, match="architecture"):
        cppnn.LanguageModel.load(other)
    with pytest.raises(cppnn.NotSupportedError, match="no-such-backend"):
        cppnn.LanguageModel.load(tiny_gguf, backend="no-such-backend")


@pytest.mark.parametrize("options, fragment", [
    (dict(temperature=-1.0), "temperature"),
    (dict(temperature=float("nan")), "temperature"),
    (dict(top_p=0.0), "top_p"),
    (dict(top_p=1.5), "top_p"),
    (dict(repetition_penalty=float("inf")), "repetition_penalty"),
    (dict(max_tokens=-1), "max_tokens"),
    (dict(top_k=2**32), "top_k"),
    (dict(seed=-1), "seed"),
    (dict(seed=1.5), "seed"),
    (dict(stop=[""]), "empty"),
    (dict(stop=[3]), "stop"),
    (dict(stop=3), "stop"),
])
def test_bad_options(model, options, fragment):
    g = cppnn.Generator(model)
    with pytest.raises(cppnn.TypeError, match=fragment):
        g.generate(PROMPT, **options)
    assert g.result is None and g.tokens == []


def test_bad_arguments(model):
    g = cppnn.Generator(model)
    with pytest.raises(cppnn.TypeError, match="empty"):
        g.generate("")
    with pytest.raises(cppnn.TypeError, match="messages"):
        g.chat("Hi")
    with pytest.raises(cppnn.TypeError, match="content"):
        g.chat([{"role": "user"}])
    with pytest.raises(cppnn.TypeError, match=r"messages\[0\]"):
        model.apply_chat_template([{"role": "user", "content": 3}])
    vocabulary = model.info.vocabulary_size
    with pytest.raises(cppnn.TypeError, match="outside the vocabulary"):
        g.append([vocabulary])
    with pytest.raises(cppnn.TypeError, match="exceed the context"):
        g.append([5] * 300)
    with pytest.raises(cppnn.TypeError):
        g.rewind(-1)
    assert g.tokens == []


# ---- Threads --------------------------------------------------------------------------------


def test_generators_run_in_parallel_threads(model):
    expected = greedy(cppnn.Generator(model))[1].tokens
    results, errors = [None, None], []

    def run(i):
        try:
            results[i] = greedy(cppnn.Generator(model))[1].tokens
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [expected, expected]


def test_steps_release_the_gil(tiny_gguf):
    """While one thread is inside a long append() call, another runs Python code."""
    m = cppnn.LanguageModel.load(tiny_gguf, backend="reference", context_length=512,
                                 prefill_chunk=8)
    ids = (m.tokenize("The cat is in Paris and the dog is in France. ", add_special=False) *
           40)[:500]
    call = {}

    def worker():
        g = cppnn.Generator(m)
        call["start"] = time.perf_counter()
        g.append(ids)
        call["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=worker)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.0005)
    t.join()
    duration = call["end"] - call["start"]
    if duration < 0.04:
        pytest.skip(f"the call took only {duration * 1000:.1f} ms, too short to tell")
    inside = [x for x in ticks
              if call["start"] + duration / 4 < x < call["end"] - duration / 4]
    assert len(inside) >= 1, f"no Python ran during a {duration * 1000:.0f} ms step"


def test_one_generator_shared_by_two_threads(model):
    """Calls on one generator from two threads are serialised: nothing is lost or torn."""
    g = cppnn.Generator(model)
    errors = []

    def appender():
        try:
            for _ in range(10):
                g.append([5, 6, 7])
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=appender) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and g.tokens == [5, 6, 7] * 20

    # Two threads iterating generations of one generator: the later start supersedes the
    # earlier stream (InvalidStateError), never a crash; the last one runs to its end.
    g.rewind(0)
    outcomes = []

    def generate():
        try:
            stream = g.generate(PROMPT, max_tokens=10, ignore_eos=True)
            for _ in stream:
                pass
            outcomes.append(stream.result.generated_tokens)
        except cppnn.InvalidStateError:
            outcomes.append("superseded")
        except Exception as e:  # reported below
            outcomes.append(e)

    threads = [threading.Thread(target=generate) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o in (10, "superseded") for o in outcomes), outcomes
    assert 10 in outcomes


# ---- The package ----------------------------------------------------------------------------


def test_exports_and_stub():
    for name in ("LanguageModel", "LanguageModelInfo", "Generator", "GenerationStream",
                 "GenerationResult", "generate", "load_model"):
        assert name in cppnn.__all__ and hasattr(cppnn, name)
    tree = ast.parse((PACKAGE / "_cppnn.pyi").read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for name in ("LanguageModel", "LanguageModelInfo", "Generator", "GenerationStream",
                 "GenerationResult"):
        stubbed = {n.name for n in classes[name].body if isinstance(n, ast.FunctionDef)}
        runtime = {a for a in dir(getattr(cppnn, name)) if not a.startswith("_")}
        assert runtime <= stubbed, (name, runtime - stubbed)
        for member in stubbed:
            assert hasattr(getattr(cppnn, name), member), (name, member)
    generate = next(n for n in classes["Generator"].body
                    if isinstance(n, ast.FunctionDef) and n.name == "generate")
    assert [a.arg for a in generate.args.args] == [
        "self", "prompt", "max_tokens", "temperature", "top_k", "top_p", "repetition_penalty",
        "repetition_window", "seed", "stop", "ignore_eos"]
    assert "max_tokens" in cppnn.Generator.generate.__doc__
