"""Checks cppnn's own CoreML protobuf subset (src/export/coreml/proto/*.proto, written from the
documented field numbers) against the descriptors of Apple's .proto files that coremltools ships
in its *_pb2 modules: every message, field and enum value of the subset must exist in Apple's
definition under the same full name, with the same number, type, label, message/enum type and
oneof. The subset is compiled with Debian's protoc (--descriptor_set_out) for the comparison.

Usage: check_proto_subset.py [PROTO_DIR]   (default: src/export/coreml/proto of this checkout)
Prints `coreml-proto-subset: N passed, N failed, N skipped` (one check per message and enum).
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")

from google.protobuf import descriptor_pb2  # noqa: E402
from coremltools.proto import MIL_pb2, Model_pb2  # noqa: E402,F401  (registers Apple's files)
from google.protobuf import descriptor_pool  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def compile_subset(proto_dir: Path) -> descriptor_pb2.FileDescriptorSet:
    """Our .proto files as a FileDescriptorSet, compiled by protoc."""
    protos = sorted(p.name for p in proto_dir.glob("*.proto"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "subset.pb"
        subprocess.run(["protoc", f"--descriptor_set_out={out}", "-I", str(proto_dir), *protos],
                       check=True)
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(out.read_bytes())
    return fds


def walk(prefix: str, messages, enums):
    """(full name, DescriptorProto | EnumDescriptorProto) of every message and enum, nested too."""
    for e in enums:
        yield f"{prefix}.{e.name}", e
    for m in messages:
        name = f"{prefix}.{m.name}"
        yield name, m
        yield from walk(name, m.nested_type, m.enum_type)


def check_message(name: str, ours: descriptor_pb2.DescriptorProto, apple) -> list:
    """The differences between our message and Apple's descriptor `apple`."""
    problems = []
    apple_fields = {f.name: f for f in apple.fields}
    for f in ours.field:
        a = apple_fields.get(f.name)
        if a is None:
            problems.append(f"{name}.{f.name}: no such field in Apple's definition")
            continue
        if a.number != f.number:
            problems.append(f"{name}.{f.name}: number {f.number}, Apple's {a.number}")
        if a.type != f.type:
            problems.append(f"{name}.{f.name}: type {f.type}, Apple's {a.type}")
        apple_repeated = a.is_repeated
        if apple_repeated != (f.label == f.LABEL_REPEATED):
            problems.append(f"{name}.{f.name}: repeated differs from Apple's")
        apple_type = (a.message_type or a.enum_type)
        if f.type_name and (apple_type is None or f.type_name.lstrip(".") != apple_type.full_name):
            problems.append(f"{name}.{f.name}: type {f.type_name.lstrip('.')}, Apple's "
                            f"{apple_type.full_name if apple_type else 'scalar'}")
        ours_oneof = ours.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else None
        apple_oneof = a.containing_oneof.name if a.containing_oneof else None
        # proto3 `optional` makes a synthetic oneof "_name" in either definition.
        if (ours_oneof or "").lstrip("_") != (apple_oneof or "").lstrip("_") and not (
                ours_oneof is None and apple_oneof == f"_{f.name}"):
            problems.append(f"{name}.{f.name}: oneof {ours_oneof}, Apple's {apple_oneof}")
    return problems


def check_enum(name: str, ours: descriptor_pb2.EnumDescriptorProto, apple) -> list:
    """The differences between our enum and Apple's descriptor `apple`."""
    problems = []
    apple_values = {v.name: v.number for v in apple.values}
    for v in ours.value:
        if v.name not in apple_values:
            problems.append(f"{name}.{v.name}: no such value in Apple's definition")
        elif apple_values[v.name] != v.number:
            problems.append(f"{name}.{v.name}: {v.number}, Apple's {apple_values[v.name]}")
    return problems


def main() -> int:
    proto_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "src/export/coreml/proto"
    pool = descriptor_pool.Default()
    passed = failed = 0
    for file in compile_subset(proto_dir).file:
        for name, ours in walk(file.package, file.message_type, file.enum_type):
            is_enum = isinstance(ours, descriptor_pb2.EnumDescriptorProto)
            try:
                apple = (pool.FindEnumTypeByName(name) if is_enum
                         else pool.FindMessageTypeByName(name))
            except KeyError:
                problems = [f"{name}: not in Apple's definitions"]
            else:
                problems = (check_enum if is_enum else check_message)(name, ours, apple)
            for p in problems:
                print(f"FAIL {p}")
            failed += bool(problems)
            passed += not problems
    print(f"coreml-proto-subset: {passed} passed, {failed} failed, 0 skipped")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
