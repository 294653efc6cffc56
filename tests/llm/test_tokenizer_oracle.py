"""cppnn's tokenizer against Hugging Face `tokenizers` (the oracle), through `cppnn tokenize`.

For each tokenizer made by make_tokenizer_json.py (byte-level BPE with the gpt2, smollm, llama3
and qwen2 pre-tokenizers and added tokens with every flag; SentencePiece-style BPE with byte
fallback, with the Llama-2 normalizer or the Metaspace pre-tokenizer; the same vocabularies as
GGUF-style specs through Tokenizer::from_spec; and the real vocabulary of a GGUF model when one
is there), 1,000 generated lines must give the ids `tokenizers` gives, with and without special
tokens, and decoding `tokenizers`' ids (and random ids) must give its text, with and without
special tokens. A mismatch is reported with its line.

Run by ctest as a script: `test_tokenizer_oracle.py --cppnn path/to/cppnn` re-runs itself under
pytest in the venv .venv-llm (scripts/llm-env.sh), and exits 77 (skipped) without it. The GGUF
model is $CPPNN_TOKENIZER_GGUF, else .deps/llm/SmolLM2-135M-Instruct.Q4_1.gguf; without one
that part is skipped.
"""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_GGUF = ROOT / ".deps" / "llm" / "SmolLM2-135M-Instruct.Q4_1.gguf"
LINE_COUNT = 1000


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from llm_venv import rerun_under_pytest

    rerun_under_pytest(__file__, "--cppnn", "CPPNN_TOOL", ["tokenizers", "pytest", "gguf"],
                       "tokenizer oracle")

import pytest  # noqa: E402  (only under pytest)

sys.path.insert(0, str(HERE))
import make_tokenizer_json as mk  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402


def _tool():
    tool = os.environ.get("CPPNN_TOOL")
    if not tool or not Path(tool).exists():
        pytest.skip("CPPNN_TOOL (the cppnn binary) is not set")
    return tool


def _gguf():
    path = os.environ.get("CPPNN_TOKENIZER_GGUF") or str(DEFAULT_GGUF)
    return path if Path(path).exists() else None


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    """Every tokenizer as NAME.json (tokenizers) and, for the spec ones, NAME.spec.json."""
    out = tmp_path_factory.mktemp("tokenizers")
    mk.write_all(out, _gguf())
    return out


@pytest.fixture(scope="module")
def lines():
    return mk.generate_lines(LINE_COUNT)


def _run(args, stdin_lines):
    proc = subprocess.run([_tool(), "tokenize"] + args,
                          input="".join(l + "\n" for l in stdin_lines).encode(),
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    out = proc.stdout.decode().split("\n")
    assert out[-1] == ""
    return out[:-1]


def _encode_all(model_args, lines, parse_special, add_special):
    args = model_args + ["--json"]
    if not parse_special:
        args.append("--no-special")
    if not add_special:
        args.append("--no-add-special")
    out = _run(args, [json.dumps(line) for line in lines])
    assert len(out) == len(lines)
    return [json.loads(o) for o in out]


def _decode_all(model_args, ids, skip_special):
    args = model_args + ["--decode", "--json"] + (["--skip-special"] if skip_special else [])
    out = _run(args, [json.dumps(i) for i in ids])
    assert len(out) == len(ids)
    return [json.loads(o) for o in out]


def _report(name, what, mismatches, total):
    shown = "\n".join(mismatches[:10])
    assert not mismatches, f"{name} {what}: {len(mismatches)} of {total} differ:\n{shown}"


# (tokenizer file stem, reads a spec JSON, the tokenizers oracle's file stem)
CASES = [
    ("gpt2", False, "gpt2"),
    ("smollm", False, "smollm"),
    ("llama3", False, "llama3"),
    ("qwen2", False, "qwen2"),
    ("spm", False, "spm"),
    ("spm-metaspace", False, "spm-metaspace"),
    ("gpt2-plain", True, "gpt2-plain"),
    ("smollm-plain", True, "smollm-plain"),
    ("llama3-plain", True, "llama3-plain"),
    ("qwen2-plain", True, "qwen2-plain"),
    ("spm", True, "spm"),
    ("gguf", False, "gguf"),
    ("gguf", True, "gguf"),
]


def _case_id(case):
    return case[0] + (".spec" if case[1] else "")


def _model_args(material, stem, spec):
    if spec:
        return [str(material / f"{stem}.spec.json"), "--spec-json"]
    return [str(material / f"{stem}.json")]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("parse_special,add_special", [(True, True), (False, False)])
def test_encode_matches_tokenizers(material, lines, case, parse_special, add_special):
    stem, spec, oracle_stem = case
    if not (material / f"{oracle_stem}.json").exists():
        pytest.skip("no GGUF model (set CPPNN_TOKENIZER_GGUF)")
    oracle = Tokenizer.from_file(str(material / f"{oracle_stem}.json"))
    oracle.encode_special_tokens = not parse_special
    got = _encode_all(_model_args(material, stem, spec), lines, parse_special, add_special)
    mismatches = []
    for line, ids in zip(lines, got):
        expected = oracle.encode(line, add_special_tokens=add_special).ids
        if ids != expected:
            mismatches.append(f"  line {json.dumps(line, ensure_ascii=False)}\n"
                              f"    tokenizers {expected}\n    cppnn      {ids}")
    _report(_case_id(case), f"encode(parse_special={parse_special}, add_special={add_special})",
            mismatches, len(lines))


def test_gguf_file_matches_tokenizers(material, lines):
    """`cppnn tokenize MODEL.gguf`: the file's own metadata (the GGUF importer's TokenizerSpec)."""
    model = _gguf()
    if model is None or not (material / "gguf.json").exists():
        pytest.skip("no GGUF model (set CPPNN_TOKENIZER_GGUF)")
    oracle = Tokenizer.from_file(str(material / "gguf.json"))
    got = _encode_all([model], lines, True, True)
    mismatches = [f"  line {json.dumps(line, ensure_ascii=False)}" for line, ids in zip(lines, got)
                  if ids != oracle.encode(line).ids]
    _report("gguf file", "encode", mismatches, len(lines))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("skip_special", [False, True])
def test_decode_matches_tokenizers(material, lines, case, skip_special):
    stem, spec, oracle_stem = case
    if not (material / f"{oracle_stem}.json").exists():
        pytest.skip("no GGUF model (set CPPNN_TOKENIZER_GGUF)")
    oracle = Tokenizer.from_file(str(material / f"{oracle_stem}.json"))
    ids = [oracle.encode(line).ids for line in lines]
    # Random ids too: byte tokens that split or break UTF-8, special tokens anywhere.
    rng = random.Random(7)
    size = oracle.get_vocab_size()
    ids += [[rng.randrange(size) for _ in range(rng.randint(0, 16))] for _ in range(300)]
    got = _decode_all(_model_args(material, stem, spec), ids, skip_special)
    mismatches = []
    for i, text in zip(ids, got):
        expected = oracle.decode(i, skip_special_tokens=skip_special)
        if text != expected:
            mismatches.append(f"  ids {i}\n    tokenizers {expected!r}\n    cppnn      {text!r}")
    _report(_case_id(case), f"decode(skip_special={skip_special})", mismatches, len(ids))


def test_round_trip(material, lines):
    """decode(encode(line)) gives the line back for byte-level tokenizers without a normalizer
    and without lstrip/rstrip added tokens (which take white space into the token)."""
    for stem in ["gpt2-plain", "smollm-plain", "llama3-plain"]:
        args = _model_args(material, stem, False)
        ids = _encode_all(args, lines, True, True)
        texts = _decode_all(args, ids, False)
        bad = [f"  {json.dumps(a, ensure_ascii=False)} -> {json.dumps(b, ensure_ascii=False)}"
               for a, b in zip(lines, texts) if a != b]
        _report(stem, "round trip", bad, len(lines))


def test_plain_lines_and_errors(material, tmp_path):
    """The raw line input (no --json), and the command's errors."""
    tool = _tool()
    model = str(material / "gpt2.json")
    oracle = Tokenizer.from_file(model)
    text = "Hello world, it's 2024!\n<|im_start|>user\n\ttabs  here"
    proc = subprocess.run([tool, "tokenize", model], input=text.encode(), capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(o) for o in proc.stdout.decode().splitlines()] == \
        [oracle.encode(t).ids for t in text.split("\n")]
    proc = subprocess.run([tool, "tokenize", model, "--text", "a\nb"], capture_output=True)
    assert json.loads(proc.stdout) == oracle.encode("a\nb").ids
    (tmp_path / "lines.txt").write_text("x y\nz\n")
    proc = subprocess.run([tool, "tokenize", model, "--file", str(tmp_path / "lines.txt")],
                          capture_output=True)
    assert [json.loads(o) for o in proc.stdout.decode().splitlines()] == \
        [oracle.encode("x y").ids, oracle.encode("z").ids]
    # Bad inputs: exit 1 with a message naming the place.
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "WordPiece"}}')
    for args, message in [
            ([str(bad), "--text", "x"], "model.type: model WordPiece is not supported"),
            ([str(tmp_path / "missing.json"), "--text", "x"], "missing.json"),
            ([str(tmp_path / "m.gguf"), "--text", "x"], "m.gguf"),
            ([model, "--json", "--text", "not json"], "input line 1"),
            ([model, "--decode", "--text", "[1, \"x\"]"], "input line 1: expected a JSON array"),
    ]:
        proc = subprocess.run([tool, "tokenize"] + args, capture_output=True)
        assert proc.returncode == 1, (args, proc.stderr)
        assert message in proc.stderr.decode(), (args, proc.stderr)
    proc = subprocess.run([tool, "tokenize", model], input=b"ok\n\xff\xfe\n", capture_output=True)
    assert proc.returncode == 1 and b"input line 2: not valid UTF-8" in proc.stderr
    proc = subprocess.run([tool, "tokenize", model, "--text", "a", "--file", "x"],
                          capture_output=True)
    assert proc.returncode == 2
