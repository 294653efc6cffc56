#include "src/backends/reference/strides.h"

namespace cppnn::ref {

size_t element_count_of(const Dims& shape) {
  size_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

Strides contiguous_strides(const Dims& shape) {
  Strides s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

Strides broadcast_strides(const Dims& in, const Dims& out) {
  Strides c = contiguous_strides(in);
  Strides s(out.size(), 0);
  const size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) s[off + i] = in[i] == 1 && out[off + i] != 1 ? 0 : c[i];
  return s;
}

}  // namespace cppnn::ref
