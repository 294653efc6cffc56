// MLGraphBuilder (webnn-spec.md §1-§3): `new MLGraphBuilder(context)`, input, the three constant
// forms, the 95 operations by their spec names (through the generic op call, which converts the
// arguments as WebIDL does), and build(), whose compile runs on the context's timeline.
#pragma once

#include <napi.h>

#include <memory>
#include <optional>

#include "cppnn/graph_builder.h"
#include "timeline.h"

namespace cppnn::node {

class Builder : public Napi::ObjectWrap<Builder> {
 public:
  static Napi::Function define(Napi::Env env);
  explicit Builder(const Napi::CallbackInfo& info);

 private:
  Napi::Value input(const Napi::CallbackInfo& info);
  Napi::Value constant(const Napi::CallbackInfo& info);
  Napi::Value build(const Napi::CallbackInfo& info);
  // One of the 95 operations; info.Data() is its bindings::OpSignature.
  Napi::Value operation(const Napi::CallbackInfo& info);
  // InvalidStateError while a build() is compiling: the builder's graph is in use on the pool.
  void check_not_building(const char* method) const;

  std::optional<MLGraphBuilder> builder_;
  std::shared_ptr<Timeline> timeline_;
  bool building_ = false;
};

}  // namespace cppnn::node
