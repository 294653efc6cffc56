/* The checks the C API's C tests share (capi_test.c, capi_llm_test.c): counters of passed,
 * failed and skipped checks, CHECK, CHECK_FAILS (an expected error status and message) and OK (a
 * call that must succeed, its error printed otherwise). Included once per test program. */
#ifndef CPPNN_TESTS_CAPI_CAPI_CHECK_H
#define CPPNN_TESTS_CAPI_CAPI_CHECK_H

#include <stdio.h>
#include <string.h>

#include "cppnn/cppnn.h"

static int g_passed, g_failed, g_skipped;

/* Records one check; prints the failing ones with their line. */
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++g_passed;                                                              \
    } else {                                                                   \
      ++g_failed;                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* Runs `call` (whose last argument must be `&e`), expects `status` and a message containing
 * `fragment`; releases the error. */
#define CHECK_FAILS(call, status, fragment) \
  check_fails((call), &e, (status), (fragment), __LINE__, #call)

/* `*slot` is read here, after the call (an argument) has stored the error in it; the error is
 * released and *slot cleared. */
static void check_fails(cppnn_status got, cppnn_error** slot, cppnn_status want,
                        const char* fragment, int line, const char* text) {
  cppnn_error* e = *slot;
  *slot = NULL;
  int ok = got == want && e != NULL && cppnn_error_status(e) == want &&
           strcmp(cppnn_error_name(e), cppnn_status_name(want)) == 0 &&
           (fragment == NULL || strstr(cppnn_error_message(e), fragment) != NULL);
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "%s:%d: %s: wanted %s containing \"%s\", got %s: %s\n", __FILE__, line, text,
            cppnn_status_name(want), fragment ? fragment : "", cppnn_status_name(got),
            e ? cppnn_error_message(e) : "(no error object)");
  }
  cppnn_error_destroy(e);
}

/* Fails the test with the error's message when `st` is not OK; returns whether it was. */
static int ok_or_report(cppnn_status st, cppnn_error** slot, const char* what, int line) {
  cppnn_error* e = *slot;
  *slot = NULL;
  if (st == CPPNN_OK) {
    ++g_passed;
    return 1;
  }
  ++g_failed;
  fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, line, what, cppnn_status_name(st),
          e ? cppnn_error_message(e) : "(no error object)");
  cppnn_error_destroy(e);
  return 0;
}
/* Runs `call` (whose last argument must be `&e`); true when it succeeded. */
#define OK(call) ok_or_report((call), &e, #call, __LINE__)

#endif /* CPPNN_TESTS_CAPI_CAPI_CHECK_H */
