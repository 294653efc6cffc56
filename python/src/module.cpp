// The extension module cppnn._cppnn: the WebNN API of libcppnn for Python (the package
// python/cppnn re-exports it).
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "cppnn/version.h"

NB_MODULE(_cppnn, m) {
  m.doc() = "cppnn: the W3C WebNN API (C++20 implementation) for Python";
  m.attr("__version__") = cppnn::version();
  cppnn::py::bind_errors(m);
  cppnn::py::bind_context(m);
  cppnn::py::bind_builder(m);
  cppnn::py::bind_files(m);
  cppnn::py::bind_llm(m);
}
