// Python -> cppnn value conversion (convert.h).
#include "convert.h"

#include <Python.h>
#include <nanobind/stl/string.h>

#include <cctype>
#include <cstdint>
#include <limits>

#include "cppnn/errors.h"
#include "cppnn/operand.h"

namespace nb = nanobind;

namespace cppnn::py {
namespace {

// A Python int as an exact MLNumber: int64 when it fits, else uint64; beyond both it saturates.
MLNumber int_number(nb::handle value) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return MLNumber(v);
  }
  if (overflow < 0) return MLNumber(std::numeric_limits<long long>::min());
  const unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
  if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return MLNumber(std::numeric_limits<unsigned long long>::max());
  }
  return MLNumber(u);
}

// The member `key` of a descriptor dict, or `alias`; an invalid handle when absent.
nb::handle member(nb::dict d, const char* key, const char* alias) {
  if (d.contains(key)) return d[key];
  if (alias && d.contains(alias)) return d[alias];
  return {};
}

// JavaScript-like truthiness of an optional member (absent: false).
bool truthy(nb::handle value) {
  if (!value.is_valid()) return false;
  const int t = PyObject_IsTrue(value.ptr());
  if (t < 0) throw nb::python_error();
  return t == 1;
}

nb::dict as_dict(nb::handle descriptor, std::string_view what) {
  if (!nb::isinstance<nb::dict>(descriptor))
    throw TypeError(std::string(what) + ": a descriptor must be a dict");
  return nb::borrow<nb::dict>(descriptor);
}

}  // namespace

DynValue to_dyn(nb::handle value, std::string_view what) {
  if (value.is_none()) return DynValue();
  if (PyBool_Check(value.ptr())) return DynValue(value.ptr() == Py_True);
  if (PyLong_Check(value.ptr())) return DynValue(int_number(value));
  if (PyFloat_Check(value.ptr())) return DynValue(MLNumber(PyFloat_AsDouble(value.ptr())));
  if (PyUnicode_Check(value.ptr())) return DynValue(nb::cast<std::string>(value));
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    DynValue::Array items;
    for (nb::handle item : value) items.push_back(to_dyn(item, what));
    return DynValue(std::move(items));
  }
  if (PyDict_Check(value.ptr())) {
    DynValue::Object members;
    for (auto [k, v] : nb::borrow<nb::dict>(value)) {
      if (!PyUnicode_Check(k.ptr())) throw TypeError(std::string(what) + ": keys must be strings");
      members.emplace_back(nb::cast<std::string>(k), to_dyn(v, what));
    }
    return DynValue(std::move(members));
  }
  if (nb::isinstance<MLOperand>(value)) return DynValue(nb::cast<MLOperand>(value));
  if (nb::hasattr(value, "tolist")) return to_dyn(value.attr("tolist")(), what);
  if (PyIndex_Check(value.ptr())) return to_dyn(nb::steal(PyNumber_Index(value.ptr())), what);
  throw TypeError(std::string(what) + ": unsupported value of type " +
                  std::string(Py_TYPE(value.ptr())->tp_name));
}

MLNumber to_number(nb::handle value, std::string_view what) {
  DynValue v = to_dyn(value, what);
  if (const MLNumber* n = v.get_if<MLNumber>()) return *n;
  if (const bool* b = v.get_if<bool>()) return MLNumber(*b ? 1 : 0);
  throw TypeError(std::string(what) + ": expected a number, got " + std::string(v.type_name()));
}

std::string snake_to_camel(std::string_view name) {
  std::string out;
  bool upper = false;
  for (char c : name) {
    if (c == '_' && !out.empty()) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string data_type_text(nb::handle value) {
  if (PyUnicode_Check(value.ptr())) return nb::cast<std::string>(value);
  try {
    return nb::cast<std::string>(nb::module_::import_("numpy").attr("dtype")(value).attr("name"));
  } catch (const nb::python_error&) {
    throw TypeError("not a data type: " + nb::cast<std::string>(nb::repr(value)));
  }
}

MLOperandDescriptor operand_descriptor(nb::handle descriptor, std::string_view what) {
  nb::dict d = as_dict(descriptor, what);
  DynValue::Object members;
  if (nb::handle t = member(d, "dataType", "data_type"); t.is_valid() && !t.is_none())
    members.emplace_back("dataType", DynValue(data_type_text(t)));
  if (nb::handle s = member(d, "shape", nullptr); s.is_valid())
    members.emplace_back("shape", to_dyn(s, what));
  return descriptor_from_dyn(DynValue(std::move(members)), what);
}

MLTensorDescriptor tensor_descriptor(nb::handle descriptor, std::string_view what) {
  MLTensorDescriptor out =
      MLTensorDescriptor::of(operand_descriptor(descriptor, what), false, false);
  nb::dict d = as_dict(descriptor, what);
  out.readable = truthy(member(d, "readable", nullptr));
  out.writable = truthy(member(d, "writable", nullptr));
  return out;
}

}  // namespace cppnn::py
