"""cppnn's GGUF reader against gguf-py (llama.cpp's own GGUF writer, reader and dequantizer).

- Every tensor kind cppnn reads (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K,
  Q6_K) written by gguf.GGUFWriter, quantized by gguf.quants.quantize from random floats where
  gguf-py can quantize the kind, and as random blocks with random finite float16 scales (all
  kinds): `cppnn gguf-info FILE --tensor NAME --dequantize -o x.npy` must equal
  gguf.quants.dequantize bit for bit, in the same (WebNN) shape.
- Metadata of every value type (arrays of each, nested arrays) and the tensor list printed by
  `cppnn gguf-info --json --full-arrays` must be what was written, and what gguf-py reads.
- A real model ($CPPNN_GGUF_MODEL, else .deps/llm/SmolLM2-135M-Instruct.Q4_1.gguf; skipped
  without one): key and tensor counts and kinds as gguf-py reads them, and its token embedding
  and first attention weight dequantized bit for bit.

Run by ctest as a script: `test_gguf_dequant.py --cppnn path/to/cppnn` re-runs itself under
pytest in the venv .venv-llm (scripts/llm-env.sh), and exits 77 (skipped) without it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_MODEL = ROOT / ".deps" / "llm" / "SmolLM2-135M-Instruct.Q4_1.gguf"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from llm_venv import rerun_under_pytest

    rerun_under_pytest(__file__, "--cppnn", "CPPNN_TOOL", ["gguf", "numpy", "pytest"],
                       "gguf oracle")

import gguf  # noqa: E402  (only under pytest, in the venv)
import numpy as np  # noqa: E402
import pytest  # noqa: E402

Q = gguf.GGMLQuantizationType
V = gguf.GGUFValueType
KINDS = [Q.F32, Q.F16, Q.BF16, Q.Q8_0, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1, Q.Q4_K, Q.Q5_K, Q.Q6_K]
# The byte offsets of each kind's float16 scale fields within a block (ggml-common.h).
F16_FIELDS = {Q.Q8_0: [0], Q.Q4_0: [0], Q.Q5_0: [0], Q.Q4_1: [0, 2], Q.Q5_1: [0, 2],
              Q.Q4_K: [0, 2], Q.Q5_K: [0, 2], Q.Q6_K: [208]}


@pytest.fixture(scope="module")
def cppnn():
    tool = os.environ.get("CPPNN_TOOL")
    if not tool or not Path(tool).exists():
        pytest.skip("CPPNN_TOOL (the cppnn binary) is not set")
    return tool


def run(cppnn, *args):
    r = subprocess.run([cppnn, "gguf-info", *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, f"cppnn gguf-info {' '.join(map(str, args))}: {r.stderr}"
    return r.stdout


def random_blocks(rng, kind, rows, cols):
    """Random blocks of `kind` whose float16 scale fields are random finite values."""
    block, size = gguf.GGML_QUANT_SIZES[kind]
    n = rows * cols // block
    data = rng.integers(0, 256, size=(n, size), dtype=np.uint8)
    for field in F16_FIELDS[kind]:
        bits = rng.integers(0, 1 << 16, size=n, dtype=np.uint32).astype(np.uint16)
        finite = (bits & 0x7C00) != 0x7C00
        bits = np.where(finite, bits, bits & 0x83FF)  # Inf/NaN -> a finite value
        data[:, field:field + 2] = bits.view(np.uint8).reshape(n, 2)
    return data.reshape(rows, cols // block * size)


def tensors_for(rng, kind):
    """(name, array, raw_dtype) of `kind`: quantized from floats when gguf-py can, random blocks."""
    block, _ = gguf.GGML_QUANT_SIZES[kind]
    rows, cols = 3, max(block, 32) * 2
    floats = (rng.standard_normal((rows, cols)) * 0.5).astype(np.float32)
    floats[0, :4] = [0.0, -0.0, 1e-8, -65504.0]
    out = []
    try:
        quantized = gguf.quants.quantize(floats, kind)
        out.append((f"{kind.name}.quantized", quantized, kind))
    except NotImplementedError:
        pass
    if kind in F16_FIELDS:
        out.append((f"{kind.name}.random", random_blocks(rng, kind, rows, cols), kind))
    return out


@pytest.fixture(scope="module")
def kinds_file(tmp_path_factory):
    rng = np.random.default_rng(1234)
    path = tmp_path_factory.mktemp("gguf") / "kinds.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    names = []
    for kind in KINDS:
        for name, array, raw_dtype in tensors_for(rng, kind):
            w.add_tensor(name, array, raw_dtype=raw_dtype)
            names.append(name)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path, names


def test_every_kind_dequantizes_bit_for_bit(cppnn, kinds_file, tmp_path):
    path, names = kinds_file
    reader = gguf.GGUFReader(str(path))
    by_name = {t.name: t for t in reader.tensors}
    assert set(by_name) == set(names)
    assert {by_name[n].tensor_type for n in names} == set(KINDS)
    for name in names:
        t = by_name[name]
        expected = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32, copy=False)
        out = tmp_path / f"{name}.npy"
        run(cppnn, path, "--tensor", name, "--dequantize", "-o", out)
        got = np.load(out)
        assert got.dtype == np.float32, name
        assert got.shape == expected.shape, f"{name}: {got.shape} != {expected.shape}"
        same = got.view(np.uint32) == expected.view(np.uint32)
        if not same.all():
            i = np.argwhere(~same)[0]
            pytest.fail(f"{name}: element {tuple(i)}: cppnn {got[tuple(i)]!r}, "
                        f"gguf-py {expected[tuple(i)]!r} ({(~same).sum()} differ)")


def test_tensor_list_matches_gguf_py(cppnn, kinds_file):
    path, _ = kinds_file
    info = json.loads(run(cppnn, path, "--json"))
    reader = gguf.GGUFReader(str(path))
    assert info["version"] == 3
    assert len(info["tensors"]) == len(reader.tensors)
    for mine, theirs in zip(info["tensors"], reader.tensors):
        assert mine["name"] == theirs.name
        assert mine["kind"] == theirs.tensor_type.name
        assert mine["typeId"] == int(theirs.tensor_type)
        assert mine["dims"] == [int(d) for d in theirs.shape]
        assert mine["shape"] == [int(d) for d in reversed(theirs.shape)]
        assert mine["elements"] == theirs.n_elements
        assert mine["bytes"] == theirs.n_bytes
        assert info["dataOffset"] + mine["offset"] == theirs.data_offset


# key -> (value type, element type or None, the value written, the value expected back)
def metadata_cases():
    f32 = lambda x: float(np.float32(x))  # noqa: E731
    nested = [[1, 2], [3], [4, 5, 6]]
    return {
        "t.u8": (V.UINT8, None, 250, 250),
        "t.i8": (V.INT8, None, -100, -100),
        "t.u16": (V.UINT16, None, 65000, 65000),
        "t.i16": (V.INT16, None, -30000, -30000),
        "t.u32": (V.UINT32, None, 4000000000, 4000000000),
        "t.i32": (V.INT32, None, -2000000000, -2000000000),
        "t.f32": (V.FLOAT32, None, 0.1, f32(0.1)),
        "t.bool": (V.BOOL, None, True, True),
        "t.str": (V.STRING, None, "héllo \"wörld\"\n", "héllo \"wörld\"\n"),
        "t.u64": (V.UINT64, None, 2**64 - 1, 2**64 - 1),
        "t.i64": (V.INT64, None, -2**63, -2**63),
        "t.f64": (V.FLOAT64, None, 1e300, 1e300),
        "t.arr_u8": (V.ARRAY, V.UINT8, [0, 255], [0, 255]),
        "t.arr_i8": (V.ARRAY, V.INT8, [-128, 127], [-128, 127]),
        "t.arr_u16": (V.ARRAY, V.UINT16, [65535, 1], [65535, 1]),
        "t.arr_i16": (V.ARRAY, V.INT16, [-32768], [-32768]),
        "t.arr_u32": (V.ARRAY, V.UINT32, [1, 2, 3], [1, 2, 3]),
        "t.arr_i32": (V.ARRAY, V.INT32, list(range(-20, 20)), list(range(-20, 20))),
        "t.arr_f32": (V.ARRAY, V.FLOAT32, [0.5, 1e-3], [0.5, f32(1e-3)]),
        "t.arr_bool": (V.ARRAY, V.BOOL, [True, False, True], [True, False, True]),
        "t.arr_str": (V.ARRAY, V.STRING, ["a", "Ġt", "<|im_end|>"], ["a", "Ġt", "<|im_end|>"]),
        "t.arr_u64": (V.ARRAY, V.UINT64, [2**63], [2**63]),
        "t.arr_i64": (V.ARRAY, V.INT64, [-(2**40)], [-(2**40)]),
        "t.arr_f64": (V.ARRAY, V.FLOAT64, [2.5, -1e-300], [2.5, -1e-300]),
        "t.arr_nested": (V.ARRAY, V.ARRAY, nested, nested),
    }


def test_metadata_json_is_what_was_written(cppnn, tmp_path):
    path = tmp_path / "meta.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    cases = metadata_cases()
    for key, (vtype, sub_type, value, _) in cases.items():
        w.add_key_value(key, value, vtype, sub_type=sub_type)
    w.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(1000)])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    info = json.loads(run(cppnn, path, "--json", "--full-arrays"))
    entries = {e["key"]: e for e in info["metadata"]}
    assert entries["general.architecture"]["value"] == "llama"
    for key, (vtype, sub_type, _, expected) in cases.items():
        e = entries[key]
        assert e["type"] == vtype.name.lower(), key
        if sub_type is not None:
            assert e["elementType"] == sub_type.name.lower(), key
            assert e["count"] == len(expected), key
        assert e["value"] == expected, key
        assert type(e["value"]) is type(expected), key
    tokens = entries["tokenizer.ggml.tokens"]
    assert tokens["value"] == [f"tok{i}" for i in range(1000)]

    # Without --full-arrays long arrays are cut, and say so.
    short = {e["key"]: e for e in json.loads(run(cppnn, path, "--json"))["metadata"]}
    assert short["tokenizer.ggml.tokens"]["truncated"] is True
    assert short["tokenizer.ggml.tokens"]["count"] == 1000
    assert short["tokenizer.ggml.tokens"]["value"] == [f"tok{i}" for i in range(16)]

    # gguf-py reads the same keys, in the same order.
    reader = gguf.GGUFReader(str(path))
    theirs = [k for k in reader.fields if not k.startswith("GGUF.")]
    assert [e["key"] for e in info["metadata"]] == theirs


def real_model():
    path = Path(os.environ.get("CPPNN_GGUF_MODEL", DEFAULT_MODEL))
    if not path.is_file():
        pytest.skip(f"no GGUF model at {path} ($CPPNN_GGUF_MODEL)")
    return path


def test_real_model_matches_gguf_py(cppnn, tmp_path):
    path = real_model()
    info = json.loads(run(cppnn, path, "--json"))
    reader = gguf.GGUFReader(str(path))
    assert len(info["metadata"]) == len([k for k in reader.fields if not k.startswith("GGUF.")])
    assert len(info["tensors"]) == len(reader.tensors)
    kinds = {}
    for t in reader.tensors:
        kinds[t.tensor_type.name] = kinds.get(t.tensor_type.name, 0) + 1
    assert {k: v["tensors"] for k, v in info["kinds"].items()} == kinds
    by_name = {t.name: t for t in reader.tensors}
    for name in ["token_embd.weight", "blk.0.attn_q.weight"]:
        t = by_name[name]
        expected = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32, copy=False)
        out = tmp_path / f"{name}.npy"
        run(cppnn, path, "--tensor", name, "--dequantize", "-o", out)
        got = np.load(out)
        assert got.shape == expected.shape, name
        assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), name
