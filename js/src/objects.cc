// MLOperand, MLGraph and MLTensor wrappers (objects.h).
#include "objects.h"

#include <string>
#include <utility>

#include "addon_data.h"
#include "cppnn/enums.h"
#include "errors.h"

namespace cppnn::node {
namespace {

// A frozen array of the dimensions (FrozenArray<unsigned long>).
Napi::Value shape_array(Napi::Env env, const std::vector<uint32_t>& shape) {
  Napi::Array a = Napi::Array::New(env, shape.size());
  for (uint32_t i = 0; i < shape.size(); ++i) a.Set(i, Napi::Number::New(env, shape[i]));
  a.Freeze();
  return a;
}

// The C++ handle passed through the constructor's second argument by make().
template <class T>
T take_handle(const Napi::CallbackInfo& info) {
  if (!has_construct_key(info) || info.Length() < 2 || !info[1].IsExternal())
    throw Napi::TypeError::New(info.Env(), "Illegal constructor");
  return *info[1].As<Napi::External<T>>().Data();
}

// The wrapped object of class `ctor` behind `value`, or nullptr.
template <class W>
W* unwrap(Napi::Value value, const Napi::FunctionReference& ctor) {
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(ctor.Value())) return nullptr;
  return W::Unwrap(value.As<Napi::Object>());
}

}  // namespace

// ---- MLOperand ----------------------------------------------------------------------------------

Napi::Function Operand::define(Napi::Env env) {
  return DefineClass(env, "MLOperand",
                     {InstanceAccessor<&Operand::data_type>("dataType", napi_enumerable),
                      InstanceAccessor<&Operand::shape>("shape", napi_enumerable)});
}

Napi::Object Operand::make(Napi::Env env, MLOperand operand) {
  return construct(env, addon_data(env).operand, std::move(operand));
}

Operand::Operand(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Operand>(info), operand_(take_handle<MLOperand>(info)) {}

Napi::Value Operand::data_type(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), std::string(data_type_name(operand_.dataType())));
}

Napi::Value Operand::shape(const Napi::CallbackInfo& info) {
  return shape_array(info.Env(), operand_.shape());
}

// ---- MLGraph ------------------------------------------------------------------------------------

Napi::Function Graph::define(Napi::Env env) {
  return DefineClass(env, "MLGraph", {InstanceMethod<&Graph::destroy>("destroy")});
}

Napi::Object Graph::make(Napi::Env env, MLGraph graph, std::shared_ptr<Timeline> timeline) {
  return construct(env, addon_data(env).graph,
                   TimelineHandle<MLGraph>{std::move(graph), std::move(timeline)});
}

Graph::Graph(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Graph>(info), graph_(take_handle<TimelineHandle<MLGraph>>(info)) {}

Napi::Value Graph::destroy(const Napi::CallbackInfo& info) {
  graph_.destroy(info.Env());
  return info.Env().Undefined();
}

// ---- MLTensor -----------------------------------------------------------------------------------

Napi::Function Tensor::define(Napi::Env env) {
  return DefineClass(env, "MLTensor",
                     {InstanceAccessor<&Tensor::data_type>("dataType", napi_enumerable),
                      InstanceAccessor<&Tensor::shape>("shape", napi_enumerable),
                      InstanceAccessor<&Tensor::readable>("readable", napi_enumerable),
                      InstanceAccessor<&Tensor::writable>("writable", napi_enumerable),
                      InstanceAccessor<&Tensor::constant>("constant", napi_enumerable),
                      InstanceMethod<&Tensor::destroy>("destroy")});
}

Napi::Value Tensor::data_type(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), std::string(data_type_name(tensor_.handle.dataType())));
}
Napi::Value Tensor::shape(const Napi::CallbackInfo& info) {
  return shape_array(info.Env(), tensor_.handle.shape());
}
Napi::Value Tensor::readable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), tensor_.handle.readable());
}
Napi::Value Tensor::writable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), tensor_.handle.writable());
}
Napi::Value Tensor::constant(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), tensor_.handle.constant());
}

void Tensor::add_pending_read(std::shared_ptr<PendingRead> read) {
  std::erase_if(reads_, [](const auto& r) { return r->settled; });
  reads_.push_back(std::move(read));
}

Napi::Object Tensor::make(Napi::Env env, MLTensor tensor, std::shared_ptr<Timeline> timeline) {
  return construct(env, addon_data(env).tensor,
                   TimelineHandle<MLTensor>{std::move(tensor), std::move(timeline)});
}

Tensor::Tensor(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Tensor>(info), tensor_(take_handle<TimelineHandle<MLTensor>>(info)) {}

Napi::Value Tensor::destroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!tensor_.destroy(env)) return env.Undefined();
  for (const std::shared_ptr<PendingRead>& read : reads_) {
    if (read->settled) continue;
    read->settled = true;
    read->deferred.Reject(
        dom_exception(env, "InvalidStateError", "readTensor: the tensor was destroyed"));
  }
  reads_.clear();
  return env.Undefined();
}

// ---- unwrapping ---------------------------------------------------------------------------------

const MLOperand* unwrap_operand(Napi::Value value) {
  Operand* o = unwrap<Operand>(value, addon_data(value.Env()).operand);
  return o ? &o->operand() : nullptr;
}

Graph* unwrap_graph(Napi::Value value) {
  return unwrap<Graph>(value, addon_data(value.Env()).graph);
}

Tensor* unwrap_tensor(Napi::Value value) {
  return unwrap<Tensor>(value, addon_data(value.Env()).tensor);
}

}  // namespace cppnn::node
