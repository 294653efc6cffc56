// The chat-template builtins: filters (src/llm/jinja_filters.h), tests (jinja_is_tests.h),
// methods of str/dict/list (jinja_methods.h), global functions (jinja_globals.h), transformers'
// tojson (jinja_json.h) and printf-style `%` (jinja_printf.h). Every expected text below is what
// jinja2 renders in transformers' environment for the same template and context.
#include <gtest/gtest.h>

#include <string>

#include "src/llm/jinja_template.h"
#include "tests/llm/jinja_test_util.h"

namespace cppnn::llm::jinja {
namespace {

using namespace test_util;  // NOLINT: the shared helpers of jinja_test_util.h

TEST(JinjaBuiltins, TextFilters) {
  const Case cases[] = {
      {R"({{ '  a b  ' | trim }}|{{ 'xxaxx' | trim('x') }}|{{ 'Hi' | upper }}{{ 'Hi' | lower }})",
       R"(a b|a|HIhi)"},
      {R"({{ "they're bill's" | title }}|{{ 'hELLO wORLD' | capitalize }}|{{ 'a-b(c' | title }})",
       R"(They're Bill's|Hello world|A-B(C)"},
      {R"({{ 'ß' | upper }} {{ 'Ǎ' | lower }} {{ 'ΣΊΣΥΦΟΣ' | lower }} {{ 'İ' | lower | length }})",
       R"(SS ǎ σίσυφος 2)"},
      {R"({{ 'hello' | replace('l', 'L') }} {{ 'aaa' | replace('a', 'b', 2) }} {{ 'ab' | replace('', '-') }})",
       R"(heLLo bba -a-b-)"},
      {R"({{ 'x\ny\n\nz' | indent }}|{{ 'x\ny' | indent(2, true) }}|{{ 'x\n\ny' | indent(first=true, blank=true) }})",
       "x\n    y\n\n    z|  x\n  y|    x\n    \n    y"},
      {R"({{ '<a href="x">&</a>' | e }} {{ 'one, two  three' | wordcount }} {{ 3 | string }}{{ none | string }})",
       R"(&lt;a href=&#34;x&#34;&gt;&amp;&lt;/a&gt; 3 3None)"},
  };
  expect_cases(cases, std::size(cases));
}

TEST(JinjaBuiltins, NumberFilters) {
  const Case cases[] = {
      {R"({{ '42' | int }} {{ '4.7' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3.9 | int }} {{ '0x1A' | int(base=16) }} {{ ' 1_000 ' | int }})",
       R"(42 4 0 7 3 26 1000)"},
      {R"({{ '1.5' | float }} {{ 3 | float }} {{ 'x' | float }} {{ '1e3' | float }} {{ -3 | abs }} {{ (-3) | abs }} {{ -2.5 | abs }})",
       R"(1.5 3.0 0.0 1000.0 3 3 2.5)"},
      {R"({{ 2.5 | round }} {{ 3.5 | round }} {{ 3.14159 | round(2) }} {{ 2.1 | round(0, 'ceil') }} {{ 2.9 | round(method='floor') }} {{ 7 | round }})",
       R"(2.0 4.0 3.14 3.0 2.0 7)"},
  };
  expect_cases(cases, std::size(cases));
}

TEST(JinjaBuiltins, CollectionFilters) {
  const Case cases[] = {
      {R"({{ messages | length }} {{ messages | map(attribute='role') | join(', ') }})",
       R"(4 system, user, assistant, user)"},
      {R"({{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | list }})",
       R"(['Hi', 'What is 2+2?'])"},
      {R"({{ messages | rejectattr('role', 'in', ['user', 'system']) | list | length }} {{ messages | selectattr('missing') | list }})",
       R"(1 [])"},
      {R"({{ [1, 2, 3, 4] | select('odd') | list }} {{ [1, 0, none, 'x'] | select | list }} {{ [1, 2, 3] | reject('gt', 1) | list }})",
       R"([1, 3] [1, 'x'] [1])"},
      {R"({{ [3, 1, 2] | sort }} {{ ['b', 'A', 'a'] | sort }} {{ ['b', 'A', 'a'] | sort(case_sensitive=true) }} {{ [3, 1, 2] | sort(reverse=true) }})",
       R"([1, 2, 3] ['A', 'a', 'b'] ['A', 'a', 'b'] [3, 2, 1])"},
      {R"({{ messages | sort(attribute='role') | map(attribute='content') | first }} {{ [[2, 'b'], [1, 'z'], [2, 'a']] | sort }})",
       R"(Hello! [[1, 'z'], [2, 'a'], [2, 'b']])"},
      {R"({{ ['b', 'A', 'a', 'b'] | unique | list }} {{ [1, 2] | reverse | list }} {{ 'abc' | reverse }} {{ 'abc' | list }})",
       R"(['b', 'A'] [2, 1] cba ['a', 'b', 'c'])"},
      {R"({{ {'b': 1, 'a': 2} | dictsort }} {{ {'b': 1, 'a': 2} | dictsort(by='value', reverse=true) }} {{ {'b': 1} | items | list }})",
       R"([('a', 2), ('b', 1)] [('a', 2), ('b', 1)] [('b', 1)])"},
      {R"({{ [1, 2, 3] | first }}{{ [1, 2, 3] | last }}{{ 'abc' | first }}{{ [] | first }}|{{ {'k': 1} | first }})",
       R"(13a|k)"},
      {R"({{ [1, 2, 3] | sum }} {{ [1.5, 2] | sum }} {{ messages | map(attribute='content') | map('length') | sum }} {{ [3, 1, 2] | max }} {{ ['b', 'A'] | min }})",
       R"(6 3.5 36 3 A)"},
      {R"({{ [1, 2, 3, 4, 5] | batch(2) | list }} {{ [1, 2, 3] | batch(2, 0) | list }})",
       R"([[1, 2], [3, 4], [5]] [[1, 2], [3, 0]])"},
      {R"({{ [1, 2, 3] | map('string') | join('-') }} {{ ['a', 'b'] | map('upper') | list }} {{ messages | map(attribute='x', default='?') | join }})",
       R"(1-2-3 ['A', 'B'] ????)"},
      {R"({{ {'x': 1} | attr('x') }}|{{ messages[0] | attr('items') is callable }}|{{ [1, 2] | join }}|{{ messages | count }})",
       R"(|True|12|4)"},
  };
  expect_cases(cases, std::size(cases));
  EXPECT_EQ(error_of("{{ 5 | length }}"), "line 1, column 8: object of type 'int' has no len()");
  EXPECT_EQ(error_of("{{ [1, 'a'] | sort }}"),
            "line 1, column 15: '<' not supported between instances of 'str' and 'int'");
  EXPECT_EQ(error_of("{{ 1 | items }}"),
            "line 1, column 8: Can only get item pairs from a mapping.");
  EXPECT_EQ(error_of("{{ ['a'] | sum(start='') }}"),
            "line 1, column 12: sum() can't sum strings [use ''.join(seq) instead]");
}

TEST(JinjaBuiltins, ToJsonAsTransformersDefinesIt) {
  const Case cases[] = {
      {R"({{ {'a': 1, 'b': [true, none, 1.5, 'é"\n<'], 'c': {}} | tojson }})",
       R"({"a": 1, "b": [true, null, 1.5, "é\"\n<"], "c": {}})"},
      {R"({{ {'b': 1, 'a': {'y': [], 'x': [1, 2]}} | tojson(indent=2) }})",
       "{\n  \"b\": 1,\n  \"a\": {\n    \"y\": [],\n    \"x\": [\n      1,\n      2\n    ]\n  "
       "}\n}"},
      {R"({{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }} {{ 'é😀' | tojson(ensure_ascii=true) }} {{ [1, 2] | tojson(separators=(',', ':')) }})",
       R"({"a": 2, "b": 1} "\u00e9\ud83d\ude00" [1,2])"},
      {R"({{ {1: 'int key', none: 'n', 2.5: 'f'} | tojson }} {{ (1e300 * 1e300) | tojson }} {{ (1, 2) | tojson }})",
       R"({"1": "int key", "null": "n", "2.5": "f"} Infinity [1, 2])"},
      {R"({{ messages[1] | tojson }})", R"({"role": "user", "content": "Hi"})"},
  };
  expect_cases(cases, std::size(cases));
  EXPECT_EQ(error_of("{{ nothing | tojson }}"),
            "line 1, column 14: Object of type Undefined is not JSON serializable");
  EXPECT_EQ(error_of("{{ namespace() | tojson }}"),
            "line 1, column 18: Object of type Namespace is not JSON serializable");
}

TEST(JinjaBuiltins, Tests) {
  const Case cases[] = {
      {R"({{ 1 is number }} {{ true is number }} {{ 1 is integer }} {{ true is integer }} {{ 1.0 is float }} {{ 'a' is string }})",
       R"(True True True False True True)"},
      {R"({{ [] is iterable }} {{ 'x' is iterable }} {{ 1 is iterable }} {{ {} is mapping }} {{ messages is sequence }} {{ none is none }})",
       R"(True True False True True True)"},
      {R"({{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 'abc' is lower }} {{ 'ABC' is upper }} {{ 'aB' is lower }})",
       R"(True True True True True False)"},
      {R"({{ 2 is eq 2 }} {{ 2 is equalto 3 }} {{ 2 is gt 1 }} {{ 2 is le 1 }} {{ 'x' is in 'xyz' }} {{ 1 is sameas 1 }} {{ none is sameas none }})",
       R"(True False True False True True True)"},
      {R"({{ range is callable }} {{ 'trim' is filter }} {{ 'odd' is test }} {{ nothing is undefined }} {{ true is true }} {{ 0 is false }})",
       R"(True True True True True False)"},
  };
  expect_cases(cases, std::size(cases));
}

TEST(JinjaBuiltins, StringDictAndListMethods) {
  const Case cases[] = {
      {R"({{ ' a b '.strip() }}|{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'a,b,c'.rsplit(',', 1) }})",
       R"(a b|['a', 'b', '', 'c']|['a', 'b']|['a', 'b c']|['a,b', 'c'])"},
      {R"({{ 'x\ny\r\nz'.splitlines() }} {{ 'Hello'.startswith('He') }} {{ 'Hello'.endswith(('x', 'lo')) }} {{ 'Hello'.startswith('l', 2) }})",
       R"(['x', 'y', 'z'] True True True)"},
      {R"({{ 'hello world'.title() }} {{ "they're".title() }} {{ 'aXb'.swapcase() }} {{ 'hello'.capitalize() }})",
       R"(Hello World They'Re AxB Hello)"},
      {R"({{ 'hello'.replace('l', 'L', 1) }} {{ 'hello'.find('l') }} {{ 'hello'.rfind('l') }} {{ 'hello'.find('z') }} {{ 'hello'.count('l') }})",
       R"(heLlo 2 3 -1 2)"},
      {R"({{ '-'.join(['a', 'b']) }} {{ '42'.isdigit() }} {{ 'ab'.isalpha() }} {{ ' '.isspace() }} {{ 'Ab'.isupper() }} {{ 'think</think>answer'.split('</think>')[-1] }})",
       R"(a-b True True True False answer)"},
      {R"({{ '{} and {}'.format('a', 1) }} {{ '{0}{0}'.format('x') }} {{ '{name}!'.format(name='hi') }} {{ 'pre_x'.removeprefix('pre_') }})",
       R"(a and 1 xx hi! x)"},
      {R"({{ {'a': 1}.get('a') }} {{ {'a': 1}.get('z') }} {{ {'a': 1}.get('z', 5) }} {{ {'a': 1, 'b': 2}.keys() | list }} {{ {'a': 1}.values() | list }} {{ {'a': 1}.items() | list }})",
       R"(1 None 5 ['a', 'b'] [1] [('a', 1)])"},
      {R"({{ [1, 2, 1].index(2) }} {{ [1, 2, 1].count(1) }} {{ (1, 2).index(1) }})", R"(1 2 0)"},
  };
  expect_cases(cases, std::size(cases));
  EXPECT_EQ(error_of("{{ 'abc'.nosuch() }}"),
            "line 1, column 16: 'str object' has no attribute 'nosuch'");
  EXPECT_EQ(error_of("{{ ','.join([1, 2]) }}"),
            "line 1, column 12: sequence item 0: expected str instance, int found");
  EXPECT_EQ(error_of("{{ messages.append(1) }}"),
            "line 1, column 19: 'list object' has no attribute 'append'");
}

TEST(JinjaBuiltins, GlobalsAndPrintf) {
  const Case cases[] = {
      {R"({{ range(3) | list }} {{ range(1, 10, 3) | list }} {{ range(5, 0, -2) | list }} {{ range(0) | list }})",
       R"([0, 1, 2] [1, 4, 7] [5, 3, 1] [])"},
      {R"({{ dict(a=1, b=2) }} {{ namespace(x=1).x }} {{ dict([('k', 'v')]) }})",
       R"({'a': 1, 'b': 2} 1 {'k': 'v'})"},
      {R"({{ '%5.2f|%-4d|%+d|%05d|%x|%X|%#o|%e|%g|%c|%r|%s|%%|%10s|%-10s|%.3s' % (3.14159, 42, 5, -42, 255, 255, 8, 12345.678, 0.0001, 65, 'q', [1], 'abc', 'é', 'xyzw') }})",
       R"( 3.14|42  |+5|-0042|ff|FF|0o10|1.234568e+04|0.0001|A|'q'|[1]|%|       abc|é         |xyz)"},
      {R"({{ '%(a)s-%(b)d' % {'a': 1, 'b': 2} }} {{ '%s' % [1] }} {{ 'x' % [] }} {{ '%d' % 3.7 }})",
       R"(1-2 [1] x 3)"},
  };
  expect_cases(cases, std::size(cases));
  // strftime_now formats the time given in RenderOptions (local time zone).
  EXPECT_EQ(text_of("{{ strftime_now('%Y') }}"), "2024");
  EXPECT_EQ(text_of("{{ strftime_now('%%') }}"), "%");
  EXPECT_EQ(error_of("{{ strftime_now('%Q') }}"),
            "line 1, column 16: strftime_now(): the directive %Q is not supported");
  EXPECT_EQ(error_of("{{ range(100001) | length }}"),
            "line 1, column 9: Range too big. The sandbox blocks ranges larger than MAX_RANGE "
            "(100000).");
  EXPECT_EQ(error_of("{{ range(1, 2, 0) }}"), "line 1, column 9: range() arg 3 must not be zero");
  EXPECT_EQ(error_of("{{ '%s %s' % ('a',) }}"),
            "line 1, column 4: not enough arguments for format string");
  EXPECT_EQ(error_of("{{ 'abc' % 5 }}"),
            "line 1, column 4: not all arguments converted during string formatting");
}

}  // namespace
}  // namespace cppnn::llm::jinja
