// save_tflite (include/cppnn/tflite.h): convert, write the model atomically.
#include "cppnn/errors.h"
#include "cppnn/tflite.h"
#include "src/core/atomic_file.h"
#include "src/export/tflite/convert.h"

namespace cppnn {

TfliteModelInfo save_tflite(const Graph& graph, const std::filesystem::path& path) {
  tflite_export::Conversion c = tflite_export::convert_graph(graph);
  auto file = AtomicFile::create(path);
  if (!file) throw_error(file.error().kind, "save_tflite: " + file.error().message);
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(c.bytes.data()),
                                         c.bytes.size());
  Status s = file->write(bytes);
  if (s) s = file->commit();
  if (!s) throw_error(s.error().kind, "save_tflite: " + s.error().message);
  return std::move(c.info);
}

}  // namespace cppnn
