#!/usr/bin/env python3
"""Checks cppnn's own TFLite schema subset (src/export/tflite/schema/tflite_subset.fbs, written from
TFLite's documented ids) mechanically against the schema that ai-edge-litert 2.3.0 ships generated
for Python (ai_edge_litert/schema_py_generated.py, imported from the venv of
scripts/litert-env.sh). Each generated accessor reads its field through `self._tab.Offset(N)`, N
being the vtable offset 4 + 2 * slot, and its body says the field's kind; so per table of ours:

  every field that is not deprecated has an accessor of its name (snake_case -> UpperCamel) whose
  slot (N - 4) / 2 is our `id:`; a union field's type accessor (<Name>Type, a ubyte) sits at
  id - 1 and its value accessor at id (FlatBuffers' rule for union fields);
  the kind agrees: a scalar reads the same number type (element width and signedness; an enum
  field reads its underlying type) and has the same default; a string reads a string; a table
  field reads a table of the same name; a vector reads elements of the same scalar type and
  width, strings or tables of the same name;
  the ids of the table are unique, union fields taking two;
every value of each of our enums (TensorType, BuiltinOperator, Padding, ActivationFunctionType,
MirrorPadMode, ...) and every member value of each union (BuiltinOptions) equals TFLite's, and the
file identifier is the one the generated Model checks for.

Usage: check_schema_slots.py [SCHEMA.fbs] [--generated FILE.py]
  (defaults: this checkout's schema subset; the wheel's module, imported)
Prints a FAIL line per difference and `tflite-schema-slots: N passed, N failed, 0 skipped` (one
check per table, enum and union, plus the file identifier). Exit status: 0 all passed, 1 a
difference (or nothing checked), 2 the schema or the generated module cannot be read.
"""

import argparse
import ast
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from schema_subset import (SCALAR_ALIASES, SCALAR_WIDTHS, Schema, SchemaError,  # noqa: E402
                           parse_schema)

ROOT = Path(HERE).resolve().parents[1]
DEFAULT_SCHEMA = ROOT / "src/export/tflite/schema/tflite_subset.fbs"

# The flatbuffers.number_types flag each canonical scalar type reads with.
SCALAR_FLAGS = {"bool": "BoolFlags", "byte": "Int8Flags", "ubyte": "Uint8Flags",
                "short": "Int16Flags", "ushort": "Uint16Flags", "int": "Int32Flags",
                "uint": "Uint32Flags", "long": "Int64Flags", "ulong": "Uint64Flags",
                "float": "Float32Flags", "double": "Float64Flags"}


# ---- the generated module ------------------------------------------------------------------------


@dataclass
class Accessor:
    """What one generated accessor method reads: its slot and kind ("scalar", "string", "table",
    "union", "vector"), the number flag of a scalar or a vector's scalar elements, the class it
    constructs (a table, or a vector's table elements), a vector's element stride and the
    default a scalar returns when the field is absent."""
    name: str
    slot: int
    kind: str
    flag: Optional[str] = None
    table: Optional[str] = None
    element: Optional[str] = None   # a vector's element kind: "scalar", "string", "table"
    stride: Optional[int] = None
    default: object = None


class GeneratedSchema:
    """The classes of a flatc-generated Python schema module, read from its source with `ast`:
    per class its accessors (methods reading `self._tab.Offset(N)`, the Length/AsNumpy/IsNone
    helpers left out) and its integer class attributes (enum and union values)."""

    HELPER_SUFFIXES = ("Length", "AsNumpy", "IsNone")

    def __init__(self, source: str):
        self.accessors: Dict[str, Dict[str, Accessor]] = {}
        self.constants: Dict[str, Dict[str, int]] = {}
        self.identifiers: Dict[str, bytes] = {}
        for node in ast.parse(source).body:
            if isinstance(node, ast.ClassDef):
                self._read_class(node)

    def has_class(self, name: str) -> bool:
        return name in self.accessors

    def _read_class(self, cls: ast.ClassDef) -> None:
        accessors, constants = {}, {}
        for item in cls.body:
            if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(
                    item.targets[0], ast.Name) and isinstance(item.value, ast.Constant) and \
                    isinstance(item.value.value, int) and not isinstance(item.value.value, bool):
                constants[item.targets[0].id] = item.value.value
            elif isinstance(item, ast.FunctionDef):
                if item.name.endswith("BufferHasIdentifier"):
                    ident = _identifier_of(item)
                    if ident is not None:
                        self.identifiers[cls.name] = ident
                    continue
                a = _accessor_of(item)
                if a is not None and not (item.name.endswith(self.HELPER_SUFFIXES) and
                                          _is_helper(item)):
                    accessors[item.name] = a
        self.accessors[cls.name] = accessors
        self.constants[cls.name] = constants


def _tab_calls(fn: ast.FunctionDef) -> List[ast.Call]:
    """The calls `self._tab.X(...)` in `fn`, in source order."""
    calls = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(
                n.func.value, ast.Attribute) and n.func.value.attr == "_tab":
            calls.append(n)
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def _flag_of(call: ast.Call) -> Optional[str]:
    """The number flag of `self._tab.Get(flatbuffers.number_types.XFlags, ...)`."""
    if call.args and isinstance(call.args[0], ast.Attribute):
        return call.args[0].attr
    return None


def _is_helper(fn: ast.FunctionDef) -> bool:
    """A vector's Length/AsNumpy helper or a field's IsNone helper (not a field accessor)."""
    names = {c.func.attr for c in _tab_calls(fn)}
    return bool(names & {"VectorLen", "GetVectorAsNumpy"}) or names == {"Offset"}


def _identifier_of(fn: ast.FunctionDef) -> Optional[bytes]:
    for n in ast.walk(fn):
        if isinstance(n, ast.Constant) and isinstance(n.value, bytes):
            return n.value
    return None


def _accessor_of(fn: ast.FunctionDef) -> Optional[Accessor]:
    """The Accessor of a generated method, or None when it reads no field."""
    calls = _tab_calls(fn)
    offsets = [c for c in calls if c.func.attr == "Offset"]
    if len(offsets) != 1 or not offsets[0].args or not isinstance(offsets[0].args[0],
                                                                  ast.Constant):
        return None
    vt = offsets[0].args[0].value
    slot = (vt - 4) // 2 if isinstance(vt, int) and vt >= 4 and vt % 2 == 0 else -1
    names = [c.func.attr for c in calls]
    constructed = [n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and
                   isinstance(n.func, ast.Name) and n.func.id not in ("bool", "Table")]
    a = Accessor(fn.name, slot, "unknown")
    if "Vector" in names:
        a.kind = "vector"
        if "Indirect" in names:
            a.element, a.table = "table", constructed[0] if constructed else None
            a.stride = 4
        elif "String" in names:
            a.element, a.stride = "string", 4
        elif "Get" in names:
            get = next(c for c in calls if c.func.attr == "Get")
            a.element, a.flag = "scalar", _flag_of(get)
            a.stride = _stride_of(fn)
    elif "Union" in names:
        a.kind = "union"
    elif "String" in names:
        a.kind = "string"
    elif "Indirect" in names:
        a.kind, a.table = "table", constructed[0] if constructed else None
    elif "Get" in names:
        get = next(c for c in calls if c.func.attr == "Get")
        a.kind, a.flag = "scalar", _flag_of(get)
    elif constructed:
        a.kind, a.table = "struct", constructed[0]
    a.default = _default_of(fn)
    return a


def _stride_of(fn: ast.FunctionDef) -> Optional[int]:
    """W of the element address `a + UOffsetTFlags.py_type(j * W)`."""
    for n in ast.walk(fn):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and isinstance(
                n.left, ast.Name) and n.left.id == "j" and isinstance(n.right, ast.Constant):
            return n.right.value
    return None


def _default_of(fn: ast.FunctionDef) -> object:
    """The value the accessor returns when the field is absent (its last statement)."""
    last = fn.body[-1] if fn.body else None
    if isinstance(last, ast.Return) and isinstance(last.value, ast.Constant):
        return last.value.value
    if isinstance(last, ast.Return) and isinstance(last.value, ast.UnaryOp) and isinstance(
            last.value.op, ast.USub) and isinstance(last.value.operand, ast.Constant):
        return -last.value.operand.value
    return None


@functools.lru_cache(maxsize=4)
def load_generated(path: Optional[str]) -> GeneratedSchema:
    """The generated schema of `path`, or of the installed ai_edge_litert.schema_py_generated
    (read once per path: the module is 20,000 lines)."""
    if path:
        source = Path(path).read_text(encoding="utf-8")
    else:
        from ai_edge_litert import schema_py_generated  # the wheel's own module
        source = Path(schema_py_generated.__file__).read_text(encoding="utf-8")
    return GeneratedSchema(source)


# ---- the comparison ------------------------------------------------------------------------------


def upper_camel(name: str) -> str:
    """flatc's Python accessor name of a snake_case field: stride_w -> StrideW."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _default_number(schema: Schema, type_name: str, literal: Optional[str]) -> float:
    """Our field's default as a number: the literal, an enum value's name, or 0 / false."""
    if literal is None:
        return 0
    if literal in ("true", "false"):
        return 1 if literal == "true" else 0
    if type_name in schema.enums:
        values = dict(schema.enums[type_name].values)
        if literal in values:
            return values[literal]
    try:
        return float(literal)
    except ValueError:
        raise SchemaError(f"default {literal!r} of a {type_name} field is not a number") from None


def _scalar_flag(schema: Schema, base: str) -> Optional[str]:
    """The number flag our scalar or enum type reads with; None for other types."""
    if base in schema.enums:
        base = schema.enums[base].underlying
    base = SCALAR_ALIASES.get(base, base)
    return SCALAR_FLAGS.get(base)


def _scalar_width(schema: Schema, base: str) -> int:
    if base in schema.enums:
        base = schema.enums[base].underlying
    return SCALAR_WIDTHS[base]


def check_field(schema: Schema, table: str, f, theirs: Dict[str, Accessor]) -> List[str]:
    """The differences between our field `f` of `table` and the generated accessors `theirs`."""
    where = f"{table}.{f.name}"
    method = upper_camel(f.name)
    a = theirs.get(method)
    if a is None:
        return [f"{where}: no accessor {method}() in TFLite's {table} (a field of another name, "
                "or deprecated upstream)"]
    problems = []
    if a.slot != f.id:
        problems.append(f"{where}: our id {f.id}, TFLite's slot {a.slot} "
                        f"({method}() reads Offset({4 + 2 * a.slot}))")
    base, vector = f.type.base, f.type.vector
    if base in schema.unions and not vector:
        t = theirs.get(method + "Type")
        if a.kind != "union":
            problems.append(f"{where}: a union here, TFLite's is a {a.kind}")
        if t is None or t.kind != "scalar" or t.flag != "Uint8Flags":
            problems.append(f"{where}: TFLite has no ubyte {method}Type() for the union's type")
        elif t.slot != f.id - 1:
            problems.append(f"{where}: the union's type slot is our id - 1 = {f.id - 1}, "
                            f"TFLite's {method}Type() slot {t.slot}")
        return problems
    if vector:
        if a.kind != "vector":
            return problems + [f"{where}: a vector {f.type} here, TFLite's is a {a.kind}"]
        flag = _scalar_flag(schema, base)
        if flag:
            if a.element != "scalar" or a.flag != flag:
                problems.append(f"{where}: elements {base} ({flag}), TFLite's "
                                f"{a.element} ({a.flag or a.table})")
            elif a.stride != _scalar_width(schema, base):
                problems.append(f"{where}: element width {_scalar_width(schema, base)}, "
                                f"TFLite's {a.stride}")
        elif base == "string":
            if a.element != "string":
                problems.append(f"{where}: elements string, TFLite's {a.element}")
        elif base in schema.tables:
            if a.element != "table" or a.table != base:
                problems.append(f"{where}: elements table {base}, TFLite's "
                                f"{a.element} {a.table or a.flag}")
        else:
            problems.append(f"{where}: unknown element type {base}")
        return problems
    flag = _scalar_flag(schema, base)
    if flag:
        if a.kind != "scalar":
            problems.append(f"{where}: a scalar {base} here, TFLite's is a {a.kind}")
        elif a.flag != flag:
            problems.append(f"{where}: {base} ({flag}), TFLite reads {a.flag}")
        else:
            ours = _default_number(schema, base, f.default)
            theirs_default = a.default
            if not isinstance(theirs_default, (int, float)) or float(theirs_default) != ours:
                problems.append(f"{where}: default {f.default or 0}, TFLite's {theirs_default}")
    elif base == "string":
        if a.kind != "string":
            problems.append(f"{where}: a string here, TFLite's is a {a.kind}")
    elif base in schema.tables:
        if a.kind != "table" or a.table != base:
            problems.append(f"{where}: table {base} here, TFLite's {a.kind} {a.table or ''}")
    else:
        problems.append(f"{where}: unknown type {base}")
    return problems


def check_ids(table, schema: Schema) -> List[str]:
    """Our ids of one table are unique (a union field also takes id - 1)."""
    used: Dict[int, str] = {}
    problems = []
    for f in table.fields:
        ids = [f.id - 1, f.id] if f.type.base in schema.unions and not f.type.vector else [f.id]
        for i in ids:
            if i < 0:
                problems.append(f"{table.name}.{f.name}: id {i} is negative")
            elif i in used:
                problems.append(f"{table.name}.{f.name}: slot {i} is also {used[i]}'s")
            else:
                used[i] = f.name
    return problems


def check_table(schema: Schema, table, generated: GeneratedSchema) -> List[str]:
    if not generated.has_class(table.name):
        return [f"{table.name}: no such table in TFLite's schema"]
    theirs = generated.accessors[table.name]
    problems = check_ids(table, schema)
    for f in table.fields:
        if f.deprecated:
            continue  # a placeholder that keeps the ids after it right; never written
        problems += check_field(schema, table.name, f, theirs)
    return problems


def check_values(kind: str, name: str, values, generated: GeneratedSchema) -> List[str]:
    """Our enum values or union members against the generated class's constants."""
    if name not in generated.constants:
        return [f"{name}: no such {kind} in TFLite's schema"]
    theirs = generated.constants[name]
    problems = []
    for value_name, value in values:
        if value_name not in theirs:
            problems.append(f"{name}.{value_name}: no such {kind} value in TFLite's schema")
        elif theirs[value_name] != value:
            problems.append(f"{name}.{value_name}: ours {value}, TFLite's {theirs[value_name]}")
    return problems


def check_schema(schema: Schema, generated: GeneratedSchema) -> Dict[str, List[str]]:
    """{check name: its problems} for every table, enum and union of ours and the identifier."""
    results: Dict[str, List[str]] = {}
    for name, e in schema.enums.items():
        results[f"enum {name}"] = check_values("enum", name, e.values, generated)
    for name, u in schema.unions.items():
        problems = check_values("union", name, u.members, generated)
        problems += [f"{name}.{m}: no table {m} in our schema" for m, _ in u.members
                     if m not in schema.tables]
        results[f"union {name}"] = problems
    for name, t in schema.tables.items():
        results[f"table {name}"] = check_table(schema, t, generated)
    root = schema.root_type
    ident = generated.identifiers.get(root or "")
    want = (schema.file_identifier or "").encode("ascii")
    results["file_identifier"] = (
        [] if root and ident == want else
        [f"file_identifier {schema.file_identifier!r} of root_type {root}: TFLite's "
         f"{root}BufferHasIdentifier checks {ident!r}"])
    return results


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("schema", nargs="?", default=str(DEFAULT_SCHEMA),
                   help="our schema subset (default: %(default)s)")
    p.add_argument("--generated", help="a generated schema_py_generated.py to check against "
                   "(default: the installed ai_edge_litert's)")
    args = p.parse_args(argv)
    try:
        schema = parse_schema(Path(args.schema).read_text(encoding="utf-8"))
        generated = load_generated(args.generated)
    except (OSError, SchemaError, SyntaxError, ImportError) as e:
        print(f"check_schema_slots: {args.schema}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    passed = failed = fields = 0
    for name, problems in check_schema(schema, generated).items():
        for problem in problems:
            print(f"FAIL {problem}")
        failed += bool(problems)
        passed += not problems
    fields = sum(len(t.fields) for t in schema.tables.values())
    values = sum(len(e.values) for e in schema.enums.values()) + sum(
        len(u.members) for u in schema.unions.values())
    print(f"checked {len(schema.tables)} tables ({fields} fields), {len(schema.enums)} enums and "
          f"{len(schema.unions)} unions ({values} values)")
    print(f"tflite-schema-slots: {passed} passed, {failed} failed, 0 skipped")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
