"""A llama-architecture forward pass in numpy float64 over a GGUF file's weights as llama.cpp's
gguf-py dequantizes them: the exact model a quantized GGUF stands for, with no shortcut (ggml's
CPU matmuls quantize the activations to 8 bits against 4-bit weights; this does not). The
language-model oracle (llamacpp_oracle.py) measures cppnn and llama.cpp against it.

    model = NumpyLlama("model.gguf")
    logits = model.logits([504, 3575, 282])   # [tokens, vocabulary] float64
"""
import numpy as np


class NumpyLlama:
    def __init__(self, path):
        import gguf

        self.reader = gguf.GGUFReader(path)
        fields = self.reader.fields
        arch = fields["general.architecture"].contents()
        if arch != "llama":
            raise ValueError(f"NumpyLlama: architecture {arch} is not llama")

        def key(name, default=None):
            full = f"{arch}.{name}"
            return fields[full].contents() if full in fields else default

        self.layers = key("block_count")
        self.embd = key("embedding_length")
        self.heads = key("attention.head_count")
        self.kv_heads = key("attention.head_count_kv", self.heads)
        self.head_dim = key("attention.key_length", self.embd // self.heads)
        self.eps = key("attention.layer_norm_rms_epsilon")
        self.base = key("rope.freq_base", 10000.0)
        self.rope_dims = key("rope.dimension_count", self.head_dim)
        self._tensors = {t.name: t for t in self.reader.tensors}
        self._cache = {}

    def weight(self, name):
        """The tensor dequantized (float32, cached), in WebNN order ([out, in])."""
        import gguf

        if name not in self._cache:
            t = self._tensors[name]
            v = np.asarray(gguf.quants.dequantize(t.data, t.tensor_type), dtype=np.float32)
            self._cache[name] = v.reshape([int(d) for d in reversed(t.shape)])
        return self._cache[name]

    def logits(self, tokens):
        n, hd, heads, kv = len(tokens), self.head_dim, self.heads, self.kv_heads
        group = heads // kv
        w = lambda name: self.weight(name).astype(np.float64)

        def rms(x, name):
            return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * w(name)

        half = self.rope_dims // 2
        theta = np.arange(n)[:, None] * self.base ** (-2.0 * np.arange(half)[None, :] / self.rope_dims)
        cos, sin = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]

        def rope(v):  # llama.cpp's normal rope: pairs (2i, 2i + 1) of the first rope_dims
            out = v.copy()
            a, b = v[..., 0:2 * half:2], v[..., 1:2 * half:2]
            out[..., 0:2 * half:2] = a * cos - b * sin
            out[..., 1:2 * half:2] = a * sin + b * cos
            return out

        mask = np.triu(np.full((n, n), -np.inf), 1)
        embedding = w("token_embd.weight")
        x = embedding[np.asarray(tokens)]
        for layer in range(self.layers):
            p = f"blk.{layer}."
            h = rms(x, p + "attn_norm.weight")
            q = rope((h @ w(p + "attn_q.weight").T).reshape(n, heads, hd))
            k = rope((h @ w(p + "attn_k.weight").T).reshape(n, kv, hd))
            v = (h @ w(p + "attn_v.weight").T).reshape(n, kv, hd)
            out = np.zeros((n, heads, hd))
            for head in range(heads):
                s = q[:, head] @ k[:, head // group].T / np.sqrt(hd) + mask
                s = np.exp(s - s.max(-1, keepdims=True))
                out[:, head] = (s / s.sum(-1, keepdims=True)) @ v[:, head // group]
            x = x + out.reshape(n, heads * hd) @ w(p + "attn_output.weight").T
            h = rms(x, p + "ffn_norm.weight")
            gate, up = h @ w(p + "ffn_gate.weight").T, h @ w(p + "ffn_up.weight").T
            x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w(p + "ffn_down.weight").T
        head = "output.weight" if "output.weight" in self._tensors else "token_embd.weight"
        return rms(x, "output_norm.weight") @ w(head).T

    def write_float32_gguf(self, path):
        """The same model with every tensor dequantized to F32 (llama.cpp then multiplies in
        float32: the same weight values without its 8-bit activation shortcut)."""
        import gguf

        arch = self.reader.fields["general.architecture"].contents()
        writer = gguf.GGUFWriter(path, arch)
        for name, field in self.reader.fields.items():
            if name.startswith("GGUF.") or name == "general.architecture":
                continue
            vtype = field.types[0]
            sub = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
            if name == "general.file_type":
                writer.add_uint32(name, 0)  # all F32
                continue
            writer.add_key_value(name, field.contents(), vtype, sub_type=sub)
        for t in self.reader.tensors:
            writer.add_tensor(t.name, np.ascontiguousarray(self.weight(t.name)))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
