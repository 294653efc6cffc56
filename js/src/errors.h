// cppnn's exceptions as JavaScript errors (webnn-spec.md §3.7, §4): TypeError as a JS TypeError,
// every other spec error as a DOMException with the spec's name and cppnn's message.
#pragma once

#include <napi.h>

#include <exception>
#include <string>
#include <utility>

namespace cppnn::node {

// The JavaScript error for a caught exception (cppnn::Error by its kind, bad_alloc as an
// UnknownError, an already-JavaScript Napi::Error as itself, anything else as an UnknownError).
Napi::Value js_error(Napi::Env env, std::exception_ptr error);
// A DOMException named `name` with `message`.
Napi::Value dom_exception(Napi::Env env, const std::string& name, const std::string& message);

// Runs `f`, turning a C++ exception into a thrown JavaScript error: the body of every method
// that throws synchronously.
template <class F>
auto guarded(Napi::Env env, F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw Napi::Error(env, js_error(env, std::current_exception()));
  }
}

// Runs `f` (which returns a Promise), turning a C++ exception into a rejected Promise: the body
// of every promise-returning method (WebIDL rejects instead of throwing).
template <class F>
Napi::Value promised(Napi::Env env, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (...) {
    Napi::Promise::Deferred d = Napi::Promise::Deferred::New(env);
    try {
      std::rethrow_exception(std::current_exception());
    } catch (const Napi::Error& e) {
      d.Reject(e.Value());
    } catch (...) {
      d.Reject(js_error(env, std::current_exception()));
    }
    return d.Promise();
  }
}

}  // namespace cppnn::node
