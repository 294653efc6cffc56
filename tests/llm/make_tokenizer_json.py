"""Test material for cppnn's tokenizer, made with Hugging Face `tokenizers` (the oracle).

- generate_lines(): deterministic, varied test texts (many scripts, composed and decomposed
  accents, emoji with ZWJ, CJK, white-space runs, tabs and newlines, digit runs, code, URLs,
  contractions in any case, special tokens embedded in the text).
- byte_level_tokenizer(): a byte-level BPE trained on such text with one of the pre-tokenizer
  families cppnn implements (gpt2, smollm, llama3, qwen2), saved as tokenizer.json.
- spm_tokenizer(): a SentencePiece-style BPE (byte fallback, <0xXX> tokens, the Llama-2
  normalizer/decoder or the Metaspace pre-tokenizer), as tokenizer.json and as a GGUF-style spec.
- gguf_tokenizer(): the tokenizer of a GGUF model (tokens + merges through `tokenizers`' BPE,
  SmolLM2's pre-tokenizer), and the GGUF tokenizer metadata as a spec JSON.

A spec JSON is an object of the GGUF keys "tokenizer.ggml.*" (what `cppnn tokenize --spec-json`
reads). Run as a script, writes everything into a folder:
    python tests/llm/make_tokenizer_json.py OUT_DIR [--gguf MODEL.gguf]
"""

import json
import random
import sys
from pathlib import Path

from tokenizers import (
    AddedToken,
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

GPT2_PATTERN = (
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
)
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
METASPACE = "\u2581"

# ---- test texts ----

WORDS = {
    "latin": ["hello", "world", "The", "quick", "BROWN", "fox", "jumps", "Über", "naïve",
              "façade", "résumé", "Ångström", "straße", "œuvre", "Łódź", "İstanbul", "ſtill"],
    "greek": ["καλημέρα", "Ελλάδα", "ψυχή", "ΣΟΦΙΑ"],
    "cyrillic": ["привет", "Москва", "ёжик", "Україна", "ЩИ"],
    "arabic": ["مرحبا", "العربية", "كتاب"],
    "hebrew": ["שלום", "עברית"],
    "devanagari": ["नमस्ते", "हिन्दी", "क्षत्रिय"],
    "thai": ["สวัสดี", "ภาษาไทย"],
    "cjk": ["日本語", "中文字符", "漢字", "東京タワー", "ひらがな", "カタカナ", "한국어", "서울"],
    "misc": ["ǅemal", "ﬁne", "Ⅻ", "ℌilbert", "µs", "ꙮ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𐍈"],
}
DECOMPOSED = ["e\u0301", "a\u0308", "o\u0302\u0323", "n\u0303", "A\u030a", "u\u0308\u0301",
              "\u1100\u1161\u11a8", "\u1112\u1161\u11ab", "c\u0327a", "s\u0323\u0307",
              "q\u0307\u0323", "\u0915\u093c", "e\u0301\u0301"]
EMOJI = ["😀", "👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🏳️\u200d🌈", "🇫🇷", "🇯🇵", "❤️", "🤖",
         "🧑🏿\u200d💻", "✨", "🎉🎉", "☕"]
DIGITS = ["0", "7", "42", "123", "2024", "3.14159", "1,000,000", "٣٤٥", "४२", "４２", "²³",
          "½", "Ⅻ", "007", "99999999999"]
SPACES = [" ", "  ", "   ", "\t", "\t\t", " \t ", "\n", "\n\n", "\r\n", " \n ", "\u00a0",
          "\u3000", "\u2009", "\u202f", "    \n", "\n    ", "\u2028", "\x0b", "\x0c"]
PUNCT = [".", ",", "!", "?", "...", "—", "–", "(", ")", "[", "]", "{", "}", "\"", "'", "«",
         "»", "¿", "¡", "%", "$", "€", "£", "¥", "#", "@", "&", "*", "+", "=", "<", ">", "|",
         "/", "\\", "~", "`", "^", "_", "-", ":", ";", "§", "°", "±", "→", "∑", "√", "∞"]
CONTRACTIONS = ["it's", "IT'S", "It'S", "don't", "DON'T", "they're", "THEY'RE", "We'Re",
                "I've", "I'VE", "I'm", "I'M", "you'll", "YOU'LL", "You'Ll", "he'd", "HE'D",
                "'s", "'S", "'ſ", "o'clock", "rock'n'roll", "''s", "'x", "' s"]
CODE = ["def f(x):\n    return x ** 2", "for (int i = 0; i < n; ++i) {", "if a != b:",
        "console.log(`${name}`);", "SELECT * FROM t WHERE id=42;", "x += 1  # comment",
        "#include <vector>", "std::vector<int> v{1, 2, 3};", "λx.x", "a->b", "a=>b",
        "<div class=\"x\">", "fn main() -> i32 {}", "    indented", "\t\tdouble tab"]
URLS = ["https://example.com/path?q=1&r=2", "http://localhost:8080/", "user@mail.org",
        "www.wikipedia.org/wiki/Unicode", "ftp://files.server.net/a_b-c.txt"]
SPECIAL_SNIPPETS = ["<|im_start|>user", "<|im_start|>assistant\n", "<|im_end|>",
                    "<|endoftext|>", "<|im_start|>system\nYou are helpful.<|im_end|>\n",
                    "<|im_sta", "<|im_end", "<|endoftext|><|endoftext|>", " <|im_end|> ",
                    "x<|im_start|>y", "<s>", "</s>", "<unk>", "<mask>", " [USER] ",
                    "hello_world", "Hello_World"]


def _random_word(rng):
    script = rng.choice(list(WORDS))
    return rng.choice(WORDS[script])


def _fragment(rng):
    kind = rng.randrange(12)
    if kind == 0:
        return _random_word(rng)
    if kind == 1:
        return rng.choice(DECOMPOSED) + rng.choice(["", _random_word(rng)])
    if kind == 2:
        return rng.choice(EMOJI)
    if kind == 3:
        return rng.choice(DIGITS)
    if kind == 4:
        return rng.choice(SPACES)
    if kind == 5:
        return rng.choice(PUNCT)
    if kind == 6:
        return rng.choice(CONTRACTIONS)
    if kind == 7:
        return rng.choice(CODE)
    if kind == 8:
        return rng.choice(URLS)
    if kind == 9:
        return rng.choice(SPECIAL_SNIPPETS)
    if kind == 10:
        # a random code point from a few blocks (letters, marks, symbols)
        lo, hi = rng.choice([(0x00C0, 0x024F), (0x0370, 0x03FF), (0x0400, 0x04FF),
                             (0x0300, 0x036F), (0x2000, 0x206F), (0x3040, 0x30FF),
                             (0x4E00, 0x4FFF), (0xAC00, 0xAD00), (0x1F300, 0x1F5FF),
                             (0x0600, 0x06FF), (0x0E00, 0x0E7F), (0x2460, 0x24FF)])
        return "".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 4)))
    return rng.choice(["a", "I", "the", "and", "of", "to", "in", "is", "x", "AI", "GPU"])


def generate_lines(count=1000, seed=1234):
    """`count` deterministic test texts (some hold newlines, tabs, empty ones)."""
    rng = random.Random(seed)
    lines = ["", " ", "  ", "\n", "hello", "Hello world!", "a" * 300, "1" * 40,
             " " * 17 + "x", "x" + " " * 17, "\t\n\r\n \u3000", "<|im_start|>",
             "e\u0301" * 20, "👨\u200d👩\u200d👧\u200d👦" * 3]
    while len(lines) < count:
        parts = []
        for _ in range(rng.randint(1, 14)):
            parts.append(_fragment(rng))
            if rng.random() < 0.6:
                parts.append(rng.choice([" ", " ", " ", "", "  ", "\t", "\n"]))
        lines.append("".join(parts))
    return lines[:count]


def training_corpus(seed=99):
    """Text to train the synthetic tokenizers on."""
    corpus = generate_lines(3000, seed)
    for words in WORDS.values():
        corpus.extend(" ".join(words) for _ in range(20))
    corpus.extend(CODE * 10 + CONTRACTIONS * 10 + DIGITS * 10)
    return corpus


# ---- tokenizers ----

def _added_tokens(extra):
    tokens = [AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS]
    if extra:
        # Non-special added tokens with the AddedToken options cppnn implements.
        tokens += [
            AddedToken("<mask>", special=False, lstrip=True, normalized=False),
            AddedToken("[USER]", special=False, rstrip=True, normalized=False),
            AddedToken("hello_world", special=False, single_word=True, normalized=False),
            AddedToken("Hello_World", special=False, normalized=True),
        ]
    return tokens


def byte_level_tokenizer(family, corpus, extra_added=True, vocab_size=1500, nfc=True):
    """A byte-level BPE tokenizer with the pre-tokenizer of `family` (qwen2: and the NFC
    normalizer, unless `nfc` is false: llama.cpp's qwen2 pre-tokenizer has none)."""
    tok = Tokenizer(models.BPE(ignore_merges=family == "llama3"))
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if family == "gpt2":
        tok.pre_tokenizer = byte_level
    elif family == "smollm":
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Digits(individual_digits=True), byte_level])
    elif family in ("llama3", "qwen2"):
        pattern = LLAMA3_PATTERN if family == "llama3" else QWEN2_PATTERN
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        if family == "qwen2" and nfc:
            tok.normalizer = normalizers.NFC()
    else:
        raise ValueError(family)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    tok.add_tokens(_added_tokens(extra_added)[len(SPECIAL_TOKENS):])
    return tok


def _vocab_and_merges(tok):
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    return vocab, merges, data


def spec_from_byte_level(tok, pre_name):
    """The GGUF-style spec of a byte-level tokenizer (control tokens = its special tokens)."""
    vocab, merges, data = _vocab_and_merges(tok)
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    types = [1] * len(tokens)
    for added in data["added_tokens"]:
        assert tokens[added["id"]] == added["content"], added
        types[added["id"]] = 3 if added["special"] else 4
    return {
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": pre_name,
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": types,
        "tokenizer.ggml.merges": merges,
        "tokenizer.ggml.bos_token_id": vocab["<|endoftext|>"],
        "tokenizer.ggml.eos_token_id": vocab["<|endoftext|>"],
        "tokenizer.ggml.add_bos_token": False,
    }


def spm_tokenizer(corpus, metaspace=False, vocab_size=1200):
    """A SentencePiece-style BPE with byte fallback, as (tokenizer, spec).

    The vocabulary is <unk> <s> </s>, the 256 <0xXX> byte tokens, then pieces learned by a BPE
    trainer; each learned piece's score is minus its rank, and the merges are every split of a
    piece into two vocabulary tokens, ordered by the score of the piece (what HF's converter of
    SentencePiece models does), so merging by rank (HF) and merging by score (llama.cpp) agree.
    """
    trainer_tok = Tokenizer(models.BPE())
    trainer_tok.normalizer = normalizers.Sequence(
        [normalizers.Prepend(METASPACE), normalizers.Replace(" ", METASPACE)])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, limit_alphabet=150, show_progress=False)
    trainer_tok.train_from_iterator(corpus, trainer)
    learned = json.loads(trainer_tok.to_str())["model"]["vocab"]
    pieces = sorted(learned, key=lambda t: learned[t])

    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256
    scores = [0.0] * len(tokens)
    for rank, piece in enumerate(pieces):
        if piece in tokens:
            continue
        tokens.append(piece)
        types.append(1)
        scores.append(-float(rank))
    vocab = {t: i for i, t in enumerate(tokens)}
    merges = []
    for i, piece in enumerate(tokens):
        if types[i] != 1 or len(piece) < 2:
            continue
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if vocab.get(left) is not None and vocab.get(right) is not None \
                    and types[vocab[left]] == 1 and types[vocab[right]] == 1:
                merges.append((scores[i], vocab[left], vocab[right], left, right))
    merges.sort(key=lambda m: (-m[0], m[1], m[2]))
    merge_pairs = [(m[3], m[4]) for m in merges]

    tok = Tokenizer(models.BPE(vocab=vocab, merges=merge_pairs, unk_token="<unk>",
                               fuse_unk=True, byte_fallback=True))
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                            for t in ["<unk>", "<s>", "</s>"]])
    if metaspace:
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=METASPACE,
                                                     prepend_scheme="first", split=False)
        tok.decoder = decoders.Metaspace(replacement=METASPACE, prepend_scheme="first",
                                         split=False)
    else:
        tok.normalizer = normalizers.Sequence(
            [normalizers.Prepend(METASPACE), normalizers.Replace(" ", METASPACE)])
        tok.decoder = decoders.Sequence([decoders.Replace(METASPACE, " "),
                                         decoders.ByteFallback(), decoders.Fuse(),
                                         decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    spec = {
        "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.scores": scores,
        "tokenizer.ggml.token_type": types,
        "tokenizer.ggml.bos_token_id": 1,
        "tokenizer.ggml.eos_token_id": 2,
        "tokenizer.ggml.unknown_token_id": 0,
        "tokenizer.ggml.add_bos_token": True,
        "tokenizer.ggml.add_eos_token": False,
    }
    return tok, spec


def gguf_spec(path):
    """The tokenizer.ggml.* metadata of a GGUF file, as a spec dict (llama.cpp's gguf-py)."""
    from gguf import GGUFReader

    reader = GGUFReader(path)
    spec = {}
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer.ggml."):
            continue
        values = [field.parts[i] for i in field.data]
        kind = field.types[0].name
        if kind == "ARRAY":
            item_kind = field.types[-1].name
            if item_kind == "STRING":
                spec[key] = [bytes(v).decode("utf-8") for v in values]
            elif item_kind in ("FLOAT32", "FLOAT64"):
                spec[key] = [float(v[0]) for v in values]
            else:
                spec[key] = [int(v[0]) for v in values]
        elif kind == "STRING":
            spec[key] = bytes(values[0]).decode("utf-8")
        elif kind == "BOOL":
            spec[key] = bool(values[0][0])
        else:
            spec[key] = int(values[0][0])
    return spec


def gguf_tokenizer(path):
    """(tokenizer, spec) of a GGUF model with SmolLM2's byte-level BPE pre-tokenizer: the BPE
    model from the GGUF tokens and merges, the control tokens as special added tokens."""
    spec = gguf_spec(path)
    if spec.get("tokenizer.ggml.model") != "gpt2":
        raise ValueError(f"{path}: not a gpt2 (byte-level BPE) tokenizer")
    tokens = spec["tokenizer.ggml.tokens"]
    vocab = {t: i for i, t in enumerate(tokens)}
    merges = [tuple(m.split(" ", 1)) for m in spec["tokenizer.ggml.merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    types = spec.get("tokenizer.ggml.token_type", [1] * len(tokens))
    tok.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                            for i, t in enumerate(types) if t == 3])
    return tok, spec


def write_all(out_dir, gguf=None):
    """Writes every tokenizer (NAME.json, NAME.spec.json) and the test lines into `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    corpus = training_corpus()
    for family, pre in [("gpt2", "gpt-2"), ("smollm", "smollm"), ("llama3", "llama-bpe"),
                        ("qwen2", "qwen2")]:
        tok = byte_level_tokenizer(family, corpus)
        tok.save(str(out / f"{family}.json"))
        plain = byte_level_tokenizer(family, corpus, extra_added=False, nfc=False)
        plain.save(str(out / f"{family}-plain.json"))
        (out / f"{family}-plain.spec.json").write_text(
            json.dumps(spec_from_byte_level(plain, pre), ensure_ascii=False))
    for name, metaspace in [("spm", False), ("spm-metaspace", True)]:
        tok, spec = spm_tokenizer(corpus, metaspace=metaspace)
        tok.save(str(out / f"{name}.json"))
        (out / f"{name}.spec.json").write_text(json.dumps(spec, ensure_ascii=False))
    if gguf:
        tok, spec = gguf_tokenizer(gguf)
        tok.save(str(out / "gguf.json"))
        (out / "gguf.spec.json").write_text(json.dumps(spec, ensure_ascii=False))
    with open(out / "lines.jsonl", "w", encoding="utf-8") as f:
        for line in generate_lines():
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    gguf_path = None
    if "--gguf" in args:
        gguf_path = args[args.index("--gguf") + 1]
        args = [a for a in args if a not in ("--gguf", gguf_path)]
    if len(args) != 1:
        sys.exit("usage: make_tokenizer_json.py OUT_DIR [--gguf MODEL.gguf]")
    write_all(args[0], gguf_path)
