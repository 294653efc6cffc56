"""A numpy evaluator of MIL programs (CoreML ML Program, opset CoreML7): registry.OPS holds one
function per MIL op type; every module of this package registers its ops when imported."""

import importlib
import pkgutil

from .registry import OPS, Unspecified, mil_op  # noqa: F401

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "registry" and not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")
