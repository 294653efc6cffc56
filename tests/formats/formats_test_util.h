// Helpers for the .webnn / GraphJson tests (tests/formats/formats_*_test.cpp): parsing with
// error capture, a zero-filled weights source, and the reference-backend builder.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "cppnn/context.h"
#include "cppnn/graph_builder.h"
#include "src/formats/graph_convert.h"
#include "src/formats/graph_doc.h"
#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"

namespace cppnn::formats::testing {

// The message of a failed Result, or "" when it succeeded.
template <class T>
std::string error_of(const Result<T>& r) {
  return r ? std::string() : r.error().message;
}

// Parses text that must be valid.
inline GraphDoc parse_ok(std::string_view text, Warnings* warnings = nullptr) {
  Result<GraphDoc> r = parse_webnn_text(text, "t.webnn", warnings);
  EXPECT_TRUE(r) << error_of(r) << "\n" << text;
  return r ? std::move(*r) : GraphDoc{};
}

// The parse error of text that must be invalid.
inline std::string parse_error(std::string_view text) {
  Result<GraphDoc> r = parse_webnn_text(text, "t.webnn");
  EXPECT_FALSE(r) << "parsed, but should not:\n" << text;
  return error_of(r);
}

// External weights as a counting pattern of the declared size.
class PatternWeights : public WeightsSource {
 public:
  Result<ConstantData> load(const std::string&, const std::string&,
                            const MLOperandDescriptor& d) override {
    std::vector<std::byte> bytes(byte_length(d));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i % 7);
    return ConstantData::owned(std::move(bytes));
  }
};

inline MLContext reference_context() {
  MLContextOptions o;
  o.backend = "reference";
  return MLContext::create(o);
}

// doc -> builder -> built Graph (throws on failure).
inline Graph build_doc(const GraphDoc& doc) {
  MLGraphBuilder builder(reference_context());
  PatternWeights weights;
  Result<MLNamedOperands> outputs = record_graph_doc(doc, builder, &weights, "t.webnn");
  if (!outputs) throw std::runtime_error(outputs.error().message);
  return builder.build(*outputs).graph();
}

}  // namespace cppnn::formats::testing
