// MLGraphBuilder (builder.h).
#include "builder.h"

#include <string>
#include <utility>
#include <vector>

#include "addon_data.h"
#include "context.h"
#include "cppnn/async_checks.h"
#include "cppnn/dynamic_call.h"
#include "cppnn/errors.h"
#include "cppnn/graph.h"
#include "errors.h"
#include "objects.h"
#include "op_signatures.h"
#include "values.h"

namespace cppnn::node {
namespace {

// The positional arguments and the options of one operation call: the op's parameters in the
// spec's order, then the options dictionary; extra arguments are ignored, as in WebIDL.
std::vector<DynValue> op_arguments(const Napi::CallbackInfo& info,
                                   const bindings::OpSignature& op) {
  const size_t n = op.params.size();
  std::vector<DynValue> values(n + 1);
  for (size_t i = 0; i <= n && i < info.Length(); ++i)
    values[i] = to_dyn(info[i], op.name + ": " + (i < n ? op.params[i].name : "options"));
  return values;
}

}  // namespace

Napi::Function Builder::define(Napi::Env env) {
  std::vector<PropertyDescriptor> members = {
      InstanceMethod<&Builder::input>("input"),
      InstanceMethod<&Builder::constant>("constant"),
      InstanceMethod<&Builder::build>("build"),
  };
  for (const bindings::OpSignature& op : bindings::op_signatures())
    members.push_back(InstanceMethod(op.name.c_str(), &Builder::operation, napi_default_method,
                                     const_cast<bindings::OpSignature*>(&op)));
  return DefineClass(env, "MLGraphBuilder", members);
}

Builder::Builder(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Builder>(info) {
  Napi::Env env = info.Env();
  Context* c = unwrap_context(info[0]);
  if (!c) throw Napi::TypeError::New(env, "MLGraphBuilder: the argument is not an MLContext");
  guarded(env, [&] { builder_.emplace(c->context()); });
  timeline_ = c->timeline();
}

void Builder::check_not_building(const char* method) const {
  if (building_) throw InvalidStateError(std::string(method) + ": the builder can no longer build");
}

Napi::Value Builder::input(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    check_not_building("input");
    if (info.Length() < 2) throw TypeError("input: 2 arguments required");
    const std::string name = info[0].ToString().Utf8Value();
    const MLOperandDescriptor d = to_operand_descriptor(info[1], "input: descriptor");
    return Operand::make(env, builder_->input(name, d));
  });
}

// constant(descriptor, buffer) | constant(dataType, value) | constant(tensor), chosen as WebIDL's
// overload resolution does: by the argument count, then by whether the first is an object.
Napi::Value Builder::constant(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    check_not_building("constant");
    if (info.Length() == 0) throw TypeError("constant: 1 or 2 arguments required");
    if (info.Length() == 1) {
      Tensor* t = unwrap_tensor(info[0]);
      if (!t) throw TypeError("constant: the argument is not an MLTensor");
      if (t->destroyed()) throw TypeError("constant: the tensor is destroyed");
      return Operand::make(env, builder_->constant(t->tensor()));
    }
    Napi::Value first = info[0];
    if (first.IsObject() || first.IsUndefined() || first.IsNull()) {
      const MLOperandDescriptor d = to_operand_descriptor(first, "constant: descriptor");
      const std::span<std::byte> bytes =
          typed_buffer_bytes(info[1], d.dataType, "constant: buffer");
      return Operand::make(env, builder_->constant(d, bytes));  // copies the bytes
    }
    const std::string type = first.ToString().Utf8Value();
    const auto data_type = parse_data_type(type);
    if (!data_type) throw TypeError("constant: unknown data type '" + type + "'");
    return Operand::make(env,
                         builder_->constant(*data_type, to_number(info[1], "constant: value")));
  });
}

Napi::Value Builder::operation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto& op = *static_cast<const bindings::OpSignature*>(info.Data());
  return guarded(env, [&]() -> Napi::Value {
    check_not_building(op.name.c_str());
    const std::vector<DynValue> args = op_arguments(info, op);
    std::vector<MLOperand> outputs = call_builder_method(*builder_, op.name, args);
    if (!op.returns_list) return Operand::make(env, std::move(outputs.at(0)));
    Napi::Array list = Napi::Array::New(env, outputs.size());
    for (uint32_t i = 0; i < outputs.size(); ++i) list.Set(i, Operand::make(env, outputs[i]));
    return list;
  });
}

Napi::Value Builder::build(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    check_not_building("build");
    const MLNamedOperands outputs =
        to_record<MLOperand>(info[0], "build: outputs", [](Napi::Value v, const std::string& name) {
          const MLOperand* o = unwrap_operand(v);
          if (!o) throw TypeError("build: output \"" + name + "\" is not an MLOperand");
          return *o;
        });
    check_build(*builder_, outputs);  // the synchronous steps of §3.8
    building_ = true;
    auto d = Napi::Promise::Deferred::New(env);
    auto built = std::make_shared<std::optional<MLGraph>>();
    auto self = std::make_shared<Napi::ObjectReference>(Napi::Persistent(Value()));
    MLGraphBuilder builder = *builder_;
    timeline_->enqueue(
        env, [builder, outputs, built]() mutable { *built = builder.build(outputs); },
        [d, built, self, timeline = timeline_](Napi::Env e, std::exception_ptr error) {
          if (error) {
            d.Reject(js_error(e, error));
            return;
          }
          (void)self;  // kept the builder alive while compiling
          d.Resolve(Graph::make(e, **built, timeline));
        });
    return d.Promise();
  });
}

}  // namespace cppnn::node
