// MLOperand, MLGraphBuilder (input, the four constant() forms, build) and MLGraph.
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "arrays.h"
#include "bindings.h"
#include "convert.h"
#include "cppnn/errors.h"
#include "cppnn/graph.h"
#include "cppnn/graph_builder.h"

namespace nb = nanobind;

namespace cppnn::py {
namespace {

// {"dataType": "float32", "shape": [2, 3]}.
nb::dict descriptor_dict(const MLOperandDescriptor& d) {
  nb::dict out;
  out["dataType"] = std::string(data_type_name(d.dataType));
  out["shape"] = nb::cast(d.shape);
  return out;
}

// name -> descriptor dict, for MLGraph.inputs/outputs.
nb::dict descriptor_map(const std::map<std::string, MLOperandDescriptor>& m) {
  nb::dict out;
  for (const auto& [name, d] : m) out[name.c_str()] = descriptor_dict(d);
  return out;
}

// builder.constant(descriptor, data): in place for C-contiguous arrays of the right dtype (the
// array is kept alive; later writes to it show), copied otherwise.
MLOperand constant_from_data(MLGraphBuilder& b, nb::handle descriptor, nb::handle data) {
  const MLOperandDescriptor d = operand_descriptor(descriptor, "constant: descriptor");
  HostBytes host = host_bytes(data, d.dataType, "constant: data");
  if (host.raw) return b.constant(d, host.bytes);
  return b.constant_view(d, host.owner, host.bytes);
}

// builder.constant(array): the descriptor from the array's dtype and shape.
MLOperand constant_from_array(MLGraphBuilder& b, nb::handle array) {
  if (!nb::hasattr(array, "dtype") || !nb::hasattr(array, "shape"))
    throw TypeError(
        "constant: expected (descriptor, data), (dataType, value), an MLTensor or an array");
  const std::string dtype = data_type_text(array.attr("dtype"));
  nb::dict descriptor;
  descriptor["dataType"] = dtype;
  descriptor["shape"] = array.attr("shape");
  return constant_from_data(b, descriptor, array);
}

// builder.constant(*args): the four forms of the spec's constant(), chosen by argument types.
MLOperand constant(MLGraphBuilder& b, nb::args args) {
  if (args.size() == 1) {
    if (nb::isinstance<MLTensor>(args[0])) return b.constant(nb::cast<MLTensor>(args[0]));
    return constant_from_array(b, args[0]);
  }
  if (args.size() == 2 && nb::isinstance<nb::str>(args[0])) {
    const std::string type = nb::cast<std::string>(args[0]);
    const auto t = parse_data_type(type);
    if (!t) throw TypeError("constant: unknown data type '" + type + "'");
    return b.constant(*t, to_number(args[1], "constant: value"));
  }
  if (args.size() == 2) return constant_from_data(b, args[0], args[1]);
  throw TypeError("constant: takes 1 or 2 arguments, got " + std::to_string(args.size()));
}

const char kConstantDoc[] =
    "constant(descriptor, data) | constant(array) | constant(dataType, value) | "
    "constant(tensor)\n\n"
    "descriptor: {\"dataType\": ..., \"shape\": [...]}; data: a numpy array of that dtype (used "
    "in place, without a copy, when C-contiguous: the array is kept alive), a bytes-like object "
    "(copied) or a sequence. array: a numpy array (descriptor from its dtype and shape). "
    "dataType, value: a scalar cast by the spec's cast algorithm. tensor: an MLTensor made by "
    "create_constant_tensor(). int4/uint4 data is uint8, two elements per byte, low nibble first.";

// builder.build(outputs) with the GIL released while the backend compiles.
MLGraph build(MLGraphBuilder& b, nb::dict outputs) {
  MLNamedOperands named;
  for (auto [k, v] : outputs) {
    if (!nb::isinstance<MLOperand>(v))
      throw TypeError("build: outputs must map names to MLOperands");
    named[nb::cast<std::string>(k)] = nb::cast<MLOperand>(v);
  }
  nb::gil_scoped_release release;
  return b.build(named);
}

}  // namespace

void bind_builder(nb::module_& m) {
  nb::class_<MLOperand>(m, "MLOperand", "An operand recorded by an MLGraphBuilder.")
      .def_prop_ro(
          "data_type", [](const MLOperand& o) { return std::string(data_type_name(o.dataType())); },
          "The spec data type string, e.g. \"float32\".")
      .def_prop_ro("dataType",
                   [](const MLOperand& o) { return std::string(data_type_name(o.dataType())); })
      .def_prop_ro("shape", &MLOperand::shape, "The dimensions (a list; [] for a scalar).")
      .def("__repr__",
           [](const MLOperand& o) { return "MLOperand(" + to_string(o.descriptor()) + ")"; });

  nb::class_<MLGraph>(m, "MLGraph", "A built graph.")
      .def_prop_ro(
          "inputs", [](const MLGraph& g) { return descriptor_map(g.inputs()); },
          "Input name -> {\"dataType\": str, \"shape\": list}.")
      .def_prop_ro(
          "outputs", [](const MLGraph& g) { return descriptor_map(g.outputs()); },
          "Output name -> {\"dataType\": str, \"shape\": list}.")
      .def_prop_ro("destroyed", &MLGraph::is_destroyed)
      .def_prop_ro("context", &MLGraph::context)
      .def("destroy", &MLGraph::destroy, "MLGraph.destroy(): idempotent.");

  nb::class_<MLGraphBuilder> builder(m, "MLGraphBuilder",
                                     "Records operations on a context; build() makes an MLGraph.");
  builder.def(nb::init<const MLContext&>(), nb::arg("context"))
      .def(
          "input",
          [](MLGraphBuilder& b, const std::string& name, nb::handle descriptor) {
            return b.input(name, operand_descriptor(descriptor, "input: descriptor"));
          },
          nb::arg("name"), nb::arg("descriptor"),
          "input(name, {\"dataType\": ..., \"shape\": [...]}) -> MLOperand")
      .def("constant", &constant, kConstantDoc)
      .def("build", &build, nb::arg("outputs"),
           "build({name: MLOperand}) -> MLGraph (the GIL is released while compiling).")
      .def_prop_ro("context", &MLGraphBuilder::context);
  bind_ops(builder);
}

}  // namespace cppnn::py
