// MLContext and createContext (context.h).
#include "context.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "addon_data.h"
#include "cppnn/async_checks.h"
#include "cppnn/enums.h"
#include "cppnn/errors.h"
#include "cppnn/graph.h"
#include "errors.h"
#include "objects.h"
#include "values.h"

namespace cppnn::node {
namespace {

using Bytes = std::vector<std::byte>;

// The MLTensor argument of `method`, not destroyed (TypeError otherwise, as the spec's checks).
Tensor& tensor_argument(Napi::Value value, const char* method) {
  Tensor* t = unwrap_tensor(value);
  if (!t) throw TypeError(std::string(method) + ": the tensor argument is not an MLTensor");
  if (t->destroyed()) throw TypeError(std::string(method) + ": the tensor is destroyed");
  return *t;
}

// MLContextOptions from a JavaScript dictionary (undefined/null: the defaults).
MLContextOptions context_options(Napi::Value value) {
  MLContextOptions out;
  if (value.IsUndefined() || value.IsNull()) return out;
  if (!value.IsObject()) throw TypeError("createContext: options must be an object");
  Napi::Object o = value.As<Napi::Object>();
  if (Napi::Value p = o.Get("powerPreference"); !p.IsUndefined()) {
    const std::string s = p.ToString().Utf8Value();
    const auto pref = enum_from_string<MLPowerPreference>(s);
    if (!pref) throw TypeError("createContext: unknown powerPreference '" + s + "'");
    out.powerPreference = *pref;
  }
  if (Napi::Value a = o.Get("accelerated"); !a.IsUndefined())
    out.accelerated = a.ToBoolean().Value();
  if (Napi::Value b = o.Get("backend"); !b.IsUndefined()) out.backend = b.ToString().Utf8Value();
  if (Napi::Value n = o.Get("numThreads"); !n.IsUndefined()) {
    const double d = n.ToNumber().DoubleValue();  // [EnforceRange] unsigned long
    if (!std::isfinite(d) || std::trunc(d) < 0 || std::trunc(d) > 4294967295.0)
      throw TypeError("createContext: numThreads must be an integer in [0, 2^32)");
    out.numThreads = static_cast<uint32_t>(std::trunc(d));
  }
  return out;
}

}  // namespace

Napi::Function Context::define(Napi::Env env) {
  return DefineClass(env, "MLContext",
                     {InstanceAccessor<&Context::accelerated>("accelerated", napi_enumerable),
                      InstanceAccessor<&Context::lost>("lost", napi_enumerable),
                      InstanceAccessor<&Context::backend>("backend", napi_enumerable),
                      InstanceMethod<&Context::op_support_limits>("opSupportLimits"),
                      InstanceMethod<&Context::create_tensor>("createTensor"),
                      InstanceMethod<&Context::create_constant_tensor>("createConstantTensor"),
                      InstanceMethod<&Context::write_tensor>("writeTensor"),
                      InstanceMethod<&Context::read_tensor>("readTensor"),
                      InstanceMethod<&Context::dispatch>("dispatch"),
                      InstanceMethod<&Context::destroy>("destroy")});
}

Napi::Object Context::make(Napi::Env env, MLContext context) {
  return construct(env, addon_data(env).context, std::move(context));
}

Context::Context(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Context>(info), context_([&] {
        if (!has_construct_key(info) || info.Length() < 2 || !info[1].IsExternal())
          throw Napi::TypeError::New(info.Env(), "Illegal constructor");
        return *info[1].As<Napi::External<MLContext>>().Data();
      }()) {
  lost_deferred_.emplace(Napi::Promise::Deferred::New(info.Env()));
  lost_promise_ = Napi::Persistent(lost_deferred_->Promise().As<Napi::Object>());
}

Context* unwrap_context(Napi::Value value) {
  if (!value.IsObject() ||
      !value.As<Napi::Object>().InstanceOf(addon_data(value.Env()).context.Value()))
    return nullptr;
  return Context::Unwrap(value.As<Napi::Object>());
}

Napi::Value Context::accelerated(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), context_.accelerated());
}

Napi::Value Context::lost(const Napi::CallbackInfo& info) {
  settle_lost(info.Env());
  return lost_promise_.Value();
}

Napi::Value Context::backend(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), context_.backend());
}

void Context::settle_lost(Napi::Env env) {
  if (!lost_deferred_ || !context_.is_lost()) return;
  Napi::Object lost_info = Napi::Object::New(env);
  lost_info.Set("message", context_.lost_info() ? context_.lost_info()->message : "");
  lost_deferred_->Resolve(lost_info);
  lost_deferred_.reset();
}

Napi::Value Context::op_support_limits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string json = guarded(env, [&] { return context_.opSupportLimits().to_json(); });
  return addon_data(env).json_parse.Call({Napi::String::New(env, json)});
}

Napi::Value Context::tensor_promise(Napi::Env env, std::function<MLTensor()> make) {
  auto deferred = Napi::Promise::Deferred::New(env);
  auto made = std::make_shared<MLTensor>();
  timeline_->enqueue(
      env, [make = std::move(make), made] { *made = make(); },
      [deferred, made, timeline = timeline_](Napi::Env e, std::exception_ptr error) {
        if (error) return deferred.Reject(js_error(e, error));
        deferred.Resolve(Tensor::make(e, *made, timeline));
      });
  return deferred.Promise();
}

Napi::Value Context::create_tensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    const MLTensorDescriptor d = to_tensor_descriptor(info[0], "createTensor: descriptor");
    MLContext c = context_;
    return tensor_promise(env, [c, d]() mutable { return c.createTensor(d); });
  });
}

Napi::Value Context::create_constant_tensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    const MLOperandDescriptor d =
        to_operand_descriptor(info[0], "createConstantTensor: descriptor");
    const std::span<std::byte> source =
        typed_buffer_bytes(info[1], d.dataType, "createConstantTensor: inputData");
    auto bytes = std::make_shared<Bytes>(source.begin(), source.end());  // copied at call time
    MLContext c = context_;
    return tensor_promise(env,
                          [c, d, bytes]() mutable { return c.createConstantTensor(d, *bytes); });
  });
}

Napi::Value Context::write_tensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  guarded(env, [&] {
    Tensor& t = tensor_argument(info[0], "writeTensor");
    const std::span<std::byte> source =
        typed_buffer_bytes(info[1], t.tensor().dataType(), "writeTensor: inputData");
    check_write_tensor(context_, t.tensor(), source.size());
    auto bytes = std::make_shared<Bytes>(source.begin(), source.end());  // copied at call time
    MLContext c = context_;
    MLTensor tensor = t.tensor();
    // No completion signal (§4): a failure on the timeline (a loss in between) is dropped.
    timeline_->enqueue(
        env, [c, tensor, bytes]() mutable { c.writeTensor(tensor, *bytes); }, nullptr);
  });
  return env.Undefined();
}

Napi::Value Context::read_tensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    Tensor& t = tensor_argument(info[0], "readTensor");
    const bool into = info.Length() > 1 && !info[1].IsUndefined();
    std::optional<size_t> length;
    if (into)
      length = typed_buffer_bytes(info[1], t.tensor().dataType(), "readTensor: outputData").size();
    check_read_tensor(context_, t.tensor(), length);
    auto read = std::make_shared<Tensor::PendingRead>(
        Tensor::PendingRead{Napi::Promise::Deferred::New(env), false});
    t.add_pending_read(read);
    std::shared_ptr<Napi::ObjectReference> target;
    if (into)
      target =
          std::make_shared<Napi::ObjectReference>(Napi::Persistent(info[1].As<Napi::Object>()));
    auto bytes = std::make_shared<Bytes>();
    MLContext c = context_;
    MLTensor tensor = t.tensor();
    timeline_->enqueue(
        env, [c, tensor, bytes]() mutable { *bytes = c.readTensor(tensor); },
        [read, target, bytes](Napi::Env e, std::exception_ptr error) {
          if (read->settled) return;  // rejected by the tensor's destroy()
          read->settled = true;
          if (error) return read->deferred.Reject(js_error(e, error));
          if (!target) {
            auto* owned = new Bytes(std::move(*bytes));
            read->deferred.Resolve(Napi::ArrayBuffer::New(
                e, owned->data(), owned->size(), [](Napi::Env, void*, Bytes* b) { delete b; },
                owned));
            return;
          }
          Napi::Value view = target->Value();
          if (is_detached(view))
            return read->deferred.Reject(
                Napi::TypeError::New(e, "readTensor: the output buffer was detached").Value());
          const std::span<std::byte> out = buffer_bytes(view, "readTensor: outputData");
          if (out.size() != bytes->size())
            return read->deferred.Reject(
                Napi::TypeError::New(e, "readTensor: the output buffer changed size").Value());
          std::memcpy(out.data(), bytes->data(), bytes->size());
          read->deferred.Resolve(e.Undefined());
        });
    return read->deferred.Promise();
  });
}

Napi::Value Context::dispatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  guarded(env, [&] {
    Graph* g = unwrap_graph(info[0]);
    if (!g) throw TypeError("dispatch: the graph argument is not an MLGraph");
    if (g->destroyed()) throw InvalidStateError("dispatch: the graph is destroyed");
    auto tensors = [](const char* side) {
      return [side](Napi::Value v, const std::string& name) {
        Tensor* t = unwrap_tensor(v);
        if (!t)
          throw TypeError("dispatch: " + std::string(side) + " \"" + name +
                          "\" is not bound to an MLTensor");
        if (t->destroyed())
          throw TypeError("dispatch: the tensor bound to \"" + name + "\" is destroyed");
        return t->tensor();
      };
    };
    MLNamedTensors inputs = to_record<MLTensor>(info[1], "dispatch: inputs", tensors("inputs"));
    MLNamedTensors outputs = to_record<MLTensor>(info[2], "dispatch: outputs", tensors("outputs"));
    check_dispatch(context_, g->graph(), inputs, outputs);
    MLContext c = context_;
    MLGraph graph = g->graph();
    // No completion signal (§4): a failure while running is dropped, as in the spec.
    timeline_->enqueue(
        env,
        [c, graph, inputs = std::move(inputs), outputs = std::move(outputs)]() mutable {
          c.dispatch(graph, inputs, outputs);
        },
        nullptr);
  });
  return env.Undefined();
}

Napi::Value Context::destroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // The C++ destroy waits for the step running now (it takes the timeline); later steps fail
  // with the context lost.
  guarded(env, [&] { context_.destroy(); });
  settle_lost(env);
  return env.Undefined();
}

Napi::Value create_context(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    const MLContextOptions options = context_options(info[0]);
    auto d = Napi::Promise::Deferred::New(env);
    auto made = std::make_shared<std::optional<MLContext>>();
    std::make_shared<Timeline>()->enqueue(
        env, [options, made] { *made = MLContext::create(options); },
        [d, made](Napi::Env e, std::exception_ptr error) {
          if (error) return d.Reject(js_error(e, error));
          d.Resolve(Context::make(e, **made));
        });
    return d.Promise();
  });
}

}  // namespace cppnn::node
