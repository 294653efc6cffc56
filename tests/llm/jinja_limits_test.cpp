// The sandbox limits of the chat-template interpreter (src/llm/jinja_state.h): a hostile
// template ends with a clear error naming where it was, never a hang, a crash or unbounded
// memory.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "src/llm/jinja_template.h"

namespace cppnn::llm::jinja {
namespace {

std::string error_of(const std::string& source, const RenderLimits& limits = {}) {
  auto compiled = Template::parse(source);
  if (!compiled.ok()) return "parse: " + compiled.error().message;
  RenderOptions options;
  options.limits = limits;
  auto text = compiled->render({}, options);
  return text.ok() ? "(rendered " + std::to_string(text->size()) + " bytes)" : text.error().message;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(JinjaLimits, NestedLoopsHitTheIterationLimit) {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = error_of(
      "{% for i in range(100000) %}\n{% for j in range(100000) %}{% endfor %}{% endfor %}");
  EXPECT_TRUE(contains(error, "line 2, column 4: more than 1000000 loop iterations")) << error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(JinjaLimits, RangeIsCappedAsInJinjasSandbox) {
  EXPECT_EQ(error_of("{% for i in range(1000000000) %}{% endfor %}"),
            "line 1, column 18: Range too big. The sandbox blocks ranges larger than MAX_RANGE "
            "(100000).");
}

TEST(JinjaLimits, RecursiveMacrosHitTheDepthLimit) {
  const std::string error = error_of("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}");
  EXPECT_TRUE(contains(error, "nests deeper than 256 levels of evaluation")) << error;
  EXPECT_TRUE(contains(error, "line 1, column ")) << error;
}

TEST(JinjaLimits, StringsAndOutputAreBounded) {
  // Doubling a string through a namespace: stopped at the string size limit.
  EXPECT_TRUE(contains(error_of("{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(100) %}"
                                "{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
                       "exceeds the limit of 16777216 bytes"));
  EXPECT_TRUE(contains(error_of("{{ 'a' * 1000000000000 }}"),
                       "a string of 1000000000000 bytes exceeds the limit"));
  EXPECT_TRUE(contains(error_of("{{ [1] * 100000000 }}"), "a list or dict of 100000000 items"));
  EXPECT_TRUE(contains(error_of("{{ '%999999999999s' % 'x' }}"), "width too big"));
  RenderLimits small;
  small.max_output_bytes = 1000;
  EXPECT_EQ(error_of("{% for i in range(2000) %}x{% endfor %}", small),
            "line 1, column 27: the output exceeds the limit of 1000 bytes");
  EXPECT_EQ(error_of("{% for i in range(10) %}x{% endfor %}", small), "(rendered 10 bytes)");
}

TEST(JinjaLimits, WorkIsBounded) {
  RenderLimits small;
  small.max_work = 10000;
  const std::string error = error_of("{% for i in range(100000) %}{{ i + i }}{% endfor %}", small);
  EXPECT_TRUE(contains(error, "more than the work limit (10000 steps)")) << error;
  // Sorting or comparing big shared structures is counted too.
  const std::string sort_error = error_of(
      "{% set xs = range(100000) | list %}{% for i in range(100) %}{{ xs | sort | length }}"
      "{% endfor %}",
      small);
  EXPECT_TRUE(contains(sort_error, "work limit")) << sort_error;
}

TEST(JinjaLimits, NamespaceValuesCannotNestWithoutBound) {
  const std::string error = error_of(
      "{% set ns = namespace(v=[]) %}{% for i in range(1000) %}{% set ns.v = [ns.v] %}"
      "{% endfor %}");
  EXPECT_EQ(error,
            "line 1, column 60: a value nested deeper than 64 levels cannot be stored in a "
            "namespace");
}

TEST(JinjaLimits, TemplateSourceIsBoundedAndMustBeUtf8) {
  EXPECT_TRUE(contains(error_of(std::string(size_t{1} << 21, 'x')), "more than the limit of"));
  EXPECT_EQ(error_of("ok \xff"), "parse: the template is not valid UTF-8 (at byte 3)");
}

}  // namespace
}  // namespace cppnn::llm::jinja
