"""The package itself: exports, version, the `ml` namespace, py.typed and the generated type
stub (every op with its positional parameters and typed keyword options)."""

import ast
import pathlib

import cppnn

PACKAGE = pathlib.Path(cppnn.__file__).parent


def test_exports():
    for name in cppnn.__all__:
        assert hasattr(cppnn, name), name
    assert cppnn.__version__.count(".") == 2
    assert isinstance(cppnn.ml, cppnn.ML)


def test_py_typed_and_stub_ship():
    assert (PACKAGE / "py.typed").exists()
    assert (PACKAGE / "_cppnn.pyi").exists()


def test_stub_lists_every_op_with_typed_options():
    tree = ast.parse((PACKAGE / "_cppnn.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MLGraphBuilder")
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    context = cppnn.ml.create_context(backend="reference")
    ops = [k for k in context.op_support_limits()
           if k not in {"preferredInputLayout", "maxTensorByteLength", "input", "constant",
                        "output"}]
    for op in ops:
        assert op in methods, op
        assert hasattr(cppnn.MLGraphBuilder, op)
    conv = methods["conv2d"]
    kwonly = {a.arg: ast.unparse(a.annotation) for a in conv.args.kwonlyargs}
    assert kwonly["padding"] == "Sequence[int] | None"
    assert kwonly["inputLayout"] == "Literal['nchw', 'nhwc']"
    assert kwonly["bias"] == "MLOperand | None"
    assert kwonly["groups"] == "int"
    snake = {a.arg for a in methods["batch_normalization"].args.kwonlyargs}
    assert snake == {"scale", "bias", "axis", "epsilon", "label"}
    defaults = dict(zip([a.arg for a in methods["batchNormalization"].args.kwonlyargs],
                        [ast.literal_eval(d) for d in methods["batchNormalization"].args.kw_defaults]))
    assert defaults["epsilon"] == 1e-5 and defaults["axis"] == 1
    assert ast.unparse(methods["split"].returns) == "list[MLOperand]"
    # every method of the stub exists at run time
    for name in methods:
        assert hasattr(cppnn.MLGraphBuilder, name), name


def test_docstrings_name_the_options():
    doc = cppnn.MLGraphBuilder.conv2d.__doc__
    assert "conv2d(input, filter, options=None" in doc and "inputLayout" in doc
