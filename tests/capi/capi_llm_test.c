/* The C API's text generation (include/cppnn/cppnn.h "Text generation") from C11, on the tiny
 * GGUF model of tests/llm/tiny_gguf.h: every function on every compiled-in backend (logits,
 * greedy generation, streaming, the pull form, stop strings, chat turns that reuse the cache,
 * append/tokens/rewind, two generators on two threads) and every error path (a missing file, a
 * malformed GGUF, an unsupported architecture, bad option values, NULL arguments, a callback that
 * stops). Usage: capi_llm_test TINY.gguf TEMP_DIR. Prints "capi_llm: N passed, N failed, N
 * skipped". */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "cppnn/cppnn.h"

static const char* g_model_path;
static const char* g_temp_dir;

/* ---- Helpers ------------------------------------------------------------------------------ */

/* A growable byte string (the pieces a callback received). */
typedef struct Text {
  char* data;
  size_t size;
  size_t pieces;
  size_t stop_after; /* the callback returns 0 after this many pieces (0: never) */
  char second[64];   /* the second piece, when it is short and has no NUL */
} Text;

static void text_append(Text* t, const char* s, size_t n) {
  char* grown = realloc(t->data, t->size + n + 1);
  if (!grown) abort();
  t->data = grown;
  memcpy(t->data + t->size, s, n);
  t->size += n;
  t->data[t->size] = '\0';
}

static void text_free(Text* t) {
  free(t->data);
  memset(t, 0, sizeof *t);
}

/* The streaming callback: collects the pieces into the Text at `user_data`. */
static int collect(const char* piece, size_t length, void* user_data) {
  Text* t = user_data;
  if (piece[length] != '\0') return 0; /* the piece must be NUL-terminated */
  text_append(t, piece, length);
  ++t->pieces;
  if (t->pieces == 2 && length < sizeof t->second && memchr(piece, '\0', length) == NULL)
    memcpy(t->second, piece, length + 1);
  return t->stop_after == 0 || t->pieces < t->stop_after;
}

/* Whether the result's text is exactly `n` bytes at `s`. */
static int result_text_is(const cppnn_generation_result* r, const char* s, size_t n) {
  size_t length = 0;
  const char* text = cppnn_generation_result_text(r, &length);
  return length == n && (n == 0 || memcmp(text, s, n) == 0) && text[n] == '\0';
}

/* The index of the first occurrence of `needle` in `n` bytes at `hay`, or n. */
static size_t find_bytes(const char* hay, size_t n, const char* needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; k <= n && i + k <= n; ++i)
    if (memcmp(hay + i, needle, k) == 0) return i;
  return n;
}

static cppnn_language_model* load(const char* backend, cppnn_error** e) {
  cppnn_language_model_options o;
  cppnn_language_model_options_init(&o);
  o.backend = backend;
  o.context_length = 256;
  o.prefill_chunk = 8;
  cppnn_language_model* m = NULL;
  if (!ok_or_report(cppnn_language_model_load(g_model_path, &o, &m, e), e, "load", __LINE__))
    return NULL;
  return m;
}

/* The greedy options of these tests: `max_tokens`, past the stop tokens. */
static cppnn_generation_options greedy(uint32_t max_tokens) {
  cppnn_generation_options o;
  cppnn_generation_options_init(&o);
  o.max_tokens = max_tokens;
  o.ignore_eos = true;
  return o;
}

/* ---- The model: info, tokenizer, chat template ------------------------------------------- */

static void test_model(cppnn_language_model* m, const char* backend) {
  cppnn_error* e = NULL;
  CHECK(strlen(cppnn_language_model_name(m)) > 0);
  CHECK(strcmp(cppnn_language_model_architecture(m), "llama") == 0);
  CHECK(strcmp(cppnn_language_model_backend(m), backend) == 0);
  CHECK(cppnn_language_model_layers(m) == 2);
  CHECK(cppnn_language_model_vocabulary_size(m) >= 297);
  CHECK(cppnn_language_model_context_length(m) == 256);
  CHECK(cppnn_language_model_prefill_chunk(m) == 8);
  size_t notes = cppnn_language_model_note_count(m);
  for (size_t i = 0; i < notes; ++i) CHECK(cppnn_language_model_note(m, i) != NULL);
  CHECK(cppnn_language_model_note(m, notes) == NULL);
  size_t stops = 0;
  const int32_t* stop = cppnn_language_model_stop_tokens(m, &stops);
  CHECK(stops >= 1 && stop != NULL);
  int has_im_end = 0;
  for (size_t i = 0; i < stops; ++i) has_im_end |= stop[i] == 2; /* <|im_end|> */
  CHECK(has_im_end);

  /* tokenize: the size first, then the ids; too small a buffer fails with the size set. */
  size_t count = 0;
  if (!OK(cppnn_language_model_tokenize(m, "Hello the world", false, true, NULL, 0, &count, &e)))
    return;
  CHECK(count > 1);
  int32_t ids[64];
  size_t small = 0;
  CHECK_FAILS(cppnn_language_model_tokenize(m, "Hello the world", false, true, ids, 1, &small, &e),
              CPPNN_TYPE_ERROR, "capacity of 1");
  CHECK(small == count);
  size_t got = 0;
  OK(cppnn_language_model_tokenize(m, "Hello the world", false, true, ids, 64, &got, &e));
  CHECK(got == count);
  char* text = NULL;
  size_t length = 0;
  if (OK(cppnn_language_model_detokenize(m, ids, got, false, &text, &length, &e))) {
    CHECK(strcmp(text, "Hello the world") == 0 && length == strlen(text));
    cppnn_string_free(text);
  }
  /* Special tokens: one id when parsed, bytes otherwise; skipped on request. */
  OK(cppnn_language_model_tokenize(m, "<|im_start|>", false, true, ids, 64, &got, &e));
  CHECK(got == 1 && ids[0] == 1);
  OK(cppnn_language_model_tokenize(m, "<|im_start|>", false, false, ids, 64, &got, &e));
  CHECK(got > 1);
  const int32_t special[] = {1, 73, 2}; /* <|im_start|> 'F' <|im_end|> (ids 3.. are the bytes) */
  text = NULL;
  if (OK(cppnn_language_model_detokenize(m, special, 3, true, &text, NULL, &e))) {
    CHECK(strcmp(text, "F") == 0);
    cppnn_string_free(text);
  }
  if (OK(cppnn_language_model_detokenize(m, special, 3, false, &text, NULL, &e))) {
    CHECK(strcmp(text, "<|im_start|>F<|im_end|>") == 0);
    cppnn_string_free(text);
  }
  if (OK(cppnn_language_model_detokenize(m, NULL, 0, false, &text, &length, &e))) {
    CHECK(length == 0 && text[0] == '\0');
    cppnn_string_free(text);
  }

  /* The chat template (SmolLM2's): ChatML turns, a default system prompt, the generation
   * prompt on request. */
  const char* roles[] = {"user"};
  const char* contents[] = {"Hi"};
  if (OK(cppnn_language_model_apply_chat_template(m, roles, contents, 1, true, &text, &e))) {
    CHECK(strstr(text, "<|im_start|>system\n") == text);
    CHECK(strstr(text, "<|im_start|>user\nHi<|im_end|>\n") != NULL);
    size_t n = strlen(text);
    const char* tail = "<|im_start|>assistant\n";
    CHECK(n > strlen(tail) && strcmp(text + n - strlen(tail), tail) == 0);
    cppnn_string_free(text);
  }
  if (OK(cppnn_language_model_apply_chat_template(m, roles, contents, 1, false, &text, &e))) {
    CHECK(strstr(text, "<|im_start|>assistant") == NULL);
    cppnn_string_free(text);
  }
}

/* ---- Logits: append, tokens, rewind ------------------------------------------------------- */

/* Fills `last` (vocabulary size floats) with the logits of the last token of "The cat sat"
 * computed on `m`; returns the number of prompt tokens (0 on failure). */
static size_t test_logits(cppnn_language_model* m, float* last) {
  cppnn_error* e = NULL;
  const uint32_t vocab = cppnn_language_model_vocabulary_size(m);
  int32_t ids[32];
  size_t n = 0;
  if (!OK(cppnn_language_model_tokenize(m, "The cat is in Paris", false, true, ids, 32, &n, &e)))
    return 0;
  cppnn_generator *a = NULL, *b = NULL;
  if (!OK(cppnn_generator_create(m, &a, &e)) || !OK(cppnn_generator_create(m, &b, &e))) {
    cppnn_generator_destroy(a);
    return 0;
  }
  /* Every position's logits, and the last one's alone on another generator: the same. */
  float* all = malloc(n * vocab * sizeof(float));
  size_t all_count = 0, last_count = 0;
  CHECK_FAILS(cppnn_generator_append(a, ids, n, true, all, n * vocab - 1, &all_count, &e),
              CPPNN_TYPE_ERROR, "do not fit");
  size_t before = 1;
  OK(cppnn_generator_tokens(a, NULL, 0, &before, &e));
  CHECK(before == 0); /* the failed append ran nothing */
  OK(cppnn_generator_append(a, ids, n, true, all, n * vocab, &all_count, &e));
  CHECK(all_count == n * vocab);
  OK(cppnn_generator_append(b, ids, n, false, last, vocab, &last_count, &e));
  CHECK(last_count == vocab);
  float worst = 0, largest = 0;
  for (uint32_t i = 0; i < vocab; ++i) {
    worst = fmaxf(worst, fabsf(all[(n - 1) * vocab + i] - last[i]));
    largest = fmaxf(largest, fabsf(last[i]));
  }
  CHECK(worst <= 1e-3f * (1.0f + largest));
  CHECK(largest > 0.0f && isfinite(largest));

  /* The context holds the tokens; rewind forgets and the logits come again. */
  int32_t held[32];
  size_t held_count = 0;
  OK(cppnn_generator_tokens(a, held, 32, &held_count, &e));
  CHECK(held_count == n && memcmp(held, ids, n * sizeof(int32_t)) == 0);
  OK(cppnn_generator_rewind(a, n - 1, &e));
  OK(cppnn_generator_tokens(a, NULL, 0, &held_count, &e));
  CHECK(held_count == n - 1);
  float* again = malloc(vocab * sizeof(float));
  OK(cppnn_generator_append(a, ids + n - 1, 1, false, again, vocab, NULL, &e));
  float drift = 0;
  for (uint32_t i = 0; i < vocab; ++i) drift = fmaxf(drift, fabsf(again[i] - last[i]));
  CHECK(drift <= 1e-3f * (1.0f + largest));
  OK(cppnn_generator_rewind(a, 1000, &e)); /* past the end: nothing */
  OK(cppnn_generator_tokens(a, NULL, 0, &held_count, &e));
  CHECK(held_count == n);
  OK(cppnn_generator_rewind(a, 0, &e));
  OK(cppnn_generator_tokens(a, NULL, 0, &held_count, &e));
  CHECK(held_count == 0);
  /* Logits not wanted: NULL with capacity 0 prefills only. */
  size_t count = 0;
  OK(cppnn_generator_append(a, ids, n, false, NULL, 0, &count, &e));
  CHECK(count == vocab);

  /* Errors: an id outside the vocabulary, a context overflow, NULLs. */
  const int32_t bad[] = {(int32_t)vocab};
  CHECK_FAILS(cppnn_generator_append(a, bad, 1, false, again, vocab, NULL, &e), CPPNN_TYPE_ERROR,
              "outside the vocabulary");
  const int32_t negative[] = {-1};
  CHECK_FAILS(cppnn_generator_append(a, negative, 1, false, NULL, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "outside the vocabulary");
  int32_t* many = calloc(300, sizeof(int32_t));
  CHECK_FAILS(cppnn_generator_append(a, many, 300, false, NULL, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "exceed the context");
  free(many);
  CHECK_FAILS(cppnn_generator_append(a, NULL, 3, false, NULL, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "the tokens is NULL");
  CHECK_FAILS(cppnn_generator_append(a, ids, 1, false, NULL, 5, NULL, &e), CPPNN_TYPE_ERROR,
              "NULL with a capacity");
  CHECK_FAILS(cppnn_generator_append(a, NULL, 0, false, NULL, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "no tokens");
  CHECK_FAILS(cppnn_generator_tokens(a, held, 1, &held_count, &e), CPPNN_TYPE_ERROR, "do not fit");
  CHECK_FAILS(cppnn_generator_tokens(a, NULL, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "the count pointer is NULL");
  free(again);
  free(all);
  cppnn_generator_destroy(a);
  cppnn_generator_destroy(b);
  return n;
}

/* ---- Generation ---------------------------------------------------------------------------- */

/* generate() with a streaming callback; returns the result (NULL on failure). */
static cppnn_generation_result* generate(cppnn_language_model* m, const char* prompt,
                                         const cppnn_generation_options* o, Text* pieces) {
  cppnn_error* e = NULL;
  cppnn_generator* g = NULL;
  if (!OK(cppnn_generator_create(m, &g, &e))) return NULL;
  cppnn_generation_result* r = NULL;
  if (!OK(cppnn_generator_generate(g, prompt, o, pieces ? collect : NULL, pieces, &r, &e)))
    r = NULL;
  cppnn_generator_destroy(g);
  return r;
}

static void test_generation(cppnn_language_model* m) {
  cppnn_error* e = NULL;
  const char* prompt = "The capital of France is";
  cppnn_generation_options o = greedy(12);
  Text pieces = {0};
  cppnn_generation_result* r = generate(m, prompt, &o, &pieces);
  if (!r) return;
  size_t length = 0, count = 0;
  const char* text = cppnn_generation_result_text(r, &length);
  const int32_t* tokens = cppnn_generation_result_tokens(r, &count);
  CHECK(count == 12 && tokens != NULL);
  CHECK(strcmp(cppnn_generation_result_finish_reason(r), "length") == 0);
  /* The pieces concatenate to the text. */
  CHECK(pieces.size == length && (length == 0 || memcmp(pieces.data, text, length) == 0));
  cppnn_generation_stats s = cppnn_generation_result_stats(r);
  CHECK(s.generated_tokens == 12 && s.prompt_tokens > 0 && s.reused_tokens == 0);
  CHECK(s.prompt_seconds >= 0 && s.generate_seconds >= 0);

  /* Greedy generation is the same on another generator, and through the pull form. */
  cppnn_generation_result* r2 = generate(m, prompt, &o, NULL);
  if (r2) {
    size_t count2 = 0;
    const int32_t* tokens2 = cppnn_generation_result_tokens(r2, &count2);
    CHECK(count2 == count && memcmp(tokens, tokens2, count * sizeof(int32_t)) == 0);
    CHECK(result_text_is(r2, text, length));
    cppnn_generation_result_destroy(r2);
  }
  cppnn_generator* g = NULL;
  if (OK(cppnn_generator_create(m, &g, &e))) {
    cppnn_generation_result* before = NULL;
    CHECK_FAILS(cppnn_generator_result(g, &before, &e), CPPNN_INVALID_STATE_ERROR,
                "no generation was started");
    const char* piece = NULL;
    size_t piece_length = 0;
    bool done = false;
    CHECK_FAILS(cppnn_generator_next(g, &piece, &piece_length, &done, &e),
                CPPNN_INVALID_STATE_ERROR, "no generation was started");
    Text pulled = {0};
    if (OK(cppnn_generator_start(g, prompt, &o, &e))) {
      for (int steps = 0; steps < 100; ++steps) {
        if (!OK(cppnn_generator_next(g, &piece, &piece_length, &done, &e)) || done) break;
        CHECK(piece_length > 0 && piece[piece_length] == '\0');
        text_append(&pulled, piece, piece_length);
      }
      CHECK(done && piece_length == 0);
      OK(cppnn_generator_next(g, &piece, &piece_length, &done, &e)); /* finished: stays done */
      CHECK(done);
      CHECK(pulled.size == length && (length == 0 || memcmp(pulled.data, text, length) == 0));
      cppnn_generation_result* pr = NULL;
      if (OK(cppnn_generator_result(g, &pr, &e))) {
        CHECK(result_text_is(pr, text, length));
        CHECK(strcmp(cppnn_generation_result_finish_reason(pr), "length") == 0);
        cppnn_generation_result_destroy(pr);
      }
      /* The context: the prompt's tokens and the generated ones. */
      size_t held = 0;
      OK(cppnn_generator_tokens(g, NULL, 0, &held, &e));
      CHECK(held == s.prompt_tokens + 12);
    }
    text_free(&pulled);

    /* Cancel in the middle: the finish reason says so and next() is done. */
    cppnn_generation_options more = greedy(12);
    if (OK(cppnn_generator_start(g, " and", &more, &e))) {
      OK(cppnn_generator_next(g, &piece, &piece_length, &done, &e));
      OK(cppnn_generator_cancel(g, &e));
      OK(cppnn_generator_next(g, &piece, &piece_length, &done, &e));
      CHECK(done);
      cppnn_generation_result* cr = NULL;
      if (OK(cppnn_generator_result(g, &cr, &e))) {
        CHECK(strcmp(cppnn_generation_result_finish_reason(cr), "cancelled") == 0);
        CHECK(cppnn_generation_result_stats(cr).generated_tokens >= 1);
        cppnn_generation_result_destroy(cr);
      }
    }
    /* Bad options fail before anything changes: the cancelled generation is still there. */
    CHECK_FAILS(cppnn_generator_start(g, "x", &(cppnn_generation_options){.top_p = 2}, &e),
                CPPNN_TYPE_ERROR, "top_p");
    OK(cppnn_generator_next(g, &piece, &piece_length, &done, &e));
    CHECK(done);
    /* A start that fails in the model (a prompt longer than the cache) leaves no generation to
     * continue. */
    char long_prompt[2 * 300 + 1];
    for (int i = 0; i < 300; ++i) memcpy(long_prompt + 2 * i, "x ", 2);
    long_prompt[2 * 300] = '\0';
    CHECK_FAILS(cppnn_generator_start(g, long_prompt, &more, &e), CPPNN_TYPE_ERROR,
                "exceed the context");
    CHECK_FAILS(cppnn_generator_next(g, &piece, &piece_length, &done, &e),
                CPPNN_INVALID_STATE_ERROR, "no generation was started");
    cppnn_generator_destroy(g);
  }

  /* A callback that stops after the first piece. */
  Text first = {.stop_after = 1};
  cppnn_generation_result* stopped = generate(m, prompt, &o, &first);
  if (stopped) {
    CHECK(first.pieces == 1);
    CHECK(strcmp(cppnn_generation_result_finish_reason(stopped), "cancelled") == 0);
    CHECK(result_text_is(stopped, first.data, first.size));
    CHECK(cppnn_generation_result_stats(stopped).generated_tokens < 12);
    cppnn_generation_result_destroy(stopped);
  }
  text_free(&first);

  /* A stop string (the second piece of the greedy text): the text ends before its first
   * occurrence. */
  if (pieces.second[0] != '\0') {
    const char* stop[] = {"never appears \x01", pieces.second};
    cppnn_generation_options so = greedy(12);
    so.stop = stop;
    so.stop_count = 2;
    Text streamed = {0};
    cppnn_generation_result* sr = generate(m, prompt, &so, &streamed);
    if (sr) {
      size_t cut = find_bytes(text, length, pieces.second);
      CHECK(strcmp(cppnn_generation_result_finish_reason(sr), "stop-string") == 0);
      CHECK(result_text_is(sr, text, cut));
      CHECK(streamed.size == cut);
      cppnn_generation_result_destroy(sr);
    }
    text_free(&streamed);
  } else {
    ++g_skipped;
  }

  /* Sampling with a seed: the same seed gives the same tokens. */
  cppnn_generation_options sampled = greedy(8);
  sampled.temperature = 0.9f;
  sampled.top_k = 40;
  sampled.top_p = 0.95f;
  sampled.repetition_penalty = 1.3f;
  sampled.has_seed = true;
  sampled.seed = 1234;
  cppnn_generation_result* s1 = generate(m, prompt, &sampled, NULL);
  cppnn_generation_result* s2 = generate(m, prompt, &sampled, NULL);
  if (s1 && s2) {
    size_t c1 = 0, c2 = 0;
    const int32_t* t1 = cppnn_generation_result_tokens(s1, &c1);
    const int32_t* t2 = cppnn_generation_result_tokens(s2, &c2);
    CHECK(c1 == 8 && c2 == 8 && memcmp(t1, t2, c1 * sizeof(int32_t)) == 0);
  }
  cppnn_generation_result_destroy(s1);
  cppnn_generation_result_destroy(s2);
  cppnn_generation_result_destroy(r);
  text_free(&pieces);
}

/* Two chat turns on one generator: the second keeps the first's cached tokens. */
static void test_chat(cppnn_language_model* m) {
  cppnn_error* e = NULL;
  cppnn_generator* g = NULL;
  if (!OK(cppnn_generator_create(m, &g, &e))) return;
  cppnn_generation_options o = greedy(6);
  const char* roles[] = {"user", "assistant", "user"};
  const char* contents[] = {"What is the capital of France?", NULL, "And of Spain?"};
  Text reply = {0};
  cppnn_generation_result* first = NULL;
  if (OK(cppnn_generator_chat(g, roles, contents, 1, &o, collect, &reply, &first, &e))) {
    cppnn_generation_stats s = cppnn_generation_result_stats(first);
    CHECK(s.reused_tokens == 0 && s.generated_tokens == 6);
    CHECK(result_text_is(first, reply.data ? reply.data : "", reply.size));
    /* The reply as the assistant's message, as a chat application sends it back. */
    contents[1] = reply.data ? reply.data : "";
    cppnn_generation_result* second = NULL;
    if (OK(cppnn_generator_chat(g, roles, contents, 3, &o, NULL, NULL, &second, &e))) {
      cppnn_generation_stats s2 = cppnn_generation_result_stats(second);
      CHECK(s2.reused_tokens > 0);
      CHECK(s2.reused_tokens >= s.prompt_tokens - 1);
      cppnn_generation_result_destroy(second);
    }
    /* The pull form of chat. */
    if (OK(cppnn_generator_start_chat(g, roles, contents, 3, &o, &e))) {
      const char* piece = NULL;
      size_t n = 0;
      bool done = false;
      int steps = 0;
      while (steps++ < 100 && OK(cppnn_generator_next(g, &piece, &n, &done, &e)) && !done) {
      }
      CHECK(done);
      cppnn_generation_result* third = NULL;
      if (OK(cppnn_generator_result(g, &third, &e))) {
        CHECK(cppnn_generation_result_stats(third).reused_tokens > 0);
        cppnn_generation_result_destroy(third);
      }
    }
  }
  cppnn_generation_result_destroy(first);
  text_free(&reply);
  cppnn_generator_destroy(g);
}

/* ---- Threads: two generators of one model at once ----------------------------------------- */

typedef struct ThreadRun {
  cppnn_language_model* model;
  cppnn_generation_result* result;
  int ok;
} ThreadRun;

static void* run_generator(void* arg) {
  ThreadRun* run = arg;
  cppnn_generator* g = NULL;
  cppnn_generation_options o = greedy(10);
  run->ok = cppnn_generator_create(run->model, &g, NULL) == CPPNN_OK &&
            cppnn_generator_generate(g, "Paris is the capital of", &o, NULL, NULL, &run->result,
                                     NULL) == CPPNN_OK;
  cppnn_generator_destroy(g);
  return NULL;
}

static void test_threads(cppnn_language_model* m) {
  ThreadRun runs[2] = {{m, NULL, 0}, {m, NULL, 0}};
  pthread_t threads[2];
  int started[2];
  for (int i = 0; i < 2; ++i)
    started[i] = pthread_create(&threads[i], NULL, run_generator, &runs[i]) == 0;
  for (int i = 0; i < 2; ++i)
    if (started[i]) pthread_join(threads[i], NULL);
  CHECK(started[0] && started[1] && runs[0].ok && runs[1].ok);
  ThreadRun alone = {m, NULL, 0};
  run_generator(&alone);
  CHECK(alone.ok);
  for (int i = 0; i < 2; ++i) {
    if (!runs[i].result || !alone.result) continue;
    size_t a = 0, b = 0;
    const int32_t* ta = cppnn_generation_result_tokens(runs[i].result, &a);
    const int32_t* tb = cppnn_generation_result_tokens(alone.result, &b);
    CHECK(a == 10 && a == b && memcmp(ta, tb, a * sizeof(int32_t)) == 0);
    cppnn_generation_result_destroy(runs[i].result);
  }
  cppnn_generation_result_destroy(alone.result);
}

/* ---- Errors ------------------------------------------------------------------------------- */

/* Writes `n` bytes to `path`; returns whether it could. */
static int write_file(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* A copy of the tiny model at `path` whose general.architecture is "gemma" instead of "llama". */
static int write_other_architecture(const char* path) {
  FILE* f = fopen(g_model_path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* bytes = malloc((size_t)size);
  int ok = bytes && fread(bytes, 1, (size_t)size, f) == (size_t)size;
  fclose(f);
  size_t key = ok ? find_bytes(bytes, (size_t)size, "general.architecture") : (size_t)size;
  /* The key, its value type (8: string, u32) and length (5, u64), then the value. */
  size_t value = key + strlen("general.architecture") + 4 + 8;
  ok = ok && value + 5 <= (size_t)size && memcmp(bytes + value, "llama", 5) == 0;
  if (ok) {
    memcpy(bytes + value, "gemma", 5);
    ok = write_file(path, bytes, (size_t)size);
  }
  free(bytes);
  return ok;
}

static void test_errors(cppnn_language_model* m) {
  cppnn_error* e = NULL;
  cppnn_language_model* out = NULL;
  char path[4096];

  /* Files: missing, a few bytes, an architecture cppnn does not run. */
  snprintf(path, sizeof path, "%s/missing.gguf", g_temp_dir);
  CHECK_FAILS(cppnn_language_model_load(path, NULL, &out, &e), CPPNN_DATA_ERROR, "missing.gguf");
  snprintf(path, sizeof path, "%s/truncated.gguf", g_temp_dir);
  CHECK(write_file(path, "GGUF\x03\x00\x00", 7));
  CHECK_FAILS(cppnn_language_model_load(path, NULL, &out, &e), CPPNN_DATA_ERROR, "truncated.gguf");
  snprintf(path, sizeof path, "%s/gemma.gguf", g_temp_dir);
  if (write_other_architecture(path)) {
    CHECK_FAILS(cppnn_language_model_load(path, NULL, &out, &e), CPPNN_NOT_SUPPORTED_ERROR,
                "architecture");
  } else {
    ++g_failed;
    fprintf(stderr, "capi_llm: could not write %s\n", path);
  }
  CHECK(out == NULL);

  /* Bad option values. */
  cppnn_language_model_options lo;
  cppnn_language_model_options_init(&lo);
  CHECK(lo.backend == NULL && lo.context_length == 0 && lo.prefill_chunk == 0 &&
        lo.num_threads == 0 && lo.tokenizer_path == NULL && lo.chat_template_path == NULL);
  lo.backend = "no-such-backend";
  CHECK_FAILS(cppnn_language_model_load(g_model_path, &lo, &out, &e), CPPNN_NOT_SUPPORTED_ERROR,
              "no-such-backend");
  cppnn_generation_options d;
  cppnn_generation_options_init(&d);
  CHECK(d.max_tokens == 256 && d.temperature == 0.0f && d.top_k == 0 && d.top_p == 1.0f &&
        d.repetition_penalty == 1.0f && d.repetition_window == 64 && !d.has_seed &&
        d.stop == NULL && d.stop_count == 0 && !d.ignore_eos);
  cppnn_generator* g = NULL;
  if (!OK(cppnn_generator_create(m, &g, &e))) return;
  cppnn_generation_options o = d;
  o.temperature = -1.0f;
  CHECK_FAILS(cppnn_generator_generate(g, "x", &o, NULL, NULL, NULL, &e), CPPNN_TYPE_ERROR,
              "temperature");
  o = d;
  o.temperature = NAN;
  CHECK_FAILS(cppnn_generator_start(g, "x", &o, &e), CPPNN_TYPE_ERROR, "temperature");
  o = d;
  o.top_p = 0.0f;
  CHECK_FAILS(cppnn_generator_start(g, "x", &o, &e), CPPNN_TYPE_ERROR, "top_p");
  o = d;
  o.repetition_penalty = INFINITY;
  CHECK_FAILS(cppnn_generator_start(g, "x", &o, &e), CPPNN_TYPE_ERROR, "repetition_penalty");
  o = d;
  const char* empty_stop[] = {"ok", ""};
  o.stop = empty_stop;
  o.stop_count = 2;
  CHECK_FAILS(cppnn_generator_start(g, "x", &o, &e), CPPNN_TYPE_ERROR, "stop[1] is empty");
  const char* null_stop[] = {NULL};
  o.stop = null_stop;
  o.stop_count = 1;
  CHECK_FAILS(cppnn_generator_start(g, "x", &o, &e), CPPNN_TYPE_ERROR, "stop[0] is NULL");
  o.stop = NULL;
  CHECK_FAILS(cppnn_generator_start(g, "x", &o, &e), CPPNN_TYPE_ERROR, "the stop strings");
  CHECK_FAILS(cppnn_generator_generate(g, "", NULL, NULL, NULL, NULL, &e), CPPNN_TYPE_ERROR,
              "empty");

  /* NULL arguments: a TypeError naming the argument. */
  const char* roles[] = {"user"};
  const char* contents[] = {NULL};
  int32_t ids[4];
  size_t count = 0;
  char* text = NULL;
  cppnn_generation_result* r = NULL;
  const char* piece = NULL;
  size_t length = 0;
  bool done = false;
  CHECK_FAILS(cppnn_language_model_load(NULL, NULL, &out, &e), CPPNN_TYPE_ERROR, "the path");
  CHECK_FAILS(cppnn_language_model_load(g_model_path, NULL, NULL, &e), CPPNN_TYPE_ERROR,
              "the result pointer");
  CHECK_FAILS(cppnn_language_model_tokenize(NULL, "x", true, true, ids, 4, &count, &e),
              CPPNN_TYPE_ERROR, "the model is NULL");
  CHECK_FAILS(cppnn_language_model_tokenize(m, NULL, true, true, ids, 4, &count, &e),
              CPPNN_TYPE_ERROR, "the text is NULL");
  CHECK_FAILS(cppnn_language_model_tokenize(m, "x", true, true, ids, 4, NULL, &e), CPPNN_TYPE_ERROR,
              "the count pointer is NULL");
  CHECK_FAILS(cppnn_language_model_tokenize(m, "x", true, true, NULL, 4, &count, &e),
              CPPNN_TYPE_ERROR, "NULL with a capacity");
  CHECK_FAILS(cppnn_language_model_detokenize(NULL, ids, 1, false, &text, NULL, &e),
              CPPNN_TYPE_ERROR, "the model is NULL");
  CHECK_FAILS(cppnn_language_model_detokenize(m, NULL, 1, false, &text, NULL, &e), CPPNN_TYPE_ERROR,
              "the ids is NULL");
  CHECK_FAILS(cppnn_language_model_detokenize(m, ids, 0, false, NULL, NULL, &e), CPPNN_TYPE_ERROR,
              "the result pointer");
  CHECK_FAILS(cppnn_language_model_apply_chat_template(m, roles, contents, 1, true, &text, &e),
              CPPNN_TYPE_ERROR, "contents[0] is NULL");
  CHECK_FAILS(cppnn_language_model_apply_chat_template(m, NULL, contents, 1, true, &text, &e),
              CPPNN_TYPE_ERROR, "the roles is NULL");
  CHECK_FAILS(cppnn_language_model_apply_chat_template(NULL, roles, contents, 0, true, &text, &e),
              CPPNN_TYPE_ERROR, "the model is NULL");
  CHECK_FAILS(cppnn_language_model_apply_chat_template(m, roles, contents, 0, true, NULL, &e),
              CPPNN_TYPE_ERROR, "the result pointer");
  cppnn_generator* none = NULL;
  CHECK_FAILS(cppnn_generator_create(NULL, &none, &e), CPPNN_TYPE_ERROR, "the model is NULL");
  CHECK_FAILS(cppnn_generator_create(m, NULL, &e), CPPNN_TYPE_ERROR, "the result pointer");
  CHECK_FAILS(cppnn_generator_generate(NULL, "x", NULL, NULL, NULL, &r, &e), CPPNN_TYPE_ERROR,
              "the generator is NULL");
  CHECK_FAILS(cppnn_generator_generate(g, NULL, NULL, NULL, NULL, &r, &e), CPPNN_TYPE_ERROR,
              "the prompt is NULL");
  CHECK_FAILS(cppnn_generator_chat(NULL, roles, contents, 0, NULL, NULL, NULL, &r, &e),
              CPPNN_TYPE_ERROR, "the generator is NULL");
  CHECK_FAILS(cppnn_generator_chat(g, roles, NULL, 1, NULL, NULL, NULL, &r, &e), CPPNN_TYPE_ERROR,
              "the contents is NULL");
  CHECK_FAILS(cppnn_generator_start(NULL, "x", NULL, &e), CPPNN_TYPE_ERROR,
              "the generator is NULL");
  CHECK_FAILS(cppnn_generator_start(g, NULL, NULL, &e), CPPNN_TYPE_ERROR, "the prompt is NULL");
  CHECK_FAILS(cppnn_generator_start_chat(NULL, roles, contents, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "the generator is NULL");
  CHECK_FAILS(cppnn_generator_start_chat(g, roles, contents, 1, NULL, &e), CPPNN_TYPE_ERROR,
              "contents[0] is NULL");
  CHECK_FAILS(cppnn_generator_next(NULL, &piece, &length, &done, &e), CPPNN_TYPE_ERROR,
              "the generator is NULL");
  CHECK_FAILS(cppnn_generator_next(g, NULL, &length, &done, &e), CPPNN_TYPE_ERROR,
              "the piece pointer");
  CHECK_FAILS(cppnn_generator_next(g, &piece, NULL, &done, &e), CPPNN_TYPE_ERROR,
              "the length pointer");
  CHECK_FAILS(cppnn_generator_next(g, &piece, &length, NULL, &e), CPPNN_TYPE_ERROR,
              "the done pointer");
  CHECK_FAILS(cppnn_generator_cancel(NULL, &e), CPPNN_TYPE_ERROR, "the generator is NULL");
  CHECK_FAILS(cppnn_generator_result(NULL, &r, &e), CPPNN_TYPE_ERROR, "the generator is NULL");
  CHECK_FAILS(cppnn_generator_result(g, NULL, &e), CPPNN_TYPE_ERROR, "the result pointer");
  CHECK_FAILS(cppnn_generator_append(NULL, ids, 1, false, NULL, 0, NULL, &e), CPPNN_TYPE_ERROR,
              "the generator is NULL");
  CHECK_FAILS(cppnn_generator_tokens(NULL, ids, 4, &count, &e), CPPNN_TYPE_ERROR,
              "the generator is NULL");
  CHECK_FAILS(cppnn_generator_rewind(NULL, 0, &e), CPPNN_TYPE_ERROR, "the generator is NULL");
  /* No error object wanted: the status alone. */
  CHECK(cppnn_generator_rewind(NULL, 0, NULL) == CPPNN_TYPE_ERROR);
  cppnn_generator_destroy(g);

  /* NULL handles in getters and destroy calls. */
  CHECK(cppnn_language_model_name(NULL) == NULL);
  CHECK(cppnn_language_model_architecture(NULL) == NULL);
  CHECK(cppnn_language_model_backend(NULL) == NULL);
  CHECK(cppnn_language_model_layers(NULL) == 0);
  CHECK(cppnn_language_model_vocabulary_size(NULL) == 0);
  CHECK(cppnn_language_model_context_length(NULL) == 0);
  CHECK(cppnn_language_model_prefill_chunk(NULL) == 0);
  CHECK(cppnn_language_model_note_count(NULL) == 0);
  CHECK(cppnn_language_model_note(NULL, 0) == NULL);
  count = 7;
  CHECK(cppnn_language_model_stop_tokens(NULL, &count) == NULL && count == 0);
  count = 7;
  CHECK(strcmp(cppnn_generation_result_text(NULL, &count), "") == 0 && count == 0);
  count = 7;
  CHECK(cppnn_generation_result_tokens(NULL, &count) == NULL && count == 0);
  CHECK(strcmp(cppnn_generation_result_finish_reason(NULL), "") == 0);
  CHECK(cppnn_generation_result_stats(NULL).generated_tokens == 0);
  cppnn_language_model_destroy(NULL);
  cppnn_generator_destroy(NULL);
  cppnn_generation_result_destroy(NULL);
  cppnn_language_model_options_init(NULL);
  cppnn_generation_options_init(NULL);
}

/* A generator keeps its model alive after the model's handle is released. */
static void test_lifetime(void) {
  cppnn_error* e = NULL;
  cppnn_language_model* m = load(NULL, &e);
  if (!m) return;
  cppnn_generator* g = NULL;
  int made = OK(cppnn_generator_create(m, &g, &e));
  cppnn_language_model_destroy(m);
  if (!made) return;
  cppnn_generation_options o = greedy(3);
  cppnn_generation_result* r = NULL;
  if (OK(cppnn_generator_generate(g, "Hello", &o, NULL, NULL, &r, &e)))
    CHECK(cppnn_generation_result_stats(r).generated_tokens == 3);
  cppnn_generator_destroy(g);
  /* A result outlives its generator. */
  size_t count = 0;
  CHECK(cppnn_generation_result_tokens(r, &count) != NULL && count == 3);
  cppnn_generation_result_destroy(r);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: capi_llm_test TINY.gguf TEMP_DIR\n");
    return 2;
  }
  g_model_path = argv[1];
  g_temp_dir = argv[2];
  cppnn_error* e = NULL;
  size_t backends = cppnn_backend_count();
  float* reference = NULL;
  size_t vocab = 0;
  for (size_t i = 0; i < backends; ++i) {
    const char* backend = cppnn_backend_name(i);
    fprintf(stderr, "capi_llm: the tiny model on %s\n", backend);
    cppnn_language_model* m = load(backend, &e);
    if (!m) continue;
    test_model(m, backend);
    /* Every backend's logits are close to the first one's. */
    float* logits = malloc(cppnn_language_model_vocabulary_size(m) * sizeof(float));
    if (test_logits(m, logits) > 0) {
      if (!reference) {
        reference = logits;
        logits = NULL;
        vocab = cppnn_language_model_vocabulary_size(m);
      } else if (vocab == cppnn_language_model_vocabulary_size(m)) {
        float worst = 0, largest = 0;
        for (size_t k = 0; k < vocab; ++k) {
          worst = fmaxf(worst, fabsf(logits[k] - reference[k]));
          largest = fmaxf(largest, fabsf(reference[k]));
        }
        fprintf(stderr, "capi_llm: %s logits within %g of %s's (largest %g)\n", backend,
                (double)worst, cppnn_backend_name(0), (double)largest);
        CHECK(worst <= 2e-2f * (1.0f + largest));
      }
    }
    free(logits);
    test_generation(m);
    test_chat(m);
    if (i == 0) {
      test_threads(m);
      test_errors(m);
    }
    cppnn_language_model_destroy(m);
  }
  free(reference);
  CHECK(backends >= 1);
  test_lifetime();
  printf("capi_llm: %d passed, %d failed, %d skipped\n", g_passed, g_failed, g_skipped);
  return g_failed == 0 ? 0 : 1;
}
