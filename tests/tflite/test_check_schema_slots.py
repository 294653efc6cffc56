"""Unit tests of check_schema_slots.py (tests/tflite): our schema subset passes against the wheel's
generated schema, and each kind of mistake in a mutated copy of it fails with a message naming the
field or value (a wrong id, a wrong scalar type or default, a wrong vector element, a wrong enum or
union value, a union's id); the parser rejects what it does not read.

Run: .venv-litert/bin/python -m pytest -q tests/tflite/test_check_schema_slots.py
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_schema_slots as css  # noqa: E402
from schema_subset import SchemaError, parse_schema  # noqa: E402

SCHEMA = css.DEFAULT_SCHEMA.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def generated():
    return css.load_generated(None)


def mutated(tmp_path, old: str, new: str):
    """A copy of our schema with the first `old` replaced by `new`, as a path."""
    assert old in SCHEMA, old
    path = tmp_path / "mutated.fbs"
    path.write_text(SCHEMA.replace(old, new, 1), encoding="utf-8")
    return str(path)


def run(capsys, *argv):
    rc = css.main(list(argv))
    return rc, capsys.readouterr().out


def test_our_schema_passes(capsys):
    rc, out = run(capsys)
    assert rc == 0, out
    assert "FAIL" not in out
    assert out.strip().endswith("failed, 0 skipped")
    assert ", 0 failed," in out


def test_wrong_id_fails(tmp_path, capsys):
    rc, out = run(capsys, mutated(tmp_path, "keep_num_dims:bool (id: 2)",
                                  "keep_num_dims:bool (id: 3)"))
    assert rc == 1
    assert "FAIL FullyConnectedOptions.keep_num_dims: our id 3, TFLite's slot 2" in out
    assert "tflite-schema-slots: " in out and ", 1 failed, 0 skipped" in out


def test_swapped_ids_fail_both_fields(tmp_path, capsys):
    path = mutated(tmp_path, "shape:[int] (id: 0);\n  type:TensorType (id: 1);",
                   "shape:[int] (id: 1);\n  type:TensorType (id: 0);")
    rc, out = run(capsys, path)
    assert rc == 1
    assert "Tensor.shape: our id 1, TFLite's slot 0" in out
    assert "Tensor.type: our id 0, TFLite's slot 1" in out


def test_duplicate_id_fails(tmp_path, capsys):
    rc, out = run(capsys, mutated(tmp_path, "stride_h:int (id: 2);", "stride_h:int (id: 1);"))
    assert rc == 1
    assert "Conv2DOptions.stride_h: slot 1 is also stride_w's" in out


def test_union_ids(tmp_path, capsys):
    rc, out = run(capsys, mutated(tmp_path, "builtin_options:BuiltinOptions (id: 4)",
                                  "builtin_options:BuiltinOptions (id: 5)"))
    assert rc == 1
    assert "Operator.builtin_options: our id 5, TFLite's slot 4" in out
    assert "type slot is our id - 1 = 4, TFLite's BuiltinOptionsType() slot 3" in out


@pytest.mark.parametrize("old,new,message", [
    ("stride_w:int (id: 1);", "stride_w:uint (id: 1);",
     "Conv2DOptions.stride_w: uint (Uint32Flags), TFLite reads Int32Flags"),
    ("dilation_w_factor:int = 1 (id: 4);", "dilation_w_factor:int (id: 4);",
     "Conv2DOptions.dilation_w_factor: default 0, TFLite's 1"),
    ("is_variable:bool = false (id: 5)", "is_variable:bool = true (id: 5)",
     "Tensor.is_variable: default true, TFLite's False"),
    ("enum TensorType : byte", "enum TensorType : int",
     "Tensor.type: TensorType (Int32Flags), TFLite reads Int8Flags"),
    ("zero_point:[long]", "zero_point:[int]",
     "QuantizationParameters.zero_point: elements int (Int32Flags), TFLite's scalar (Int64Flags)"),
    ("data:[ubyte] (id: 0", "data:[byte] (id: 0",
     "Buffer.data: elements byte (Int8Flags), TFLite's scalar (Uint8Flags)"),
    ("tensors:[Tensor] (id: 0)", "tensors:[Buffer] (id: 0)",
     "SubGraph.tensors: elements table Buffer, TFLite's table Tensor"),
    ("name:string (id: 3);\n  quantization", "name:[ubyte] (id: 3);\n  quantization",
     "Tensor.name: a vector [ubyte] here, TFLite's is a string"),
    ("quantization:QuantizationParameters (id: 4)", "quantization:Buffer (id: 4)",
     "Tensor.quantization: table Buffer here, TFLite's table QuantizationParameters"),
    ("padding:Padding (id: 0);", "paddings:Padding (id: 0);",
     "Conv2DOptions.paddings: no accessor Paddings()"),
])
def test_field_kind_mistakes_fail(tmp_path, capsys, old, new, message):
    rc, out = run(capsys, mutated(tmp_path, old, new))
    assert rc == 1
    assert message in out


@pytest.mark.parametrize("old,new,message", [
    ("UINT32 = 15", "UINT32 = 16", "TensorType.UINT32: ours 16, TFLite's 15"),
    ("BATCH_MATMUL = 126", "BATCH_MATMUL = 125", "BuiltinOperator.BATCH_MATMUL: ours 125"),
    ("SAME = 0, VALID = 1", "SAME = 1, VALID = 0", "Padding.SAME: ours 1, TFLite's 0"),
    ("RELU6 = 3,\n  TANH", "RELU6 = 4,\n  TANH", "ActivationFunctionType.RELU6: ours 4"),
    ("REFLECT = 0, SYMMETRIC = 1", "REFLECT = 0, SYMMETRIC = 2", "MirrorPadMode.SYMMETRIC: ours 2"),
    ("MirrorPadOptions = 77", "MirrorPadOptions = 78",
     "BuiltinOptions.MirrorPadOptions: ours 78, TFLite's 77"),
    ("  ADD = 0,", "  ADD = 0,\n  ADDITION = 3,",
     "BuiltinOperator.ADDITION: no such enum value"),
    ('file_identifier "TFL3"', 'file_identifier "TFL2"', "ModelBufferHasIdentifier checks"),
])
def test_value_mistakes_fail(tmp_path, capsys, old, new, message):
    rc, out = run(capsys, mutated(tmp_path, old, new))
    assert rc == 1
    assert message in out


def test_unknown_table_fails(tmp_path, capsys):
    rc, out = run(capsys, mutated(tmp_path, "table SignOptions {}", "table SignOption {}"))
    assert rc == 1
    assert "SignOption: no such table in TFLite's schema" in out
    assert "BuiltinOptions.SignOptions: no table SignOptions in our schema" in out


def test_deprecated_placeholder_is_not_checked(tmp_path, capsys):
    # A deprecated slot keeps the ids after it right; its own type is never written.
    rc, out = run(capsys, mutated(tmp_path, "new_height:int (id: 0, deprecated);",
                                  "new_height:float (id: 0, deprecated);"))
    assert rc == 0, out


def test_parser_reads_the_subset():
    s = parse_schema(SCHEMA)
    assert s.root_type == "Model" and s.file_identifier == "TFL3"
    assert dict(s.enums["TensorType"].values)["INT4"] == 17
    assert s.enums["BuiltinOperator"].underlying == "int"
    ops = {f.name: f for f in s.tables["Operator"].fields}
    assert ops["builtin_options"].id == 4 and ops["inputs"].type.vector
    deprecated = [f.name for f in s.tables["SignatureDef"].fields if f.deprecated]
    assert deprecated == ["deprecated_tag"]


@pytest.mark.parametrize("text,message", [
    ("table T { a:int; }", "has no `id:` attribute"),
    ("struct S { a:int; }", "`struct` is outside the subset"),
    ("enum E : float { A = 0 }", "is not an integer type"),
    ("table T { a:int (id: x); }", "bad id"),
    ("table T { a:int (id: 0) }", "expected ;"),
    ("table T {} table T {}", "declared twice: T"),
])
def test_parser_rejects_what_it_does_not_read(text, message):
    with pytest.raises(SchemaError, match=message.replace("(", r"\(")):
        parse_schema(text)


def test_unreadable_schema_is_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.fbs"
    path.write_text("rpc_service S {}", encoding="utf-8")
    assert css.main([str(path)]) == 2
    assert css.main([str(tmp_path / "missing.fbs")]) == 2


def test_generated_reader(generated):
    # Accessors of a scalar with a default, a vector of tables, a union and a string.
    conv = generated.accessors["Conv2DOptions"]["DilationHFactor"]
    assert (conv.slot, conv.kind, conv.flag, conv.default) == (5, "scalar", "Int32Flags", 1)
    tensors = generated.accessors["SubGraph"]["Tensors"]
    assert (tensors.slot, tensors.kind, tensors.element, tensors.table) == (
        0, "vector", "table", "Tensor")
    assert generated.accessors["Operator"]["BuiltinOptions"].kind == "union"
    assert generated.accessors["Operator"]["BuiltinOptionsType"].slot == 3
    assert generated.accessors["Tensor"]["Name"].kind == "string"
    # Helpers are no accessors of their own.
    assert "ShapeLength" not in generated.accessors["Tensor"]
    assert "ShapeAsNumpy" not in generated.accessors["Tensor"]
    assert generated.constants["TensorType"]["UINT32"] == 15
    assert generated.identifiers["Model"] == b"TFL3"


def test_upper_camel():
    assert css.upper_camel("stride_w") == "StrideW"
    assert css.upper_camel("deprecated_builtin_code") == "DeprecatedBuiltinCode"
    assert css.upper_camel("axis") == "Axis"
