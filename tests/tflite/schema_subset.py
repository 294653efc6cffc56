"""A parser for cppnn's own TFLite schema subset (src/export/tflite/schema/tflite_subset.fbs): the
FlatBuffers IDL constructs that file uses (namespace, file_identifier, file_extension, root_type,
enum, union, table with explicit `id:` attributes), parsed strictly: anything else is a
SchemaError, so that a construct the checker does not understand cannot pass unchecked.

parse_schema(text) -> Schema (enums, unions and tables in file order).
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

# FlatBuffers' scalar types (and their aliases) with their width in bytes.
SCALAR_WIDTHS = {
    "bool": 1, "byte": 1, "ubyte": 1, "int8": 1, "uint8": 1,
    "short": 2, "ushort": 2, "int16": 2, "uint16": 2,
    "int": 4, "uint": 4, "int32": 4, "uint32": 4, "float": 4, "float32": 4,
    "long": 8, "ulong": 8, "int64": 8, "uint64": 8, "double": 8, "float64": 8,
}
# The canonical name of each alias.
SCALAR_ALIASES = {"int8": "byte", "uint8": "ubyte", "int16": "short", "uint16": "ushort",
                  "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
                  "float32": "float", "float64": "double"}


class SchemaError(Exception):
    """The schema text is not in the subset of the IDL this parser reads."""


@dataclass
class Enum:
    name: str
    underlying: str                     # canonical scalar type
    values: List[Tuple[str, int]]       # in file order


@dataclass
class Union:
    name: str
    members: List[Tuple[str, int]]      # (table name, value), in file order


@dataclass
class FieldType:
    """A field's type: `base` is a scalar name, "string", or a user type name; `vector` for [T]."""
    base: str
    vector: bool = False

    def __str__(self) -> str:
        return f"[{self.base}]" if self.vector else self.base


@dataclass
class Field:
    name: str
    type: FieldType
    id: int
    default: Optional[str] = None       # the literal after `=`, if any
    deprecated: bool = False
    attributes: Dict[str, Optional[str]] = field(default_factory=dict)
    line: int = 0


@dataclass
class Table:
    name: str
    fields: List[Field]


@dataclass
class Schema:
    namespace: str = ""
    file_identifier: Optional[str] = None
    file_extension: Optional[str] = None
    root_type: Optional[str] = None
    enums: Dict[str, Enum] = field(default_factory=dict)
    unions: Dict[str, Union] = field(default_factory=dict)
    tables: Dict[str, Table] = field(default_factory=dict)


_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*)
  | (?P<string>"[^"\n]*")
  | (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<punct>[{}:;()\[\],=])
""", re.VERBOSE)


def tokenize(text: str) -> List[Tuple[str, str, int]]:
    """(kind, text, line) of every token, comments and blanks dropped."""
    tokens, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise SchemaError(f"line {line}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        if kind not in ("space", "comment"):
            tokens.append((kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.tokens = tokenize(text)
        self.i = 0

    def peek(self) -> Tuple[str, str, int]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("eof", "", -1)

    def take(self, kind: Optional[str] = None, text: Optional[str] = None) -> Tuple[str, str, int]:
        tok = self.peek()
        if tok[0] == "eof" or (kind and tok[0] != kind) or (text and tok[1] != text):
            want = text or kind or "a token"
            raise SchemaError(f"line {tok[2]}: expected {want}, found {tok[1] or 'the end'!r}")
        self.i += 1
        return tok

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text and self.peek()[0] in ("punct", "ident"):
            self.i += 1
            return True
        return False

    def integer(self) -> int:
        kind, text, line = self.take("number")
        try:
            return int(text, 10)
        except ValueError:
            raise SchemaError(f"line {line}: {text} is not an integer") from None

    def parse(self) -> Schema:
        s = Schema()
        declared = set()
        while self.peek()[0] != "eof":
            kind, word, line = self.take("ident")
            if word == "namespace":
                s.namespace = self.take("ident")[1]
                self.take(text=";")
            elif word in ("file_identifier", "file_extension"):
                value = self.take("string")[1][1:-1]
                setattr(s, word, value)
                self.take(text=";")
            elif word == "root_type":
                s.root_type = self.take("ident")[1]
                self.take(text=";")
            elif word == "enum":
                e = self.enum()
                self.declare(declared, e.name)
                s.enums[e.name] = e
            elif word == "union":
                u = self.union()
                self.declare(declared, u.name)
                s.unions[u.name] = u
            elif word == "table":
                t = self.table()
                self.declare(declared, t.name)
                s.tables[t.name] = t
            else:
                raise SchemaError(f"line {line}: `{word}` is outside the subset this checker "
                                  "reads (namespace, file_identifier, file_extension, root_type, "
                                  "enum, union, table)")
        return s

    def declare(self, declared: set, name: str) -> None:
        if name in declared:
            raise SchemaError(f"line {self.tokens[self.i - 1][2]}: declared twice: {name}")
        declared.add(name)

    def enum(self) -> Enum:
        name = self.take("ident")[1]
        self.take(text=":")
        kind, underlying, line = self.take("ident")
        if underlying not in SCALAR_WIDTHS or underlying in ("bool", "float", "double",
                                                             "float32", "float64"):
            raise SchemaError(f"line {line}: enum {name}: {underlying} is not an integer type")
        self.take(text="{")
        values, next_value = [], 0
        while not self.accept("}"):
            value_name = self.take("ident")[1]
            if self.accept("="):
                next_value = self.integer()
            values.append((value_name, next_value))
            next_value += 1
            if not self.accept(","):
                self.take(text="}")
                break
        return Enum(name, SCALAR_ALIASES.get(underlying, underlying), values)

    def union(self) -> Union:
        name = self.take("ident")[1]
        self.take(text="{")
        members, next_value = [], 1  # NONE = 0 is implicit
        while not self.accept("}"):
            member = self.take("ident")[1]
            if self.accept("="):
                next_value = self.integer()
            members.append((member, next_value))
            next_value += 1
            if not self.accept(","):
                self.take(text="}")
                break
        return Union(name, members)

    def table(self) -> Table:
        name = self.take("ident")[1]
        self.take(text="{")
        fields = []
        while not self.accept("}"):
            kind, field_name, line = self.take("ident")
            self.take(text=":")
            if self.accept("["):
                ftype = FieldType(self.take("ident")[1], True)
                self.take(text="]")
            else:
                ftype = FieldType(self.take("ident")[1])
            default = None
            if self.accept("="):
                default = self.take()[1]
            attributes: Dict[str, Optional[str]] = {}
            if self.accept("("):
                while True:
                    key = self.take("ident")[1]
                    value = None
                    if self.accept(":"):
                        value = self.take()[1]
                    attributes[key] = value
                    if not self.accept(","):
                        break
                self.take(text=")")
            self.take(text=";")
            if "id" not in attributes:
                raise SchemaError(f"line {line}: {name}.{field_name} has no `id:` attribute (the "
                                  "subset gives every field its TFLite id explicitly)")
            try:
                field_id = int(attributes["id"] or "", 10)
            except ValueError:
                raise SchemaError(f"line {line}: {name}.{field_name}: bad id "
                                  f"{attributes['id']!r}") from None
            fields.append(Field(field_name, ftype, field_id, default,
                                "deprecated" in attributes, attributes, line))
        return Table(name, fields)


def parse_schema(text: str) -> Schema:
    """The schema of `text`; SchemaError for anything outside the subset."""
    return _Parser(text).parse()
