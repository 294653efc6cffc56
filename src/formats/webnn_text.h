// The .webnn text encoding (webnn-graph-format.md §3 reader, §5.1 canonical printer).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// The text dtype of `t` ("f32", "u4", ...; §2).
std::string_view text_dtype_name(MLOperandDataType t) noexcept;
// Parses a text dtype; nullopt for anything else (no bool, f64, bf16).
std::optional<MLOperandDataType> parse_text_dtype(std::string_view s) noexcept;
// True when `s` is an identifier of §3.1 (first char letter, `_`, `/` or `$`; then letters,
// digits, `_`, `.`, `/`).
bool is_text_identifier(std::string_view s) noexcept;

// Parses .webnn text (§3.1-§3.4, with the leniencies of §3.4) into a document. Errors are
// DataErrors "parse error: <file>:<line>:<col>: <what>". Non-fatal findings (a repeated
// declaration, a dropped positional literal) go to `warnings` when given.
Result<GraphDoc> parse_webnn_text(std::string_view text, std::string_view file_name,
                                  Warnings* warnings = nullptr);

// Prints the canonical text of §5.1 (LF endings, sorted inputs/consts/options, 2-space indent).
// `force_quantized` writes `@quantized` whatever doc.quantized says (serialize --quantized).
// Errors (DataError): format or version invalid (`invalid format: <f>`, `unsupported version:
// <n>`), and every document text cannot express without changing its meaning (§5.3): output
// aliases, invalid names, an empty `outputs` list, a multi-output node whose id is not
// outputs[0], non-numeric scalars. An alias node (op "") is written as the reference writes it
// (`y = (x);`, which does not parse) with a warning.
Result<std::string> print_webnn_text(const GraphDoc& doc, bool force_quantized = false,
                                     Warnings* warnings = nullptr);

}  // namespace cppnn::formats
