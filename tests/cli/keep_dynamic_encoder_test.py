#!/usr/bin/env python3
"""`cppnn convert-onnx --keep-dynamic` and `cppnn run` on a BERT-like encoder
(docs/dynamic-dimensions.md): the model is written here with onnx.helper (token, position and
token-type embeddings, position ids from Range over Shape, token types from ConstantOfShape, an
attention mask, multi-head attention with reshapes computed from Shape chains, layer
normalization, GELU through Erf, masked mean pooling), converted once with seq kept dynamic, and
run by the CLI at several sequence lengths on each backend, every output against ONNX Runtime on
the original model (relative L2 <= 1e-4). Exit 77 (skipped) without onnx and onnxruntime."""

import argparse
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e}")
    sys.exit(77)

VOCAB, HIDDEN, HEADS, HEAD_DIM, FFN, MAX_POS, LAYERS = 50, 32, 4, 8, 64, 64, 2


def encoder_model():
    rng = np.random.default_rng(7)
    inits, nodes = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))

    def weight(name, shape, scale):
        init(name, (scale * rng.uniform(-1, 1, shape)).astype(np.float32))

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=output + "_" + op, **attrs))
        return output

    def dense(x, p, n_in, n_out):
        weight(p + "_w", (n_in, n_out), 1 / np.sqrt(n_in))
        weight(p + "_b", (n_out,), 0.1)
        return node("Add", [node("MatMul", [x, p + "_w"], p + "_mm"), p + "_b"], p + "_y")

    def layer_norm(x, p):
        init(p + "_g", (1 + 0.1 * rng.uniform(-1, 1, HIDDEN)).astype(np.float32))
        init(p + "_b", (0.1 * rng.uniform(-1, 1, HIDDEN)).astype(np.float32))
        return node("LayerNormalization", [x, p + "_g", p + "_b"], p + "_y", axis=-1,
                    epsilon=1e-12)

    def batch_seq(x, p):  # [batch], [seq] of x's shape, each as a 1-D tensor
        shape = node("Shape", [x], p + "_shape")
        b = node("Unsqueeze", [node("Gather", [shape, "i0"], p + "_b0"), "ax0"], p + "_b")
        s = node("Unsqueeze", [node("Gather", [shape, "i1"], p + "_s0"), "ax0"], p + "_s")
        return b, s

    def heads(x, p, perm):
        b, s = batch_seq(x, p)
        ns = node("Concat", [b, s, "heads", "hdim"], p + "_ns", axis=0)
        return node("Transpose", [node("Reshape", [x, ns], p + "_r")], p + "_t", perm=perm)

    weight("word_emb", (VOCAB, HIDDEN), 0.5)
    weight("pos_emb", (MAX_POS, HIDDEN), 0.5)
    weight("type_emb", (2, HIDDEN), 0.5)
    for name, value in [("i0", 0), ("i1", 1)]:
        init(name, np.array(value, np.int64))
    for name, value in [("ax0", [0]), ("ax1", [1]), ("ax2", [2]), ("ax12", [1, 2]),
                        ("heads", [HEADS]), ("hdim", [HEAD_DIM]), ("hidden", [HIDDEN])]:
        init(name, np.array(value, np.int64))
    for name, value in [("one", 1.0), ("half", 0.5), ("neg", -10000.0), ("sqrt2", np.sqrt(2)),
                        ("sqrtd", np.sqrt(HEAD_DIM))]:
        init(name, np.array(value, np.float32))

    ids_shape = node("Shape", ["input_ids"], "ids_shape")
    seq = node("Gather", [ids_shape, "i1"], "seq_len")
    pos = node("Gather", ["pos_emb", node("Range", ["i0", seq, "i1"], "pos_ids")], "pos")
    zero = helper.make_tensor("zero", TensorProto.INT64, [1], [0])
    types = node("Gather", ["type_emb", node("ConstantOfShape", [ids_shape], "type_ids",
                                              value=zero)], "types")
    words = node("Gather", ["word_emb", "input_ids"], "words")
    x = layer_norm(node("Add", [node("Add", [words, pos], "e0"), types], "e1"), "emb_ln")
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inv = node("Sub", ["one", node("Unsqueeze", [mask_f, "ax12"], "mask4")], "inv")
    mask_add = node("Mul", [inv, "neg"], "mask_add")
    for layer in range(LAYERS):
        p = f"l{layer}"
        q = heads(dense(x, p + "_q", HIDDEN, HIDDEN), p + "_qh", [0, 2, 1, 3])
        k = heads(dense(x, p + "_k", HIDDEN, HIDDEN), p + "_kh", [0, 2, 3, 1])
        v = heads(dense(x, p + "_v", HIDDEN, HIDDEN), p + "_vh", [0, 2, 1, 3])
        scores = node("Div", [node("MatMul", [q, k], p + "_qk"), "sqrtd"], p + "_sc")
        probs = node("Softmax", [node("Add", [scores, mask_add], p + "_scm")], p + "_pr",
                     axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], p + "_ctx")], p + "_ct",
                   perm=[0, 2, 1, 3])
        b, s = batch_seq(x, p + "_xs")
        merged = node("Reshape", [ctx, node("Concat", [b, s, "hidden"], p + "_bs", axis=0)],
                      p + "_merged")
        x1 = layer_norm(node("Add", [dense(merged, p + "_o", HIDDEN, HIDDEN), x], p + "_res1"),
                        p + "_ln1")
        h = dense(x1, p + "_f1", HIDDEN, FFN)
        erf = node("Erf", [node("Div", [h, "sqrt2"], p + "_hs")], p + "_erf")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, "one"], p + "_erf1")], p + "_hg"),
                            "half"], p + "_gelu")
        x = layer_norm(node("Add", [dense(gelu, p + "_f2", FFN, HIDDEN), x1], p + "_res2"),
                       p + "_ln2")
    node("Identity", [x], "last_hidden_state")
    masked = node("Mul", [x, node("Unsqueeze", [mask_f, "ax2"], "mask3")], "masked")
    total = node("ReduceSum", [masked, "ax1"], "sum", keepdims=0)
    node("Div", [total, node("ReduceSum", [mask_f, "ax1"], "count")], "pooled")
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])
    outs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN]),
            helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", HIDDEN])]
    graph = helper.make_graph(nodes, "encoder", [ids, mask], outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def rel_l2(got, want):
    return float(np.linalg.norm(got.astype(np.float64) - want) /
                 max(np.linalg.norm(want.astype(np.float64)), 1e-30))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cppnn", required=True)
    ap.add_argument("--backends", default="reference,cpu")
    ap.add_argument("--lengths", default="7,32,64")
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "encoder.onnx")
        onnx.save(encoder_model(), path)
        webnn = os.path.join(tmp, "encoder.webnn")
        subprocess.run([args.cppnn, "convert-onnx", path, "--keep-dynamic", f"seq={MAX_POS}",
                        "--override-dim", "batch=1", "-o", webnn], check=True)
        text = open(webnn, encoding="utf-8").read()
        assert f'dyn("seq", {MAX_POS})' in text, "no dynamic dimension in the converted graph"
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        for seq in [int(s) for s in args.lengths.split(",")]:
            rng = np.random.default_rng(seq)
            ids = rng.integers(0, VOCAB, (1, seq)).astype(np.int64)
            mask = np.ones((1, seq), np.int64)
            mask[0, max(1, seq - 2):] = 0
            np.save(os.path.join(tmp, "ids.npy"), ids)
            np.save(os.path.join(tmp, "mask.npy"), mask)
            want = session.run(None, {"input_ids": ids, "attention_mask": mask})
            for backend in args.backends.split(","):
                out = os.path.join(tmp, f"out_{backend}_{seq}")
                r = subprocess.run([args.cppnn, "run", webnn, "--backend", backend,
                                    "--input", "input_ids=" + os.path.join(tmp, "ids.npy"),
                                    "--input", "attention_mask=" + os.path.join(tmp, "mask.npy"),
                                    "--output-dir", out], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL {backend} seq={seq}: {r.stderr.strip()}")
                    failures += 1
                    continue
                errors = []
                for name, w in zip(["last_hidden_state", "pooled"], want):
                    got = np.load(os.path.join(out, name + ".npy"))
                    if got.shape != w.shape:
                        errors.append(f"{name} shape {got.shape}, want {w.shape}")
                        continue
                    e = rel_l2(got, w)
                    if e > 1e-4:
                        errors.append(f"{name} rel L2 {e:.3g}")
                    print(f"{backend} seq={seq} {name} rel L2 {e:.2e}")
                if errors:
                    print(f"FAIL {backend} seq={seq}: " + "; ".join(errors))
                    failures += 1
    print("ok" if failures == 0 else f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
