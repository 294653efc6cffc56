#!/usr/bin/env python3
"""cppnn's text generation against llama.cpp (llama-cpp-python) and the exact model, on the same
GGUF file.

Three references, per prompt:
  - exact: the model in numpy float64 over gguf-py's dequantized weights (numpy_llama.py);
  - llama.cpp on the GGUF file as it is (its CPU matmuls quantize the activations to 8 bits
    against 4-bit weights, an approximation of the model);
  - llama.cpp on the same weights written as an F32 GGUF, with a float32 key/value cache (the
    same weight values, multiplied in float32).
Checks, for each prompt and each backend:
  - the prompt's token ids equal llama.cpp's (cppnn tokenize);
  - the logits of the first 16 positions agree with the exact model within 1e-5 and with
    llama.cpp on the F32 weights within 1e-3 (relative L2 per position); the distance to
    llama.cpp on the quantized file is reported next to llama.cpp's own distance to the exact
    model (its activation quantization);
  - 32 greedy tokens equal llama.cpp's on the quantized file, or the first difference is a near
    tie: the two candidates' exact logits differ by less than llama.cpp's own error there (the
    largest |llama.cpp - exact| over the vocabulary at that position), so llama.cpp's
    approximation decides it; the sequences diverge after it and are not compared further.
Run by `make llm-oracle` (scripts/llm-env.sh --oracle builds llama-cpp-python into .venv-llm);
writes reports/llm-oracle.json and a closing line `llm-oracle: N passed, N failed, N skipped`.
Exit status 0 when every check passed, 1 otherwise, 77 when llama_cpp or the model is missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
DEFAULT_MODEL = ROOT / ".deps" / "llm" / "SmolLM2-135M-Instruct.Q4_1.gguf"

# Prompts of at least 16 tokens (the logits of their first 16 positions are compared).
PROMPTS = [
    "The capital of France is Paris, and the capital of Germany is Berlin. The capital of Italy is",
    "Once upon a time, in a small village at the foot of the mountains, there lived an old",
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n    if n < 2:\n",
    "Photosynthesis is the process by which green plants use sunlight, water and carbon dioxide to",
    "<|im_start|>user\nWhat are the three primary colors of light?<|im_end|>\n<|im_start|>assistant\n",
]
LOGIT_POSITIONS = 16
GENERATED = 32


def relative_l2(a, b):
    import numpy as np

    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def llamacpp_logits(llm, tokens):
    import numpy as np

    llm.reset()
    llm.eval(tokens)
    return np.array(llm.scores[: len(tokens)], dtype=np.float64)


def llamacpp_greedy(llm, tokens):
    """llama.cpp's greedy continuation of `tokens`."""
    import numpy as np

    llm.reset()
    llm.eval(tokens)
    out = []
    for _ in range(GENERATED):
        token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        out.append(token)
        llm.eval([token])
    return out


def cppnn_run(cppnn, model, prompt, backend, threads, workdir):
    """cppnn's prompt token ids, prompt logits (generate --logits) and greedy tokens."""
    import numpy as np

    ids = subprocess.run([cppnn, "tokenize", str(model), "--text", prompt], check=True,
                         capture_output=True, text=True)
    logits_path = Path(workdir) / "logits.npy"
    base = [cppnn, "generate", str(model), "--prompt", prompt, "--backend", backend,
            "--threads", str(threads), "--context", "512"]
    subprocess.run(base + ["--max-tokens", "0", "--logits", str(logits_path)], check=True,
                   capture_output=True)
    out = subprocess.run(base + ["--max-tokens", str(GENERATED), "--ignore-eos", "--json"],
                         check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return json.loads(ids.stdout), np.load(logits_path), result["tokens"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cppnn", required=True)
    parser.add_argument("--model", default=os.environ.get("CPPNN_GGUF_MODEL", str(DEFAULT_MODEL)))
    parser.add_argument("--backends", default="cpu,ort,litert,reference")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--report", default=str(ROOT / "reports" / "llm-oracle.json"))
    args = parser.parse_args()
    try:
        import numpy as np
        from llama_cpp import Llama

        from numpy_llama import NumpyLlama
    except ImportError as e:
        print(f"llm-oracle: skipped: {e} (scripts/llm-env.sh --oracle installs llama-cpp-python)")
        return 77
    if not Path(args.model).is_file():
        print(f"llm-oracle: skipped: no model at {args.model} (scripts/fetch-llm.sh)")
        return 77
    ops = subprocess.run([args.cppnn, "ops", "--json"], capture_output=True, text=True, check=True)
    available = json.loads(ops.stdout)["backends"]
    backends = [b for b in args.backends.split(",") if b in available]
    exact = NumpyLlama(args.model)
    quantized = Llama(model_path=args.model, n_ctx=512, n_batch=512, logits_all=True,
                      n_threads=args.threads, verbose=False)
    cases, passed, failed = [], 0, 0
    with tempfile.TemporaryDirectory() as workdir:
        f32_path = str(Path(workdir) / "model-f32.gguf")
        exact.write_float32_gguf(f32_path)
        float32 = Llama(model_path=f32_path, n_ctx=512, n_batch=512, logits_all=True,
                        n_threads=args.threads, type_k=0, type_v=0, verbose=False)
        for prompt in PROMPTS:
            tokens = quantized.tokenize(prompt.encode(), add_bos=False, special=True)
            ref_exact = exact.logits(tokens)
            ref_q = llamacpp_logits(quantized, tokens)
            ref_f32 = llamacpp_logits(float32, tokens)
            ref_tokens = llamacpp_greedy(quantized, tokens)
            n = min(LOGIT_POSITIONS, len(tokens))
            llama_err = [relative_l2(ref_q[i], ref_exact[i]) for i in range(n)]
            for backend in backends:
                ids, ours, ours_tokens = cppnn_run(args.cppnn, args.model, prompt, backend,
                                                   args.threads, workdir)
                problems = []
                if ids != tokens:
                    problems.append(f"token ids {ids} differ from llama.cpp's {tokens}")
                m = min(n, ours.shape[0])
                case = {
                    "prompt": prompt, "backend": backend, "prompt_tokens": len(tokens),
                    "vs_exact": [relative_l2(ours[i], ref_exact[i]) for i in range(m)],
                    "vs_llamacpp_f32": [relative_l2(ours[i], ref_f32[i]) for i in range(m)],
                    "vs_llamacpp_quantized": [relative_l2(ours[i], ref_q[i]) for i in range(m)],
                    "llamacpp_quantized_vs_exact": llama_err,
                    "tokens": ours_tokens, "llamacpp_tokens": ref_tokens,
                }
                worst = {k: max(case[k]) for k in ("vs_exact", "vs_llamacpp_f32",
                                                   "vs_llamacpp_quantized",
                                                   "llamacpp_quantized_vs_exact")}
                case["max"] = worst
                if worst["vs_exact"] > 1e-5:
                    problems.append(f"logits {worst['vs_exact']:.1e} from the exact model")
                if worst["vs_llamacpp_f32"] > 1e-3:
                    problems.append(f"logits {worst['vs_llamacpp_f32']:.1e} from llama.cpp (F32)")
                first = next((i for i, (a, b) in enumerate(zip(ours_tokens, ref_tokens))
                              if a != b), None)
                case["first_difference"] = first
                if first is not None:
                    # The exact logits and llama.cpp's there, after the common prefix.
                    prefix = tokens + ref_tokens[:first]
                    at_exact = exact.logits(prefix)[-1]
                    at_llama = llamacpp_logits(quantized, prefix)[-1]
                    gap = abs(at_exact[ours_tokens[first]] - at_exact[ref_tokens[first]])
                    noise = float(np.max(np.abs(at_llama - at_exact)))
                    case["tie"] = {"exact_gap": float(gap), "llamacpp_error": noise,
                                   "exact_prefers": "cppnn" if at_exact[ours_tokens[first]] >=
                                   at_exact[ref_tokens[first]] else "llama.cpp"}
                    if gap >= noise:
                        problems.append(f"token {first} differs ({ours_tokens[first]} vs "
                                        f"{ref_tokens[first]}): exact gap {gap:.3f} over "
                                        f"llama.cpp's error {noise:.3f}")
                case["problems"] = problems
                cases.append(case)
                passed += not problems
                failed += bool(problems)
                note = ("tokens equal" if first is None else
                        f"tokens differ at {first} (exact gap {case['tie']['exact_gap']:.3f} < "
                        f"llama.cpp error {case['tie']['llamacpp_error']:.3f}, exact prefers "
                        f"{case['tie']['exact_prefers']})")
                print(f"{'ok' if not problems else 'FAIL'} {backend:9} vs exact "
                      f"{worst['vs_exact']:.1e}, vs llama.cpp F32 {worst['vs_llamacpp_f32']:.1e}, "
                      f"vs llama.cpp Q {worst['vs_llamacpp_quantized']:.1e} (llama.cpp Q vs exact "
                      f"{worst['llamacpp_quantized_vs_exact']:.1e}); {note} | {prompt[:32]!r}")
                for p in problems:
                    print(f"    {p}")
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(json.dumps({"model": args.model, "cases": cases}, indent=1))
    print(f"llm-oracle: {passed} passed, {failed} failed, 0 skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
