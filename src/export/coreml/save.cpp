// save_coreml (include/cppnn/coreml.h): convert, serialize deterministically, write the package.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "cppnn/coreml.h"
#include "cppnn/errors.h"
#include "src/export/coreml/convert.h"
#include "src/export/coreml/package.h"

namespace cppnn {

CoremlPackageInfo save_coreml(const Graph& graph, const std::filesystem::path& path) {
  coreml_export::Conversion c = coreml_export::convert_graph(graph);
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // map fields in key order: the same bytes
    if (!c.model.SerializeToCodedStream(&coded))
      throw DataError("save_coreml: cannot serialize the model for " + path.string());
  }
  const auto& w = c.weights.bytes();
  coreml_export::write_package(path, bytes,
                               std::string_view(reinterpret_cast<const char*>(w.data()), w.size()));
  return std::move(c.info);
}

}  // namespace cppnn
