// cppnn.Error and one subclass per spec error name (cppnn.TypeError also derives from the builtin
// TypeError), and the translator that turns every cppnn::Error into its class with cppnn's message.
#include "cppnn/errors.h"

#include <Python.h>
#include <nanobind/stl/string.h>

#include <array>
#include <string>

#include "bindings.h"

namespace nb = nanobind;

namespace cppnn::py {
namespace {

// The spec error names in ErrorKind order.
constexpr std::array<ErrorKind, 7> kKinds = {
    ErrorKind::kTypeError,         ErrorKind::kInvalidStateError, ErrorKind::kOperationError,
    ErrorKind::kNotSupportedError, ErrorKind::kUnknownError,      ErrorKind::kDataError,
    ErrorKind::kSecurityError};

// The Python class of each ErrorKind (index = the enumerator), created once at import.
std::array<PyObject*, kKinds.size()> g_classes{};
// cppnn.Error.
PyObject* g_base = nullptr;

// A new exception class `cppnn.<name>` with bases `bases` and the class attribute `name`.
PyObject* new_class(const std::string& name, PyObject* bases, const char* doc) {
  nb::dict attrs;
  attrs["name"] = name;
  PyObject* cls = PyErr_NewExceptionWithDoc(("cppnn." + name).c_str(), doc, bases, attrs.ptr());
  if (!cls) throw nb::python_error();
  return cls;
}

}  // namespace

void bind_errors(nb::module_& m) {
  g_base = new_class("Error", PyExc_Exception,
                     "Base of every cppnn error; `name` is the WebNN spec's error name.");
  m.attr("Error") = nb::borrow(g_base);
  for (ErrorKind kind : kKinds) {
    const std::string name(error_kind_name(kind));
    nb::tuple bases = kind == ErrorKind::kTypeError
                          ? nb::make_tuple(nb::handle(g_base), nb::handle(PyExc_TypeError))
                          : nb::make_tuple(nb::handle(g_base));
    PyObject* cls = new_class(name, bases.ptr(), ("The WebNN spec's " + name + ".").c_str());
    g_classes[static_cast<size_t>(kind)] = cls;
    m.attr(name.c_str()) = nb::borrow(cls);
  }
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(g_classes[static_cast<size_t>(e.kind())], e.what());
    }
  });
}

}  // namespace cppnn::py
