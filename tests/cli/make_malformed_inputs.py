#!/usr/bin/env python3
"""Writes a folder of malformed inputs for tests/cli/malformed_inputs_test.sh.

usage: make_malformed_inputs.py DIR

DIR (created; it must be empty or missing) receives, deterministically (a fixed seed):
  - .webnn text and GraphJson graphs: empty, truncated, garbage, a BOM, NUL bytes and invalid
    UTF-8 in names, huge declared shapes (overflowing and scalar-filled), an unknown op, an
    unknown option key, deep nesting, a big inline array;
  - ONNX models (protobuf written by hand, no onnx package needed): empty, truncated, garbage,
    huge dimensions, an initializer whose declared size has no data, external data that escapes
    the folder (`..`, a symlink out of it) or is a FIFO;
  - SafeTensors sidecars of a small graph: truncated, a huge header length, a bad header, offsets
    past the end, a wrong dtype, a FIFO, a folder;
  - .npy files: bad magic, truncated, a header length past the end, a bad dictionary, Fortran
    order, big-endian, a huge shape, short data, a FIFO, a folder;
  - weights tools inputs: garbage and truncated WGWT files and manifests, a FIFO .bin, bad
    .meta.json files;
  - special files: FIFOs, folders with graph names, 3 GiB sparse files (`/dev/zero`-like), a
    symlink to /dev/zero, a file whose name is invalid UTF-8;
  - the valid files the malformed ones are variations of (base.webnn, base.json, base.onnx,
    base.npy, ok.weights + ok.manifest.json), so that the test can check its commands first.

Files that must stay outside DIR (the targets of escaping references) go to DIR/../outside/.
"""
import json
import os
import random
import struct
import sys

GIB = 1 << 30


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def sparse(path, size, head=b""):
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)


# ---- .webnn text and GraphJson ----------------------------------------------------------------

BASE_TEXT = """webnn_graph "base" v1 {
  inputs { x: f32[4]; }
  consts { w: f32[4] @scalar(0.5); }
  nodes { s = mul(x, w); y = relu(s); }
  outputs { y; }
}
"""

BASE_JSON = {
    "format": "webnn-graph-json",
    "version": 1,
    "name": "base",
    "inputs": {"x": {"dataType": "float32", "shape": [4]}},
    "consts": {},
    "nodes": [{"id": "y", "op": "relu", "inputs": ["x"], "options": {}, "outputs": None}],
    "outputs": {"y": "y"},
}

# A graph whose constant w comes from its sidecar (<stem>.safetensors).
WEIGHTED_TEXT = """webnn_graph "weighted" v1 {
  inputs { x: f32[4]; }
  consts { w: f32[4] @weights("w"); }
  nodes { y = mul(x, w); }
  outputs { y; }
}
"""


def text_graph(name="base", inputs="x: f32[4];", consts="", nodes="y = relu(x);", outputs="y;"):
    return (
        f'webnn_graph "{name}" v1 {{\n  inputs {{ {inputs} }}\n'
        + (f"  consts {{ {consts} }}\n" if consts else "")
        + f"  nodes {{ {nodes} }}\n  outputs {{ {outputs} }}\n}}\n"
    )


def graphs(d, rng):
    write(f"{d}/base.webnn", BASE_TEXT)
    write(f"{d}/empty.webnn", b"")
    write(f"{d}/blank.webnn", b" \n\t\n  # only a comment\n")
    write(f"{d}/truncated.webnn", BASE_TEXT[: len(BASE_TEXT) // 2])
    write(f"{d}/garbage.webnn", bytes(rng.randrange(256) for _ in range(4096)))
    write(f"{d}/bom.webnn", b"\xef\xbb\xbf" + BASE_TEXT.encode())
    write(f"{d}/binary_after_header.webnn", b"webnn_graph \"b\" v1 {\x00\x01\x02\xff\xfe" * 64)
    # NUL and invalid UTF-8 in names (the header's name string takes any byte).
    write(f"{d}/nul_name.webnn", BASE_TEXT.replace('"base"', '"ba\x00se"').encode())
    write(f"{d}/utf8_name.webnn", BASE_TEXT.encode().replace(b'"base"', b'"ba\xff\xfese"'))
    # Huge declared shapes: the byte size overflows; a scalar fill of 64 GiB.
    write(f"{d}/huge_input.webnn", text_graph(inputs="x: f32[4294967295, 4294967295, 16];"))
    write(
        f"{d}/huge_scalar.webnn",
        text_graph(
            consts="w: f32[1073741824, 16] @scalar(1);", nodes="y = add(x, w);", inputs="x: f32[1];"
        ),
    )
    write(
        f"{d}/huge_bytes_decl.webnn",
        text_graph(consts="w: u8[4294967295, 4294967295] @bytes([1, 2]);", nodes="y = relu(x);"),
    )
    write(f"{d}/unknown_op.webnn", text_graph(nodes="y = no_such_op(x);"))
    write(f"{d}/unknown_option.webnn", text_graph(nodes="y = relu(x, no_such_option=1);"))
    write(f"{d}/bad_ref.webnn", text_graph(nodes="y = relu(nowhere);"))
    write(f"{d}/big_version.webnn", BASE_TEXT.replace(" v1 ", " v99999999999999999999 "))
    deep = "y = relu(x, metadata=" + "{a: " * 20000 + "1" + "}" * 20000 + ");"
    write(f"{d}/deep_option.webnn", text_graph(nodes=deep))
    write(f"{d}/long_name.webnn", text_graph(nodes="y" * 1_000_000 + " = relu(x);", outputs="y;"))

    write(f"{d}/base.json", json.dumps(BASE_JSON, indent=1))
    write(f"{d}/empty.json", b"{")
    text = json.dumps(BASE_JSON)
    write(f"{d}/truncated.json", text[: len(text) // 2])
    write(f"{d}/garbage.json", b"{" + bytes(rng.randrange(256) for _ in range(4096)))
    write(f"{d}/not_object.json", b"{}")
    j = json.loads(text)
    j["name"] = "ba\u0000se"
    write(f"{d}/nul_name.json", json.dumps(j))
    write(f"{d}/utf8_name.json", text.encode().replace(b'"base"', b'"ba\xff\xfese"'))
    j = json.loads(text)
    j["inputs"]["x"]["shape"] = [4294967295, 4294967295, 16]
    write(f"{d}/huge_input.json", json.dumps(j))
    j = json.loads(text)
    j["inputs"]["x"]["shape"] = [18446744073709551615]
    write(f"{d}/dim_overflow.json", json.dumps(j))
    j = json.loads(text)
    j["consts"] = {
        "w": {"dataType": "float32", "shape": [1073741824, 16], "init": {"kind": "scalar", "value": 1}}
    }
    write(f"{d}/huge_scalar.json", json.dumps(j))
    j = json.loads(text)
    j["nodes"][0]["options"] = {"no_such_option": 1}
    write(f"{d}/unknown_option.json", json.dumps(j))
    j = json.loads(text)
    j["nodes"][0]["op"] = "no_such_op"
    write(f"{d}/unknown_op.json", json.dumps(j))
    write(f"{d}/deep.json", b'{"format": ' + b"[" * 100000 + b"]" * 100000 + b"}")
    # 40 MB of inline bytes: a DOM that grows far beyond the file would show in the RSS.
    j = json.loads(text)
    j["consts"] = {
        "w": {
            "dataType": "uint8",
            "shape": [20_000_000],
            "init": {"kind": "inlineBytes", "bytes": "@@BYTES@@"},
        }
    }
    write(
        f"{d}/big_array.json",
        json.dumps(j).replace('"@@BYTES@@"', "[" + ",".join(["7"] * 20_000_000) + "]"),
    )


# ---- ONNX (protobuf by hand) ------------------------------------------------------------------


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, value):
    return varint(num << 3) + varint(value)


def field_bytes(num, data):
    data = data if isinstance(data, bytes) else data.encode()
    return varint((num << 3) | 2) + varint(len(data)) + data


def value_info(name, dims, elem_type=1):
    shape = b"".join(field_bytes(1, field_varint(1, d)) for d in dims)  # Dimension.dim_value
    tensor = field_varint(1, elem_type) + field_bytes(2, shape)  # TypeProto.Tensor
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor))


def node(op, inputs, outputs):
    return (
        b"".join(field_bytes(1, i) for i in inputs)
        + b"".join(field_bytes(2, o) for o in outputs)
        + field_bytes(4, op)
    )


def tensor(name, dims, data_type=1, raw=None, external=None):
    t = b"".join(field_varint(1, d) for d in dims) + field_varint(2, data_type) + field_bytes(8, name)
    if raw is not None:
        t += field_bytes(9, raw)
    if external is not None:
        for k, v in external.items():  # StringStringEntryProto external_data = 13
            t += field_bytes(13, field_bytes(1, k) + field_bytes(2, v))
        t += field_varint(14, 1)  # data_location = EXTERNAL
    return t


def model(graph_fields):
    graph = field_bytes(2, "g") + graph_fields
    opset = field_bytes(1, "") + field_varint(2, 17)
    return field_varint(1, 8) + field_bytes(7, graph) + field_bytes(8, opset)


def relu_model(x_dims=(4,)):
    return model(
        field_bytes(1, node("Relu", ["x"], ["y"]))
        + field_bytes(11, value_info("x", x_dims))
        + field_bytes(12, value_info("y", x_dims))
    )


def add_model(initializer):
    return model(
        field_bytes(1, node("Add", ["x", "w"], ["y"]))
        + field_bytes(5, initializer)
        + field_bytes(11, value_info("x", [4]))
        + field_bytes(12, value_info("y", [4]))
    )


def onnx_models(d, outside, rng):
    base = relu_model()
    write(f"{d}/base.onnx", base)
    write(f"{d}/empty.onnx", b"")
    write(f"{d}/truncated.onnx", base[: len(base) // 2])
    write(f"{d}/garbage.onnx", bytes(rng.randrange(256) for _ in range(4096)))
    write(f"{d}/huge_dims.onnx", relu_model((1 << 40, 4)))
    write(f"{d}/huge_init.onnx", add_model(tensor("w", [65536, 65536, 65536])))
    write(f"{d}/short_init.onnx", add_model(tensor("w", [4], raw=b"\x00" * 7)))
    write(f"{d}/ext_escape.onnx", add_model(tensor("w", [4], external={"location": "../outside/w.bin"})))
    write(f"{outside}/w.bin", b"\x00" * 16)
    write(f"{d}/ext_link.onnx", add_model(tensor("w", [4], external={"location": "ext_link.bin"})))
    os.symlink(os.path.join("..", "outside", "w.bin"), f"{d}/ext_link.bin")
    write(f"{d}/ext_abs.onnx", add_model(tensor("w", [4], external={"location": f"{outside}/w.bin"})))
    write(f"{d}/ext_fifo.onnx", add_model(tensor("w", [4], external={"location": "ext.fifo"})))
    os.mkfifo(f"{d}/ext.fifo")
    write(
        f"{d}/ext_range.onnx",
        add_model(
            tensor("w", [4], external={"location": "ext_range.bin", "offset": "8", "length": "16"})
        ),
    )
    write(f"{d}/ext_range.bin", b"\x00" * 12)


# ---- SafeTensors sidecars ---------------------------------------------------------------------


def safetensors(header, data=b""):
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def sidecars(d):
    good = {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}
    cases = {
        "st_truncated": safetensors(good, b"\x00" * 16)[:12],
        "st_hugelen": struct.pack("<Q", 1 << 62) + b"{}",
        "st_badjson": safetensors(b"{not json", b""),
        "st_offsets": safetensors({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 1 << 40]}}),
        "st_dtype": safetensors({"w": {"dtype": "I8", "shape": [4], "data_offsets": [0, 4]}}, b"\0" * 4),
        "st_shape": safetensors(
            {"w": {"dtype": "F32", "shape": [4294967295, 4294967295], "data_offsets": [0, 16]}},
            b"\0" * 16,
        ),
    }
    for stem, data in cases.items():
        write(f"{d}/{stem}.webnn", WEIGHTED_TEXT)
        write(f"{d}/{stem}.safetensors", data)
    write(f"{d}/st_fifo.webnn", WEIGHTED_TEXT)
    os.mkfifo(f"{d}/st_fifo.safetensors")
    write(f"{d}/st_folder.webnn", WEIGHTED_TEXT)
    os.mkdir(f"{d}/st_folder.safetensors")
    write(f"{d}/st_sparse.webnn", WEIGHTED_TEXT)
    sparse(f"{d}/st_sparse.safetensors", 3 * GIB)


# ---- .npy -------------------------------------------------------------------------------------


def npy(descr="<f4", shape=(4,), data=None, version=1, fortran=False, header=None):
    if header is None:
        dims = ", ".join(str(x) for x in shape) + ("," if len(shape) == 1 else "")
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
            descr, "True" if fortran else "False", dims)
    prefix = 10 if version == 1 else 12
    total = (prefix + len(header) + 1 + 63) // 64 * 64
    header += " " * (total - prefix - len(header) - 1) + "\n"
    length = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    if data is None:
        data = struct.pack("<4f", -1, 2, -3, 4)
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + data


def npys(d):
    write(f"{d}/base.npy", npy())
    write(f"{d}/bad_magic.npy", b"\x93NUMPX" + npy()[6:])
    write(f"{d}/truncated.npy", npy()[:9])
    write(f"{d}/header_past_end.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr'")
    write(f"{d}/bad_dict.npy", npy(header="{'descr': '<f4', 'shape': (4,), 'bogus': 1}"))
    write(f"{d}/fortran.npy", npy(fortran=True))
    write(f"{d}/bigendian.npy", npy(descr=">f4"))
    write(f"{d}/huge_shape.npy", npy(shape=(4294967295, 4294967295, 4294967295)))
    write(f"{d}/dim_overflow.npy", npy(shape=(99999999999999999999999,)))
    write(f"{d}/short_data.npy", npy(data=b"\x00" * 7))
    write(f"{d}/v2_huge_header.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{")
    write(f"{d}/wrong_shape.npy", npy(shape=(2, 2)))


# ---- weights tools ----------------------------------------------------------------------------


def manifest(tensors):
    return json.dumps({"format": "wg-weights-manifest", "version": 1, "endianness": "little",
                       "tensors": tensors})


def weights_inputs(d, rng):
    entry = {"dataType": "float32", "shape": [4], "byteOffset": 8, "byteLength": 16}
    write(f"{d}/ok.weights", b"WGWT\x01\x00\x00\x00" + b"\x00" * 16)
    write(f"{d}/ok.manifest.json", manifest({"w": entry}))
    write(f"{d}/ref.webnn", WEIGHTED_TEXT)
    write(f"{d}/truncated.weights", b"WGWT\x01\x00")
    write(f"{d}/garbage.weights", bytes(rng.randrange(256) for _ in range(64)))
    write(f"{d}/garbage.manifest.json", b"{" + bytes(rng.randrange(256) for _ in range(256)))
    write(f"{d}/huge_offset.manifest.json",
          manifest({"w": dict(entry, byteOffset=18446744073709551615)}))
    write(f"{d}/huge_shape.manifest.json",
          manifest({"w": dict(entry, shape=[4294967295, 4294967295, 4294967295])}))
    write(f"{d}/deep.manifest.json", b"[" * 100000 + b"]" * 100000)
    # pack-weights inputs: the manifest names w.bin in a folder.
    for name, setup in {"pack_fifo": "fifo", "pack_short": "short", "pack_folder": "folder"}.items():
        os.mkdir(f"{d}/{name}")
        if setup == "fifo":
            os.mkfifo(f"{d}/{name}/w.bin")
        elif setup == "short":
            write(f"{d}/{name}/w.bin", b"\x00" * 3)
        else:
            os.mkdir(f"{d}/{name}/w.bin")
    # create-manifest inputs: a .bin with a bad, missing or FIFO .meta.json.
    meta = json.dumps(dict(entry))
    for name in ("cm_badmeta", "cm_fifo", "cm_hugemeta"):
        os.mkdir(f"{d}/{name}")
        write(f"{d}/{name}/w.bin", b"\x00" * 16)
    write(f"{d}/cm_badmeta/w.meta.json", b"{\"dataType\": ")
    os.mkfifo(f"{d}/cm_fifo/w.meta.json")
    write(f"{d}/cm_hugemeta/w.meta.json", json.dumps(dict(entry, shape=[4294967295] * 3)))
    del meta


# ---- onnx-tests data and runner files ---------------------------------------------------------


def runner_inputs(d, rng):
    case = f"{d}/onnxdata/node/test_garbage"
    os.makedirs(f"{case}/test_data_set_0")
    write(f"{case}/model.onnx", bytes(rng.randrange(256) for _ in range(512)))
    write(f"{case}/test_data_set_0/input_0.pb", bytes(rng.randrange(256) for _ in range(64)))
    write(f"{case}/test_data_set_0/output_0.pb", b"")
    case = f"{d}/onnxdata/node/test_fifo_input"
    os.makedirs(f"{case}/test_data_set_0")
    write(f"{case}/model.onnx", relu_model())
    os.mkfifo(f"{case}/test_data_set_0/input_0.pb")
    write(f"{d}/no_expectations.txt", b"")
    write(f"{d}/bad_expectations.txt", b"test_x\n\xff\xfe: nonsense\n")


# ---- special files ----------------------------------------------------------------------------


def special(d):
    for name in ("fifo.webnn", "fifo.json", "fifo.onnx", "fifo.npy", "fifo.weights",
                 "fifo.manifest.json"):
        os.mkfifo(f"{d}/{name}")
    for name in ("folder.webnn", "folder.json", "folder.onnx", "folder.npy", "folder.weights"):
        os.mkdir(f"{d}/{name}")
    # /dev/zero-like: 3 GiB of zeros that take no disk space, and a symlink to the device.
    sparse(f"{d}/sparse.webnn", 3 * GIB)
    sparse(f"{d}/sparse_text.webnn", 3 * GIB, b"webnn_graph \"s\" v1 {\n")
    sparse(f"{d}/sparse.json", 3 * GIB, b"{")
    sparse(f"{d}/sparse.onnx", 3 * GIB)
    sparse(f"{d}/sparse.npy", 3 * GIB, b"\x93NUMPY\x01\x00\x76\x00")
    sparse(f"{d}/sparse.weights", 3 * GIB, b"WGWT\x01\x00\x00\x00")
    os.symlink("/dev/zero", f"{d}/devzero.webnn")
    os.symlink("/dev/zero", f"{d}/devzero.onnx")
    # A file whose name is not UTF-8.
    write(os.path.join(d.encode(), b"name_\xff\xfe.webnn"), b"\x00garbage\xff")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1].rstrip("/")
    os.makedirs(d, exist_ok=True)
    if os.listdir(d):
        sys.exit(f"make_malformed_inputs.py: {d} is not empty")
    outside = os.path.join(os.path.dirname(os.path.abspath(d)), "outside")
    os.makedirs(outside, exist_ok=True)
    rng = random.Random(20240607)
    graphs(d, rng)
    onnx_models(d, outside, rng)
    sidecars(d)
    npys(d)
    weights_inputs(d, rng)
    runner_inputs(d, rng)
    special(d)


if __name__ == "__main__":
    main()
