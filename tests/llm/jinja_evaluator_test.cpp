// The chat-template evaluator (src/llm/jinja_evaluator.h through jinja_template.h): Jinja's
// semantics for output, scoping, loops, macros, undefined values and Python's operators. Every
// expected text below is what jinja2 renders for the same template and context.
#include <gtest/gtest.h>

#include <string>

#include "src/llm/jinja_template.h"
#include "tests/llm/jinja_test_util.h"

namespace cppnn::llm::jinja {
namespace {

using namespace test_util;  // NOLINT: the shared helpers of jinja_test_util.h

TEST(JinjaEvaluator, OutputOfValues) {
  const Case cases[] = {
      {R"({{ 1 }} {{ -2 }} {{ 2.0 }} {{ 1.5 }} {{ true }} {{ none }} {{ 'x' }})",
       R"(1 -2 2.0 1.5 True None x)"},
      {R"({{ 1e16 }} {{ 1e15 }} {{ 0.0001 }} {{ 0.00001 }} {{ 1/3 }} {{ 0.1 + 0.2 }})",
       R"(1e+16 1000000000000000.0 0.0001 1e-05 0.3333333333333333 0.30000000000000004)"},
      {R"({{ [1, 'a', none, true, 1.5] }} {{ (1,) }} {{ (1, 2) }} {{ {'k': [1, {'j': 'v'}]} }})",
       R"([1, 'a', None, True, 1.5] (1,) (1, 2) {'k': [1, {'j': 'v'}]})"},
      {R"({{ ["it's", 'a"b', 'x\ny', 'é'] }})", R"(["it's", 'a"b', 'x\ny', 'é'])"},
      {R"({{ nothing }}|{{ [nothing] }}|{{ namespace(a=1) }})",
       R"(|[Undefined]|<Namespace {'a': 1}>)"},
      {R"({{ '{{ x }}' }} {{ '{% if %}' }})", R"({{ x }} {% if %})"},
  };
  expect_cases(cases, std::size(cases));
}

TEST(JinjaEvaluator, OperatorsFollowPython) {
  const Case cases[] = {
      {R"({{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 5.5 % 2 }} {{ 10.0 // 3 }})",
       R"(3 -4 2 -2 1.5 3.0)"},
      {R"({{ 2 ** 10 }} {{ 2 ** -1 }} {{ 10 / 4 }} {{ true + true }} {{ 'ab' * 3 }} {{ [0] * 2 }})",
       R"(1024 0.5 2.5 2 ababab [0, 0])"},
      {R"({{ 'a' + 'b' }} {{ [1] + [2] }} {{ 'a' ~ 1 ~ none ~ 2.5 ~ nothing }})",
       R"(ab [1, 2] a1None2.5)"},
      {R"({{ 1 == 1.0 }} {{ true == 1 }} {{ [1, 2] == [1, 2] }} {{ (1,) == [1] }} {{ nothing == nothing }})",
       R"(True True True False True)"},
      {R"({{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }})",
       R"(True True True False)"},
      {R"({{ 'ell' in 'hello' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'x' not in 'abc' }} {{ 'a' in nothing }})",
       R"(True True True True False)"},
      {R"({{ none or 'd' }} {{ 0 and 'x' }} {{ '' or [] or 'last' }} {{ 1 and 2 }} {{ not [] }})",
       R"(d 0 last 2 True)"},
      {R"({{ 'yes' if messages else 'no' }} {{ 'x' if false }}|)", R"(yes |)"},
      {R"({{ '%s has %d messages' % ('chat', messages | length) }} {{ '%05.1f' % 3.14159 }})",
       R"(chat has 4 messages 003.1)"},
  };
  expect_cases(cases, std::size(cases));
}

TEST(JinjaEvaluator, AccessAndUndefined) {
  const Case cases[] = {
      {R"({{ messages[0].role }} {{ messages[1]['content'] }} {{ messages[-1].content }})",
       R"(system Hi What is 2+2?)"},
      {R"({{ messages[9] }}|{{ messages[0].missing }}|{{ 'abc'.nosuch }}|{{ messages[0].tool_calls is defined }})",
       R"(|||False)"},
      {R"({{ 'abcdef'[1:4] }} {{ 'abcdef'[::-1] }} {{ 'abcdef'[::2] }} {{ 'abcdef'[-2:] }} {{ messages[1:] | length }})",
       R"(bcd fedcba ace ef 3)"},
      {R"({{ 'héllo'[1] }}{{ 'héllo'[-1:] }} {{ 'héllo' | length }})", R"(éo 5)"},
      {R"({{ nothing | default('d') }} {{ nothing | length }} {{ nothing is defined }} {% for x in nothing %}x{% endfor %})",
       R"(d 0 False )"},
      {R"({{ messages[0].items | list if false else messages[0].get('role') }})", R"(system)"},
  };
  expect_cases(cases, std::size(cases));
  // Using an undefined value in an operation, attribute or item access is an error (Jinja's
  // default Undefined), located at the operation.
  EXPECT_EQ(error_of("{{ x.y }}"), "line 1, column 5: 'x' is undefined");
  EXPECT_EQ(error_of("\n{{ x['k'] }}"), "line 2, column 5: 'x' is undefined");
  EXPECT_EQ(error_of("{{ nothing + 1 }}"), "line 1, column 4: 'nothing' is undefined");
  EXPECT_EQ(error_of("{{ messages[0].missing.x }}"),
            "line 1, column 23: 'dict object' has no attribute 'missing'");
  EXPECT_EQ(error_of("{{ nothing() }}"), "line 1, column 11: 'nothing' is undefined");
}

TEST(JinjaEvaluator, LoopsAndTheLoopVariable) {
  const Case cases[] = {
      {R"({% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %})",
       R"(104TrueFalse4;213FalseFalse4;322FalseFalse4;431FalseTrue4;)"},
      {R"({% for i in [1, 2, 3] %}{{ loop.previtem }}-{{ loop.nextitem }}-{{ loop.cycle('a', 'b') }};{% endfor %})",
       R"(-2-a;1-3-b;2--a;)"},
      {R"({% for i in range(6) if i is odd %}{{ loop.index }}/{{ loop.length }}:{{ i }} {% endfor %})",
       R"(1/3:1 2/3:3 3/3:5 )"},
      {R"({% for i in [] %}x{% else %}empty{% endfor %})", R"(empty)"},
      {R"({% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %})", R"(a=1;b=2;)"},
      {R"({% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 4 %}{% break %}{% endif %}{{ i }}{% endfor %})",
       R"(013)"},
      {R"({% for i in range(2) %}{% for j in range(2) %}{{ loop.index }}{{ i }}{% endfor %}{% endfor %})",
       R"(10201121)"},
      {R"({% for c in 'hé' %}[{{ c }}]{% endfor %}{% for k in {'x': 1, 'y': 2} %}{{ k }}{% endfor %})",
       R"([h][é]xy)"},
  };
  expect_cases(cases, std::size(cases));
  EXPECT_EQ(error_of("{% for a, b in [(1, 2, 3)] %}{% endfor %}"),
            "line 1, column 4: too many values to unpack (expected 2)");
  EXPECT_EQ(error_of("{% for x in 5 %}{% endfor %}"),
            "line 1, column 13: 'int' object is not iterable");
}

TEST(JinjaEvaluator, ScopesSetAndNamespace) {
  const Case cases[] = {
      // A loop iteration is a scope: `set` inside it does not outlive the iteration.
      {R"({% set c = 0 %}{% for i in range(3) %}{% set c = c + 1 %}{{ c }}{% endfor %}|{{ c }})",
       R"(111|0)"},
      {R"({% set c = 1 %}{% for i in range(3) %}{% if i == 0 %}{% set c = 5 %}{% endif %}{{ c }},{% endfor %})",
       R"(5,1,1,)"},
      {R"({% if true %}{% set z = 3 %}{% endif %}{{ z }})", R"(3)"},
      {R"({% set ns = namespace(found=false, n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% if m.role == 'user' %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.found }} {{ ns.n }})",
       R"(True 4)"},
      {R"({% set a, b = 1, 2 %}{{ a }}{{ b }})", R"(12)"},
      {R"({% set block %}inner {{ 1 + 1 }}{% endset %}[{{ block }}]{% set up | upper %}shout{% endset %}{{ up }})",
       R"([inner 2]SHOUT)"},
      {R"({% with x = 5, y = 6 %}{{ x * y }}{% endwith %}[{{ x }}])", R"(30[])"},
      {R"({% filter upper %}filtered {{ 'text' }}{% endfilter %})", R"(FILTERED TEXT)"},
      {R"({% set messages = messages[1:] %}{{ messages | length }})", R"(3)"},
      {R"({% print 'p', 1 %}{% generation %}g{% set hidden = 1 %}{% endgeneration %}{{ hidden }})",
       R"(p1g)"},
  };
  expect_cases(cases, std::size(cases));
  EXPECT_EQ(error_of("{% set x = 1 %}{% set x.attr = 2 %}"),
            "line 1, column 19: cannot assign attribute on non-namespace object");
  EXPECT_EQ(error_of("{% set ns = namespace() %}{% set ns.self = ns %}"),
            "line 1, column 30: a namespace, loop or macro cannot be stored in a namespace");
}

TEST(JinjaEvaluator, Macros) {
  const Case cases[] = {
      {R"({% macro f(a, b='x') %}[{{ a }}{{ b }}]{% endmacro %}{{ f(1) }}{{ f(2, b=3) }}{{ f(a=4) }}{{ f() }})",
       R"([1x][23][4x][x])"},
      {R"({% macro f(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ f(1, 2, b=3) }})",
       R"(1(2,){'b': 3})"},
      {R"({% macro f() %}{{ y }}{% endmacro %}{% set y = 2 %}{{ f() }})", R"(2)"},
      {R"({% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n }}*{{ fact(n - 1) }}{% endif %}{% endmacro %}{{ fact(4) }})",
       R"(4*3*2*1)"},
      {R"({% for i in [1, 2] %}{% macro g() %}{{ i }}{% endmacro %}{{ g() }}{% endfor %})",
       R"(12)"},
  };
  expect_cases(cases, std::size(cases));
  EXPECT_EQ(error_of("{% macro f(a) %}{% endmacro %}{{ f(1, 2) }}"),
            "line 1, column 35: macro 'f' takes not more than 1 argument(s)");
  EXPECT_EQ(error_of("{% macro f(a) %}{% endmacro %}{{ f(b=2) }}"),
            "line 1, column 35: macro 'f' takes no keyword argument 'b'");
}

TEST(JinjaEvaluator, ErrorsNameTheFailingNode) {
  EXPECT_EQ(error_of("ok\n{{ 1 / 0 }}"), "line 2, column 4: division by zero");
  EXPECT_EQ(error_of("{{ 1 < 'a' }}"),
            "line 1, column 4: '<' not supported between instances of 'int' and 'str'");
  EXPECT_EQ(error_of("{{ 'x' + 1 }}"),
            "line 1, column 4: can only concatenate str (not \"int\") to str");
  EXPECT_EQ(
      error_of("{% if messages %}\n  {{ raise_exception('Roles must alternate') }}\n{% endif %}"),
      "line 2, column 21: the template raised an error: Roles must alternate");
  EXPECT_EQ(error_of("{{ 'x' | nosuch if true }}"), "line 1, column 10: no filter named 'nosuch'");
  EXPECT_EQ(error_of("{{ 9223372036854775807 + 1 }}"),
            "line 1, column 4: integer overflow (template integers are 64-bit)");
}

}  // namespace
}  // namespace cppnn::llm::jinja
