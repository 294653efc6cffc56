// MLContext and MLTensor, create_context() and available_backends(): tensors are written from
// and read into numpy arrays, and dispatch/compute release the GIL while the graph runs.
#include "cppnn/context.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <string>

#include "arrays.h"
#include "bindings.h"
#include "convert.h"
#include "cppnn/enums.h"
#include "cppnn/errors.h"
#include "cppnn/graph.h"

namespace nb = nanobind;

namespace cppnn::py {
namespace {

// The context options of `options` (spec and cppnn keys, camelCase or snake_case) overridden by
// the keyword arguments that are not None.
MLContextOptions context_options(nb::handle options, nb::handle power_preference,
                                 nb::handle accelerated, nb::handle backend,
                                 nb::handle num_threads) {
  nb::handle power = power_preference, accel = accelerated, name = backend, threads = num_threads;
  if (!options.is_none()) {
    if (!nb::isinstance<nb::dict>(options))
      throw TypeError("create_context: options must be a dict");
    for (auto [k, v] : nb::borrow<nb::dict>(options)) {
      const std::string key = snake_to_camel(nb::cast<std::string>(k));
      if (key == "powerPreference" && power.is_none()) power = v;
      if (key == "accelerated" && accel.is_none()) accel = v;
      if (key == "backend" && name.is_none()) name = v;
      if (key == "numThreads" && threads.is_none()) threads = v;
    }
  }
  MLContextOptions out;
  if (!power.is_none()) {
    const std::string s = nb::cast<std::string>(nb::str(power));
    const auto p = enum_from_string<MLPowerPreference>(s);
    if (!p) throw TypeError("create_context: unknown powerPreference '" + s + "'");
    out.powerPreference = *p;
  }
  if (!accel.is_none()) out.accelerated = PyObject_IsTrue(accel.ptr()) == 1;
  if (!name.is_none()) out.backend = nb::cast<std::string>(nb::str(name));
  if (!threads.is_none()) {
    const MLNumber n = to_number(threads, "create_context: numThreads");
    if (n.kind() == MLNumber::Kind::kDouble || n.raw_int64() < 0 || n.raw_int64() > 1 << 20)
      throw TypeError("create_context: numThreads must be an integer in [0, 2^20]");
    out.numThreads = static_cast<uint32_t>(n.raw_int64());
  }
  return out;
}

// A dict of name -> MLTensor as MLNamedTensors.
MLNamedTensors named_tensors(nb::dict d, const char* what) {
  MLNamedTensors out;
  for (auto [k, v] : d) {
    if (!nb::isinstance<MLTensor>(v))
      throw TypeError(std::string("dispatch: ") + what + " must map names to MLTensors");
    out.emplace(nb::cast<std::string>(k), nb::cast<MLTensor>(v));
  }
  return out;
}

void write_tensor(MLContext& c, const MLTensor& t, nb::handle data) {
  HostBytes host = host_bytes(data, t.dataType(), "write_tensor: data");
  nb::gil_scoped_release release;
  c.writeTensor(t, host.bytes);
}

// read_tensor(tensor, out=None): a new numpy array of the tensor's dtype and shape, or `out`.
nb::object read_tensor(MLContext& c, const MLTensor& t, nb::handle out) {
  if (!out.is_none()) {
    std::span<std::byte> bytes = writable_bytes(out, t.dataType(), byte_length(t.descriptor()));
    nb::gil_scoped_release release;
    c.readTensor(t, bytes);
    return nb::borrow(out);
  }
  std::span<std::byte> storage;
  nb::object array = new_numpy_array(t.dataType(), t.shape(), storage);
  {
    nb::gil_scoped_release release;
    c.readTensor(t, storage);
  }
  return array;
}

void dispatch(MLContext& c, const MLGraph& g, nb::dict inputs, nb::dict outputs) {
  const MLNamedTensors in = named_tensors(inputs, "inputs"),
                       out = named_tensors(outputs, "outputs");
  nb::gil_scoped_release release;
  c.dispatch(g, in, out);
}

// compute(graph, inputs): tensors for every input (written from array-likes) and output, one
// dispatch, and the outputs read back as numpy arrays.
nb::dict compute(MLContext& c, const MLGraph& g, nb::dict inputs) {
  MLNamedTensors in, out;
  for (const auto& [name, d] : g.inputs()) {
    if (!inputs.contains(name.c_str()))
      throw TypeError("compute: missing the value of input '" + name + "'");
    MLTensor t = c.createTensor(MLTensorDescriptor::of(d, false, true));
    write_tensor(c, t, inputs[name.c_str()]);
    in.emplace(name, t);
  }
  for (auto [k, v] : inputs) {
    const std::string name = nb::cast<std::string>(k);
    if (!g.inputs().contains(name))
      throw TypeError("compute: the graph has no input '" + name + "'");
  }
  for (const auto& [name, d] : g.outputs())
    out.emplace(name, c.createTensor(MLTensorDescriptor::of(d, true, false)));
  {
    nb::gil_scoped_release release;
    c.dispatch(g, in, out);
  }
  nb::dict results;
  for (const auto& [name, t] : out) results[name.c_str()] = read_tensor(c, t, nb::none());
  for (auto& [name, t] : in) t.destroy();
  for (auto& [name, t] : out) t.destroy();
  return results;
}

// The microseconds per call of `iterations` C++ dispatch calls (no Python in the loop), for
// bench/python_dispatch_bench.py.
double cpp_dispatch_us(MLContext& c, const MLGraph& g, nb::dict inputs, nb::dict outputs,
                       uint64_t iterations) {
  const MLNamedTensors in = named_tensors(inputs, "inputs"),
                       out = named_tensors(outputs, "outputs");
  nb::gil_scoped_release release;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < iterations; ++i) c.dispatch(g, in, out);
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(iterations == 0 ? 1 : iterations);
}

}  // namespace

void bind_context(nb::module_& m) {
  nb::class_<MLTensor>(m, "MLTensor", "A tensor of one context (create_tensor).")
      .def_prop_ro("data_type",
                   [](const MLTensor& t) { return std::string(data_type_name(t.dataType())); })
      .def_prop_ro("dataType",
                   [](const MLTensor& t) { return std::string(data_type_name(t.dataType())); })
      .def_prop_ro("shape", [](const MLTensor& t) { return t.shape(); })
      .def_prop_ro("readable", &MLTensor::readable)
      .def_prop_ro("writable", &MLTensor::writable)
      .def_prop_ro("constant", &MLTensor::constant)
      .def_prop_ro("destroyed", &MLTensor::is_destroyed)
      .def("destroy", &MLTensor::destroy, "MLTensor.destroy(): idempotent.")
      .def("__repr__",
           [](const MLTensor& t) { return "MLTensor(" + to_string(t.descriptor()) + ")"; });

  nb::class_<MLContext>(m, "MLContext", "A WebNN context (ml.create_context()).")
      .def_prop_ro("backend", &MLContext::backend, "The backend's name (cppnn extension).")
      .def_prop_ro("accelerated", &MLContext::accelerated)
      .def_prop_ro("lost", &MLContext::is_lost)
      .def(
          "op_support_limits",
          [](const MLContext& c) {
            return nb::module_::import_("json").attr("loads")(c.opSupportLimits().to_json());
          },
          "MLContext.opSupportLimits() as a dict.")
      .def(
          "create_tensor",
          [](MLContext& c, nb::handle d) {
            return c.createTensor(tensor_descriptor(d, "create_tensor: descriptor"));
          },
          nb::arg("descriptor"),
          "create_tensor({\"dataType\", \"shape\", \"readable\", \"writable\"}) -> MLTensor")
      .def(
          "create_constant_tensor",
          [](MLContext& c, nb::handle d, nb::handle data) {
            const MLOperandDescriptor desc =
                operand_descriptor(d, "create_constant_tensor: descriptor");
            HostBytes host = host_bytes(data, desc.dataType, "create_constant_tensor: data");
            return c.createConstantTensor(desc, host.bytes);
          },
          nb::arg("descriptor"), nb::arg("data"))
      .def("write_tensor", &write_tensor, nb::arg("tensor"), nb::arg("data"),
           "write_tensor(tensor, data): a numpy array of the tensor's dtype, or raw bytes.")
      .def("read_tensor", &read_tensor, nb::arg("tensor"), nb::arg("out") = nb::none(),
           "read_tensor(tensor, out=None) -> numpy.ndarray of the tensor's dtype and shape.")
      .def("dispatch", &dispatch, nb::arg("graph"), nb::arg("inputs"), nb::arg("outputs"),
           "dispatch(graph, {name: MLTensor}, {name: MLTensor}), the GIL released.")
      .def("compute", &compute, nb::arg("graph"), nb::arg("inputs"),
           "compute(graph, {name: array-like}) -> {name: numpy.ndarray}")
      .def("destroy", &MLContext::destroy, "MLContext.destroy(): loses the context.")
      .def("_cpp_dispatch_us", &cpp_dispatch_us, nb::arg("graph"), nb::arg("inputs"),
           nb::arg("outputs"), nb::arg("iterations"));

  m.def(
      "create_context",
      [](nb::handle options, nb::handle power_preference, nb::handle accelerated,
         nb::handle backend, nb::handle num_threads) {
        return MLContext::create(
            context_options(options, power_preference, accelerated, backend, num_threads));
      },
      nb::arg("options") = nb::none(), nb::kw_only(), nb::arg("power_preference") = nb::none(),
      nb::arg("accelerated") = nb::none(), nb::arg("backend") = nb::none(),
      nb::arg("num_threads") = nb::none(),
      "ML.createContext(options): powerPreference, accelerated, and cppnn's backend and "
      "numThreads; keywords override the dict.");
  m.def("available_backends", &available_backends, nb::arg("with_test_only") = false,
        "The backends compiled into the library, in order of preference.");
}

}  // namespace cppnn::py
