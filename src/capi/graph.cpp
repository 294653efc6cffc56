// The C API's graph handles (include/cppnn/cppnn.h "Graphs and dispatch"): MLGraph.destroy() and
// its input and output descriptors.
#include "src/capi/handles.h"

namespace {

using Named = std::vector<std::pair<std::string, cppnn::MLOperandDescriptor>>;

const char* name_at(const Named& list, size_t index) {
  return index < list.size() ? list[index].first.c_str() : nullptr;
}

cppnn_operand_descriptor descriptor_at(const Named& list, size_t index) {
  if (index >= list.size()) return {CPPNN_FLOAT32, nullptr, 0};
  return cppnn::capi::view_of(list[index].second);
}

}  // namespace

extern "C" {

void cppnn_graph_destroy(cppnn_graph* graph) {
  if (!graph) return;
  try {
    graph->graph.destroy();
  } catch (...) {
    // idempotent; nothing to report
  }
  delete graph;
}

size_t cppnn_graph_input_count(const cppnn_graph* graph) {
  return graph ? graph->inputs.size() : 0;
}

const char* cppnn_graph_input_name(const cppnn_graph* graph, size_t index) {
  return graph ? name_at(graph->inputs, index) : nullptr;
}

cppnn_operand_descriptor cppnn_graph_input_descriptor(const cppnn_graph* graph, size_t index) {
  return graph ? descriptor_at(graph->inputs, index) : cppnn_operand_descriptor{};
}

size_t cppnn_graph_output_count(const cppnn_graph* graph) {
  return graph ? graph->outputs.size() : 0;
}

const char* cppnn_graph_output_name(const cppnn_graph* graph, size_t index) {
  return graph ? name_at(graph->outputs, index) : nullptr;
}

cppnn_operand_descriptor cppnn_graph_output_descriptor(const cppnn_graph* graph, size_t index) {
  return graph ? descriptor_at(graph->outputs, index) : cppnn_operand_descriptor{};
}

}  // extern "C"
