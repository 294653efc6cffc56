// A small builder of ONNX models for the importer tests: inputs, initializers, nodes and outputs,
// serialized to bytes for import_onnx_bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace cppnn::testing {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int64_t opset = 17) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }
  // A graph input; a dimension < 0 is symbolic, named by `dim_names` (same position).
  OnnxModelBuilder& input(const std::string& name, int32_t type, const std::vector<int64_t>& dims,
                          const std::vector<std::string>& dim_names = {}) {
    auto* in = model_.mutable_graph()->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* shape = tt->mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      auto* d = shape->add_dim();
      if (dims[i] >= 0)
        d->set_dim_value(dims[i]);
      else if (i < dim_names.size())
        d->set_dim_param(dim_names[i]);
    }
    return *this;
  }
  OnnxModelBuilder& output(const std::string& name) {
    model_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }
  OnnxModelBuilder& initializer_i64(const std::string& name, const std::vector<int64_t>& values,
                                    const std::vector<int64_t>& dims) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  OnnxModelBuilder& initializer_f32(const std::string& name, const std::vector<float>& values,
                                    const std::vector<int64_t>& dims) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    std::string raw(values.size() * 4, '\0');
    if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
    t->set_raw_data(raw);
    return *this;
  }
  // A node; returns it so attributes can be added.
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& domain = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_domain(domain);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(v);
  }
  static void attr_ints(onnx::NodeProto& n, const std::string& name,
                        const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  std::string bytes() const { return model_.SerializeAsString(); }
  onnx::ModelProto& model() { return model_; }

 private:
  onnx::ModelProto model_;
};

}  // namespace cppnn::testing
