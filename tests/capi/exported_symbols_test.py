#!/usr/bin/env python3
"""The shared library exports exactly the public API (cmake/cppnn.map, hidden visibility).

Usage: exported_symbols_test.py LIBCPPNN_SO INCLUDE_DIR

Checks the dynamic symbol table of libcppnn.so:
- its C symbols are exactly the functions include/cppnn/cppnn.h declares with CPPNN_C_API;
- every C++ symbol is in namespace cppnn (or its type info / vtable), names a type or function
  that a public header of include/cppnn declares, and is in no internal namespace;
- nothing else (ONNX, protobuf, std:: instantiations) leaks out.
Prints "exported_symbols: N passed, N failed, 0 skipped".
"""
import pathlib
import re
import subprocess
import sys

# Namespaces that only internal headers (src/) declare.
INTERNAL_NAMESPACES = ("detail", "formats", "passes", "reference", "ort", "minimal", "capi",
                       "onnx_import", "onnx_export", "tool")
WRAPPERS = ("typeinfo for ", "typeinfo name for ", "vtable for ")


def dynamic_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] not in ("A",):  # A: the version node itself
            names.append(parts[2].split("@")[0])
    return names


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), check=True, capture_output=True,
                         text=True).stdout
    return out.splitlines()


def declared_c_functions(header):
    text = header.read_text()
    return set(re.findall(r"CPPNN_C_API[^;(]*?\b(cppnn_\w+)\s*\(", text, re.S))


def public_identifiers(include_dir):
    words = set()
    for h in include_dir.glob("*.h"):
        words.update(re.findall(r"\b[A-Za-z_]\w*\b", h.read_text()))
    return words


def first_component(demangled):
    """The identifier right after `cppnn::` (a class, free function or operator)."""
    for w in WRAPPERS:
        if demangled.startswith(w):
            demangled = demangled[len(w):]
    if not demangled.startswith("cppnn::"):
        return None
    rest = demangled[len("cppnn::"):]
    m = re.match(r"(operator\s*\S+?(?=\()|[A-Za-z_]\w*)", rest)
    return m.group(1) if m else None


def mangled_head(mangled):
    """The first identifier after namespace cppnn in a mangled name, for the names whose demangled
    form does not start with it: function templates (their return type comes first; exported
    uninlined in the Debug build) and names c++filt gives up on (std::variant of the 95 op
    attribute types). None outside namespace cppnn."""
    m = re.match(r"_Z(?:T[IVS])?NK?5cppnn(\d+)", mangled)
    if not m:
        return None
    start = m.end()
    return mangled[start:start + int(m.group(1))]


def main():
    library, include_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    passed = failed = 0
    problems = []
    names = dynamic_symbols(library)
    c_names = {n for n in names if not n.startswith("_Z")}
    cpp_names = [n for n in names if n.startswith("_Z")]
    declared = declared_c_functions(include_dir / "cppnn.h")
    if not declared:
        problems.append("no CPPNN_C_API function found in cppnn.h")
    for n in sorted(declared - c_names):
        problems.append(f"C API function not exported: {n}")
    for n in sorted(c_names - declared):
        problems.append(f"exported C symbol not declared in cppnn.h: {n}")
    passed += len(declared & c_names)

    words = public_identifiers(include_dir)
    for mangled, demangled in zip(cpp_names, demangle(cpp_names)):
        head = first_component(demangled)
        if head is None:  # a function template (its return type first) or too long to demangle
            head = mangled_head(mangled)
        internal = any(f"cppnn::{ns}::" in demangled.split("(")[0] for ns in INTERNAL_NAMESPACES)
        if head is None:
            problems.append(f"exported symbol outside namespace cppnn: {demangled}")
        elif internal:
            problems.append(f"exported internal symbol: {demangled}")
        elif not head.startswith("operator") and head not in words:
            problems.append(f"exported symbol not declared in include/cppnn: {demangled}")
        else:
            passed += 1
    failed = len(problems)
    for p in problems[:200]:
        print("FAIL:", p)
    if len(problems) > 200:
        print(f"... and {len(problems) - 200} more")
    print(f"exported_symbols: {passed} passed, {failed} failed, 0 skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
