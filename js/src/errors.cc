// cppnn exceptions -> JavaScript TypeError / DOMException (errors.h).
#include "errors.h"

#include <new>

#include "addon_data.h"
#include "cppnn/errors.h"

namespace cppnn::node {

Napi::Value dom_exception(Napi::Env env, const std::string& name, const std::string& message) {
  return addon_data(env).dom_exception.New(
      {Napi::String::New(env, message), Napi::String::New(env, name)});
}

Napi::Value js_error(Napi::Env env, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Napi::Error& e) {
    return e.Value();
  } catch (const cppnn::Error& e) {
    if (e.kind() == ErrorKind::kTypeError) return Napi::TypeError::New(env, e.what()).Value();
    return dom_exception(env, std::string(e.name()), e.what());
  } catch (const std::bad_alloc&) {
    return dom_exception(env, "UnknownError", "out of memory");
  } catch (const std::exception& e) {
    return dom_exception(env, "UnknownError", e.what());
  } catch (...) {
    return dom_exception(env, "UnknownError", "unknown C++ exception");
  }
}

}  // namespace cppnn::node
