#!/usr/bin/env python3
"""Text generation speed: prompt tokens/s and generated tokens/s of `cppnn generate` on every
compiled-in backend against llama.cpp (llama-cpp-python) on the same GGUF file, at 1 and 2
threads, in one run.

Each configuration runs in its own process (peak RSS measured per process), REPEATS times,
interleaved (every configuration once, then again), and reports the medians. The prompt is about
PROMPT_TOKENS tokens; GENERATED tokens are generated greedily past any end-of-generation token.
cppnn's figures are its own (GenerationStats: prefill time to the first logits, decode time per
generated token); llama.cpp's are timed around llama_eval in the child process the same way.
Writes reports/bench-llm.json. Run by `make bench` (skips llama.cpp when llama_cpp is missing).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / ".deps" / "llm" / "SmolLM2-135M-Instruct.Q4_1.gguf"
PROMPT = ("The history of Paris begins in the third century BC, when a Celtic people called the "
          "Parisii settled on an island in the river Seine. The Romans conquered the area in 52 BC "
          "and built a town they called Lutetia, with a forum, baths and an amphitheatre on the "
          "left bank. In the following centuries the town")

LLAMACPP_CHILD = r"""
import json, sys, time
from llama_cpp import Llama
model, prompt, threads, generated = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
llm = Llama(model_path=model, n_ctx=1024, n_batch=512, n_threads=threads,
            n_threads_batch=threads, verbose=False)
tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
llm.eval(tokens[:8]); llm.reset()  # warm-up
t0 = time.perf_counter(); llm.eval(tokens); t1 = time.perf_counter()
import numpy as np
for _ in range(generated):
    token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
    llm.eval([token])
t2 = time.perf_counter()
print(json.dumps({"prompt_tokens": len(tokens), "prompt_seconds": t1 - t0,
                  "generated_tokens": generated, "generate_seconds": t2 - t1}))
"""


def run_measured(command):
    """Runs `command`; returns its last stdout line as JSON and its peak RSS in MiB."""
    import tempfile

    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])} failed: {err.read().strip()[-500:]}")
        return json.loads(out.read().strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cppnn", required=True)
    parser.add_argument("--model", default=os.environ.get("CPPNN_GGUF_MODEL", str(DEFAULT_MODEL)))
    parser.add_argument("--converted", help="a convert-gguf output of the model (default: made)")
    parser.add_argument("--backends", default="cpu,ort,litert")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--generated", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--python", default=str(ROOT / ".venv-llm" / "bin" / "python"),
                        help="the interpreter with llama_cpp")
    parser.add_argument("--report", default=str(ROOT / "reports" / "bench-llm.json"))
    args = parser.parse_args()
    if not Path(args.model).is_file():
        print(f"llm_bench: skipped: no model at {args.model} (scripts/fetch-llm.sh)")
        return 0
    ops = subprocess.run([args.cppnn, "ops", "--json"], capture_output=True, text=True, check=True)
    available = json.loads(ops.stdout)["backends"]
    backends = [b for b in args.backends.split(",") if b in available]
    has_llamacpp = subprocess.run([args.python, "-c", "import llama_cpp"],
                                  capture_output=True).returncode == 0
    converted = args.converted
    if not converted:
        converted = str(Path(args.report).parent / "bench-llm" / "model.webnn")
        Path(converted).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([args.cppnn, "convert-gguf", args.model, "-o", converted, "--context",
                        "1024"], check=True, capture_output=True)
    configs = []
    for threads in [int(t) for t in args.threads.split(",")]:
        for backend in backends:
            configs.append(("cppnn-" + backend, threads,
                            [args.cppnn, "generate", converted, "--prompt", PROMPT, "--backend",
                             backend, "--threads", str(threads), "--max-tokens",
                             str(args.generated), "--ignore-eos", "--json"]))
        if has_llamacpp:
            configs.append(("llama.cpp", threads,
                            [args.python, "-c", LLAMACPP_CHILD, args.model, PROMPT, str(threads),
                             str(args.generated)]))
    samples = {(name, threads): [] for name, threads, _ in configs}
    for _ in range(args.repeats):
        for name, threads, command in configs:
            result, rss = run_measured(command)
            samples[(name, threads)].append((result, rss))
    rows = []
    for (name, threads), runs in samples.items():
        pp = statistics.median(r["prompt_tokens"] / r["prompt_seconds"] for r, _ in runs)
        tg = statistics.median(r["generated_tokens"] / r["generate_seconds"] for r, _ in runs)
        rss = max(m for _, m in runs)
        rows.append({"engine": name, "threads": threads, "prompt_tokens": runs[0][0]["prompt_tokens"],
                     "prompt_tokens_per_second": pp, "generated_tokens_per_second": tg,
                     "peak_rss_mib": rss})
    base = {r["threads"]: r for r in rows if r["engine"] == "llama.cpp"}
    print(f"{'engine':16} {'threads':>7} {'prompt t/s':>11} {'gen t/s':>9} {'vs llama.cpp':>14}")
    for r in rows:
        ref = base.get(r["threads"])
        ratio = (f"{r['prompt_tokens_per_second'] / ref['prompt_tokens_per_second']:.2f} / "
                 f"{r['generated_tokens_per_second'] / ref['generated_tokens_per_second']:.2f}"
                 if ref else "-")
        r["ratio_to_llamacpp"] = ratio
        print(f"{r['engine']:16} {r['threads']:7} {r['prompt_tokens_per_second']:11.1f} "
              f"{r['generated_tokens_per_second']:9.1f} {ratio:>14}")
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(json.dumps({"model": args.model, "generated": args.generated,
                                             "repeats": args.repeats, "rows": rows}, indent=1))
    if not has_llamacpp:
        print("llm_bench: llama.cpp not measured (scripts/llm-env.sh --oracle builds it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
