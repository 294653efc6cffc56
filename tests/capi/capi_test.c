/* The C API (include/cppnn/cppnn.h) from C11: a small convnet built, run and checked against a
 * plain C computation on every compiled-in backend, the generic call, files, and every error
 * path. Usage: capi_test SOURCE_DIR TEMP_DIR. Prints "capi: N passed, N failed, N skipped". */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "cppnn/cppnn.h"

static const char* g_source_dir;
static const char* g_temp_dir;

/* ---- The convnet: conv2d(3->4, 3x3, pad 1, bias) -> relu -> maxPool2d 2x2/2 -> reshape ->
 * gemm(64x5, c) -> softmax, on a 1x3x8x8 input. ---- */
enum { kC = 3, kH = 8, kW = 8, kF = 4, kK = 3, kP = 4, kFeatures = kF * kP * kP, kClasses = 5 };

typedef struct Weights {
  float input[kC * kH * kW];
  float filter[kF * kC * kK * kK];
  float bias[kF];
  float dense[kFeatures * kClasses];
  float dense_bias[kClasses];
} Weights;

/* Deterministic pseudo-random values in [-1, 1). */
static float next_value(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void make_weights(Weights* w) {
  unsigned s = 12345;
  for (size_t i = 0; i < sizeof w->input / sizeof(float); ++i) w->input[i] = next_value(&s);
  for (size_t i = 0; i < sizeof w->filter / sizeof(float); ++i) w->filter[i] = next_value(&s);
  for (size_t i = 0; i < kF; ++i) w->bias[i] = next_value(&s) * 0.1f;
  for (size_t i = 0; i < sizeof w->dense / sizeof(float); ++i) w->dense[i] = next_value(&s) * 0.3f;
  for (size_t i = 0; i < kClasses; ++i) w->dense_bias[i] = next_value(&s) * 0.1f;
}

/* The convnet in plain C, in double precision. */
static void expected_output(const Weights* w, double out[kClasses]) {
  double conv[kF][kH][kW];
  for (int f = 0; f < kF; ++f)
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        double sum = w->bias[f];
        for (int c = 0; c < kC; ++c)
          for (int ky = 0; ky < kK; ++ky)
            for (int kx = 0; kx < kK; ++kx) {
              int iy = y + ky - 1, ix = x + kx - 1;
              if (iy < 0 || iy >= kH || ix < 0 || ix >= kW) continue;
              sum += (double)w->input[(c * kH + iy) * kW + ix] *
                     w->filter[((f * kC + c) * kK + ky) * kK + kx];
            }
        conv[f][y][x] = sum > 0 ? sum : 0;
      }
  double features[kFeatures];
  for (int f = 0; f < kF; ++f)
    for (int y = 0; y < kP; ++y)
      for (int x = 0; x < kP; ++x) {
        double m = conv[f][2 * y][2 * x];
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx)
            if (conv[f][2 * y + dy][2 * x + dx] > m) m = conv[f][2 * y + dy][2 * x + dx];
        features[(f * kP + y) * kP + x] = m;
      }
  double logits[kClasses], max = -INFINITY, total = 0;
  for (int j = 0; j < kClasses; ++j) {
    double sum = w->dense_bias[j];
    for (int i = 0; i < kFeatures; ++i) sum += features[i] * w->dense[i * kClasses + j];
    logits[j] = sum;
    if (sum > max) max = sum;
  }
  for (int j = 0; j < kClasses; ++j) total += exp(logits[j] - max);
  for (int j = 0; j < kClasses; ++j) out[j] = exp(logits[j] - max) / total;
}

/* Builds the convnet with the typed helpers; NULL on failure (reported). */
static cppnn_graph* build_convnet(cppnn_context* ctx, const Weights* w) {
  cppnn_error* e = NULL;
  cppnn_builder* b = NULL;
  cppnn_graph* graph = NULL;
  if (!OK(cppnn_builder_create(ctx, &b, &e))) return NULL;
  const uint32_t in_shape[] = {1, kC, kH, kW}, f_shape[] = {kF, kC, kK, kK}, b_shape[] = {kF},
                 d_shape[] = {kFeatures, kClasses}, c_shape[] = {kClasses}, flat[] = {1, kFeatures};
  const cppnn_operand_descriptor in_d = {CPPNN_FLOAT32, in_shape, 4},
                                 f_d = {CPPNN_FLOAT32, f_shape, 4},
                                 b_d = {CPPNN_FLOAT32, b_shape, 1},
                                 d_d = {CPPNN_FLOAT32, d_shape, 2},
                                 c_d = {CPPNN_FLOAT32, c_shape, 1};
  cppnn_operand *x, *filter, *bias, *dense, *dense_bias, *conv, *relu, *pool, *reshaped, *logits,
      *probs;
  cppnn_conv2d_options conv_options;
  cppnn_conv2d_options_init(&conv_options);
  cppnn_pool2d_options pool_options;
  cppnn_pool2d_options_init(&pool_options);
  pool_options.window_dimensions[0] = pool_options.window_dimensions[1] = 2;
  pool_options.strides[0] = pool_options.strides[1] = 2;
  int ok =
      OK(cppnn_builder_input(b, "image", &in_d, &x, &e)) &&
      OK(cppnn_builder_constant(b, &f_d, w->filter, sizeof w->filter, &filter, &e)) &&
      OK(cppnn_builder_constant(b, &b_d, w->bias, sizeof w->bias, &bias, &e)) &&
      OK(cppnn_builder_constant(b, &d_d, w->dense, sizeof w->dense, &dense, &e)) &&
      OK(cppnn_builder_constant(b, &c_d, w->dense_bias, sizeof w->dense_bias, &dense_bias, &e));
  if (ok) {
    conv_options.padding[0] = conv_options.padding[1] = 1;
    conv_options.padding[2] = conv_options.padding[3] = 1;
    conv_options.bias = bias;
    conv_options.label = "stem";
    ok = OK(cppnn_builder_conv2d(b, x, filter, &conv_options, &conv, &e)) &&
         OK(cppnn_builder_unary(b, "relu", conv, &relu, &e)) &&
         OK(cppnn_builder_pool2d(b, "maxPool2d", relu, &pool_options, &pool, &e)) &&
         OK(cppnn_builder_reshape(b, pool, flat, 2, &reshaped, &e)) &&
         OK(cppnn_builder_gemm(b, reshaped, dense, dense_bias, 1.0, 1.0, false, false, &logits,
                               &e)) &&
         OK(cppnn_builder_softmax(b, logits, 1, &probs, &e));
  }
  if (ok) {
    cppnn_operand_descriptor d = cppnn_operand_get_descriptor(pool);
    CHECK(d.data_type == CPPNN_FLOAT32 && d.rank == 4 && d.shape[1] == kF && d.shape[2] == kP);
    const char* names[] = {"probabilities"};
    const cppnn_operand* outs[] = {probs};
    if (!OK(cppnn_builder_build(b, names, outs, 1, &graph, &e))) graph = NULL;
  }
  cppnn_builder_destroy(b);
  return graph;
}

/* Runs a graph with one float32 input and output; returns 1 on success. */
static int run_graph(cppnn_context* ctx, cppnn_graph* graph, const char* in_name, const float* in,
                     size_t in_count, const char* out_name, float* out, size_t out_count) {
  cppnn_error* e = NULL;
  cppnn_tensor_descriptor td_in =
      cppnn_graph_input_count(graph) > 0
          ? (cppnn_tensor_descriptor){CPPNN_FLOAT32, NULL, 0, false, true}
          : (cppnn_tensor_descriptor){0};
  cppnn_operand_descriptor gin = cppnn_graph_input_descriptor(graph, 0);
  cppnn_operand_descriptor gout = cppnn_graph_output_descriptor(graph, 0);
  td_in.shape = gin.shape;
  td_in.rank = gin.rank;
  cppnn_tensor_descriptor td_out = {CPPNN_FLOAT32, gout.shape, gout.rank, true, false};
  cppnn_tensor *t_in = NULL, *t_out = NULL;
  int ok = OK(cppnn_context_create_tensor(ctx, &td_in, &t_in, &e)) &&
           OK(cppnn_context_create_tensor(ctx, &td_out, &t_out, &e)) &&
           OK(cppnn_context_write_tensor(ctx, t_in, in, in_count * sizeof(float), &e));
  if (ok) {
    const char* in_names[] = {in_name};
    const char* out_names[] = {out_name};
    ok = OK(cppnn_context_dispatch(ctx, graph, in_names, &t_in, 1, out_names, &t_out, 1, &e)) &&
         OK(cppnn_context_read_tensor(ctx, t_out, out, out_count * sizeof(float), &e));
  }
  cppnn_tensor_destroy(t_in);
  cppnn_tensor_destroy(t_out);
  return ok;
}

static int close_to(const float* got, const double* want, size_t n, double tolerance) {
  for (size_t i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= tolerance)) {
      fprintf(stderr, "  element %zu: got %.9g, want %.9g\n", i, got[i], want[i]);
      return 0;
    }
  return 1;
}

/* The convnet on one backend: built, dispatched twice, saved and loaded back. */
static void test_convnet(const char* backend) {
  cppnn_error* e = NULL;
  cppnn_context_options options;
  cppnn_context_options_init(&options);
  options.backend = backend;
  cppnn_context* ctx = NULL;
  if (!OK(cppnn_context_create(&options, &ctx, &e))) return;
  CHECK(strcmp(cppnn_context_backend(ctx), backend) == 0);
  CHECK(!cppnn_context_is_lost(ctx));

  static Weights w;
  make_weights(&w);
  double want[kClasses];
  expected_output(&w, want);
  cppnn_graph* graph = build_convnet(ctx, &w);
  if (graph) {
    CHECK(cppnn_graph_input_count(graph) == 1 && cppnn_graph_output_count(graph) == 1);
    CHECK(strcmp(cppnn_graph_input_name(graph, 0), "image") == 0);
    CHECK(strcmp(cppnn_graph_output_name(graph, 0), "probabilities") == 0);
    CHECK(cppnn_graph_input_name(graph, 1) == NULL);
    float got[kClasses] = {0};
    for (int round = 0; round < 2; ++round)
      if (run_graph(ctx, graph, "image", w.input, kC * kH * kW, "probabilities", got, kClasses))
        CHECK(close_to(got, want, kClasses, 1e-5));

    /* Saved with its weights beside it, loaded back and run again. */
    char path[4096];
    snprintf(path, sizeof path, "%s/convnet-%s.webnn", g_temp_dir, backend);
    if (OK(cppnn_graph_save(graph, path, "convnet", 64, &e))) {
      cppnn_graph* loaded = NULL;
      if (OK(cppnn_load_graph(ctx, path, NULL, NULL, &loaded, &e))) {
        float again[kClasses] = {0};
        if (run_graph(ctx, loaded, "image", w.input, kC * kH * kW, "probabilities", again,
                      kClasses))
          CHECK(close_to(again, want, kClasses, 1e-5));
        cppnn_graph_destroy(loaded);
      }
    }
    char* text = NULL;
    if (OK(cppnn_graph_to_text(graph, false, 64, &text, &e))) {
      CHECK(strstr(text, "conv2d") != NULL && strstr(text, "@weights") != NULL);
      cppnn_string_free(text);
    }
    cppnn_graph_destroy(graph);
  }
  cppnn_context_destroy(ctx);
}

/* The generic call: several outputs, JSON options, typed dictionaries with operands, 64-bit
 * integers, and too little room for the outputs. */
static void test_generic_call(void) {
  cppnn_error* e = NULL;
  cppnn_context_options options;
  cppnn_context_options_init(&options);
  options.backend = "reference";
  cppnn_context* ctx = NULL;
  cppnn_builder* b = NULL;
  if (!OK(cppnn_context_create(&options, &ctx, &e))) return;
  if (!OK(cppnn_builder_create(ctx, &b, &e))) {
    cppnn_context_destroy(ctx);
    return;
  }
  const uint32_t shape[] = {2, 6};
  const cppnn_operand_descriptor d = {CPPNN_FLOAT32, shape, 2};
  cppnn_operand* x = NULL;
  OK(cppnn_builder_input(b, "x", &d, &x, &e));

  /* split(x, 3, {axis: 1}) -> three [2, 2] outputs. */
  cppnn_member axis_member = {"axis", {.kind = CPPNN_VALUE_UINT64, .as.uint64 = 1}};
  cppnn_value split_args[] = {{.kind = CPPNN_VALUE_OPERAND, .as.operand = x},
                              {.kind = CPPNN_VALUE_DOUBLE, .as.number = 3},
                              {.kind = CPPNN_VALUE_OBJECT, .as.object = {&axis_member, 1}}};
  cppnn_operand* parts[3] = {NULL, NULL, NULL};
  size_t count = 0;
  if (OK(cppnn_builder_call(b, "split", split_args, 3, parts, 3, &count, &e))) {
    CHECK(count == 3);
    cppnn_operand_descriptor pd = cppnn_operand_get_descriptor(parts[2]);
    CHECK(pd.rank == 2 && pd.shape[0] == 2 && pd.shape[1] == 2);
  }
  CHECK_FAILS(cppnn_builder_call(b, "split", split_args, 3, parts, 2, &count, &e), CPPNN_TYPE_ERROR,
              "room was given for 2");
  CHECK(count == 3);

  /* transpose with options as JSON text. */
  cppnn_value transpose_args[] = {
      {.kind = CPPNN_VALUE_OPERAND, .as.operand = x},
      {.kind = CPPNN_VALUE_JSON, .as.string = "{\"permutation\": [1, 0], \"label\": \"t\"}"}};
  cppnn_operand* t = NULL;
  if (OK(cppnn_builder_call(b, "transpose", transpose_args, 2, &t, 1, NULL, &e))) {
    cppnn_operand_descriptor td = cppnn_operand_get_descriptor(t);
    CHECK(td.rank == 2 && td.shape[0] == 6 && td.shape[1] == 2);
  }
  /* Bad JSON, a spec conversion error, an unknown method, a bad kind. */
  cppnn_value bad_json[] = {{.kind = CPPNN_VALUE_OPERAND, .as.operand = x},
                            {.kind = CPPNN_VALUE_JSON, .as.string = "{\"permutation\": [1, "}};
  CHECK_FAILS(cppnn_builder_call(b, "transpose", bad_json, 2, &t, 1, NULL, &e), CPPNN_TYPE_ERROR,
              "invalid JSON");
  cppnn_value bad_perm[] = {{.kind = CPPNN_VALUE_OPERAND, .as.operand = x},
                            {.kind = CPPNN_VALUE_JSON, .as.string = "{\"permutation\": [0, 0]}"}};
  CHECK_FAILS(cppnn_builder_call(b, "transpose", bad_perm, 2, &t, 1, NULL, &e), CPPNN_TYPE_ERROR,
              "transpose");
  CHECK_FAILS(cppnn_builder_call(b, "frobnicate", split_args, 1, &t, 1, NULL, &e), CPPNN_TYPE_ERROR,
              "frobnicate");
  cppnn_value bad_kind[] = {{.kind = (cppnn_value_kind)42}};
  CHECK_FAILS(cppnn_builder_call(b, "relu", bad_kind, 1, &t, 1, NULL, &e), CPPNN_TYPE_ERROR,
              "not a cppnn_value_kind");
  /* A self-referencing array is cut off at the depth limit. */
  cppnn_value loop;
  loop.kind = CPPNN_VALUE_ARRAY;
  loop.as.array.items = &loop;
  loop.as.array.count = 1;
  cppnn_value loop_args[] = {{.kind = CPPNN_VALUE_OPERAND, .as.operand = x}, loop};
  CHECK_FAILS(cppnn_builder_call(b, "reshape", loop_args, 2, &t, 1, NULL, &e), CPPNN_TYPE_ERROR,
              "nested deeper");
  /* Exact 64-bit integers reach clamp's bounds on an int64 operand. */
  const cppnn_operand_descriptor d64 = {CPPNN_INT64, shape, 2};
  cppnn_operand* i64 = NULL;
  OK(cppnn_builder_input(b, "big", &d64, &i64, &e));
  cppnn_member bounds[] = {{"minValue", {.kind = CPPNN_VALUE_INT64, .as.int64 = -9007199254740993}},
                           {"maxValue", {.kind = CPPNN_VALUE_INT64, .as.int64 = 9007199254740993}}};
  cppnn_value clamp_args[] = {{.kind = CPPNN_VALUE_OPERAND, .as.operand = i64},
                              {.kind = CPPNN_VALUE_OBJECT, .as.object = {bounds, 2}}};
  cppnn_operand* clamped = NULL;
  if (OK(cppnn_builder_call(b, "clamp", clamp_args, 2, &clamped, 1, NULL, &e)))
    CHECK(cppnn_operand_get_descriptor(clamped).data_type == CPPNN_INT64);
  /* Typed helpers refuse ops of another signature. */
  CHECK_FAILS(cppnn_builder_binary(b, "relu", x, x, &t, &e), CPPNN_TYPE_ERROR, "two operands");
  CHECK_FAILS(cppnn_builder_unary(b, "add", x, &t, &e), CPPNN_TYPE_ERROR, "one operand");
  CHECK_FAILS(cppnn_builder_pool2d(b, "conv2d", x, NULL, &t, &e), CPPNN_TYPE_ERROR, "maxPool2d");
  cppnn_builder_destroy(b);
  cppnn_context_destroy(ctx);
}

/* Error paths of contexts, builders, tensors, graphs and files. */
static void test_errors(void) {
  cppnn_error* e = NULL;
  cppnn_context* ctx = NULL;
  cppnn_context_options options;
  cppnn_context_options_init(&options);
  options.backend = "no-such-backend";
  CHECK_FAILS(cppnn_context_create(&options, &ctx, &e), CPPNN_NOT_SUPPORTED_ERROR,
              "no-such-backend");
  options.backend = "reference";
  options.power_preference = (cppnn_power_preference)9;
  CHECK_FAILS(cppnn_context_create(&options, &ctx, &e), CPPNN_TYPE_ERROR, "power preference");
  CHECK_FAILS(cppnn_context_create(NULL, NULL, &e), CPPNN_TYPE_ERROR, "is NULL");
  /* Without an error pointer the status alone comes back. */
  CHECK(cppnn_context_create(NULL, NULL, NULL) == CPPNN_TYPE_ERROR);
  cppnn_data_type dt;
  CHECK_FAILS(cppnn_data_type_from_name("float33", &dt, &e), CPPNN_TYPE_ERROR, "float33");
  if (OK(cppnn_data_type_from_name("float16", &dt, &e))) CHECK(dt == CPPNN_FLOAT16);
  CHECK(strcmp(cppnn_data_type_name(CPPNN_UINT4), "uint4") == 0);
  CHECK(cppnn_data_type_name((cppnn_data_type)77) == NULL);

  options.power_preference = CPPNN_POWER_LOW_POWER;
  if (!OK(cppnn_context_create(&options, &ctx, &e))) return;
  char* limits = NULL;
  if (OK(cppnn_context_op_support_limits(ctx, &limits, &e))) {
    CHECK(strstr(limits, "\"conv2d\"") != NULL && strstr(limits, "preferredInputLayout"));
    cppnn_string_free(limits);
  }
  cppnn_builder* b = NULL;
  OK(cppnn_builder_create(ctx, &b, &e));
  const uint32_t shape[] = {2, 2};
  const cppnn_operand_descriptor d = {CPPNN_FLOAT32, shape, 2};
  cppnn_operand *x = NULL, *y = NULL, *c = NULL;
  OK(cppnn_builder_input(b, "x", &d, &x, &e));
  /* A repeated input name is accepted by input() and refused by build() when both are used. */
  cppnn_operand* x2 = NULL;
  OK(cppnn_builder_input(b, "x", &d, &x2, &e));
  CHECK_FAILS(cppnn_builder_input(b, NULL, &d, &y, &e), CPPNN_TYPE_ERROR, "name is NULL");
  const cppnn_operand_descriptor no_shape = {CPPNN_FLOAT32, NULL, 2};
  CHECK_FAILS(cppnn_builder_input(b, "z", &no_shape, &y, &e), CPPNN_TYPE_ERROR, "shape is NULL");
  const cppnn_operand_descriptor bad_type = {(cppnn_data_type)-3, shape, 2};
  CHECK_FAILS(cppnn_builder_input(b, "z", &bad_type, &y, &e), CPPNN_TYPE_ERROR,
              "not a cppnn_data_type");
  const float values[4] = {1, 2, 3, 4};
  CHECK_FAILS(cppnn_builder_constant(b, &d, values, 12, &c, &e), CPPNN_TYPE_ERROR, NULL);
  OK(cppnn_builder_constant(b, &d, values, sizeof values, &c, &e));
  const uint32_t other[] = {3, 5};
  const cppnn_operand_descriptor d35 = {CPPNN_FLOAT32, other, 2};
  cppnn_operand* z = NULL;
  OK(cppnn_builder_input(b, "z", &d35, &z, &e));
  CHECK_FAILS(cppnn_builder_binary(b, "add", x, z, &y, &e), CPPNN_TYPE_ERROR, "add");
  CHECK_FAILS(cppnn_builder_binary(b, "add", x, NULL, &y, &e), CPPNN_TYPE_ERROR, "b is NULL");
  cppnn_operand *sum = NULL, *both = NULL;
  OK(cppnn_builder_binary(b, "add", x, c, &sum, &e));
  OK(cppnn_builder_binary(b, "add", x, x2, &both, &e));
  const char* names[] = {"out", "out"};
  const cppnn_operand* outs[] = {sum, sum};
  cppnn_graph* graph = NULL;
  CHECK_FAILS(cppnn_builder_build(b, names, outs, 2, &graph, &e), CPPNN_TYPE_ERROR, "twice");
  CHECK_FAILS(cppnn_builder_build(b, names, outs, 0, &graph, &e), CPPNN_TYPE_ERROR, NULL);
  const cppnn_operand* both_outs[] = {both};
  CHECK_FAILS(cppnn_builder_build(b, names, both_outs, 1, &graph, &e), CPPNN_TYPE_ERROR, NULL);
  OK(cppnn_builder_build(b, names, outs, 1, &graph, &e));
  CHECK_FAILS(cppnn_builder_build(b, names, outs, 1, &graph, &e), CPPNN_INVALID_STATE_ERROR, NULL);
  CHECK_FAILS(cppnn_builder_binary(b, "add", x, c, &y, &e), CPPNN_INVALID_STATE_ERROR, NULL);

  /* Tensors: usage, sizes and bindings. */
  cppnn_tensor *in = NULL, *out = NULL, *unreadable = NULL;
  const cppnn_tensor_descriptor in_d = {CPPNN_FLOAT32, shape, 2, false, true};
  const cppnn_tensor_descriptor out_d = {CPPNN_FLOAT32, shape, 2, true, false};
  OK(cppnn_context_create_tensor(ctx, &in_d, &in, &e));
  OK(cppnn_context_create_tensor(ctx, &out_d, &out, &e));
  OK(cppnn_context_create_tensor(ctx, &in_d, &unreadable, &e));
  CHECK(cppnn_tensor_byte_length(in) == 16);
  cppnn_tensor_descriptor got = cppnn_tensor_get_descriptor(out);
  CHECK(got.readable && !got.writable && got.rank == 2 && got.shape[1] == 2);
  CHECK_FAILS(cppnn_context_write_tensor(ctx, in, values, 8, &e), CPPNN_TYPE_ERROR, NULL);
  CHECK_FAILS(cppnn_context_write_tensor(ctx, out, values, 16, &e), CPPNN_TYPE_ERROR, NULL);
  float result[4];
  CHECK_FAILS(cppnn_context_read_tensor(ctx, unreadable, result, 16, &e), CPPNN_TYPE_ERROR, NULL);
  OK(cppnn_context_write_tensor(ctx, in, values, sizeof values, &e));
  const char* in_names[] = {"x"};
  const char* wrong_names[] = {"y"};
  const char* out_names[] = {"out"};
  CHECK_FAILS(cppnn_context_dispatch(ctx, graph, wrong_names, &in, 1, out_names, &out, 1, &e),
              CPPNN_TYPE_ERROR, NULL);
  CHECK_FAILS(cppnn_context_dispatch(ctx, graph, in_names, &in, 1, out_names, NULL, 1, &e),
              CPPNN_TYPE_ERROR, "is NULL");
  if (OK(cppnn_context_dispatch(ctx, graph, in_names, &in, 1, out_names, &out, 1, &e)) &&
      OK(cppnn_context_read_tensor(ctx, out, result, sizeof result, &e)))
    CHECK(result[0] == 2 && result[3] == 8);

  /* A destroyed graph, then a lost context. */
  cppnn_graph* built = graph;
  cppnn_graph_destroy(built);
  cppnn_context_destroy(ctx);
  /* Handles made before stay valid: their use fails with InvalidStateError. */
  cppnn_tensor_destroy(in);
  cppnn_tensor_destroy(out);
  cppnn_tensor_destroy(unreadable);
  cppnn_builder_destroy(b);

  options.power_preference = CPPNN_POWER_DEFAULT;
  if (!OK(cppnn_context_create(&options, &ctx, &e))) return;
  cppnn_tensor* t = NULL;
  OK(cppnn_context_create_tensor(ctx, &in_d, &t, &e));
  cppnn_context* second = NULL;
  if (OK(cppnn_context_create(&options, &second, &e))) {
    CHECK_FAILS(cppnn_context_write_tensor(second, t, values, sizeof values, &e), CPPNN_TYPE_ERROR,
                NULL);
    cppnn_context_destroy(second);
  }
  cppnn_builder* b2 = NULL;
  OK(cppnn_builder_create(ctx, &b2, &e));

  /* Files: missing, malformed (with its line and column), not a regular file. */
  cppnn_graph* g = NULL;
  CHECK_FAILS(cppnn_load_graph(ctx, "/nonexistent/graph.webnn", NULL, NULL, &g, &e),
              CPPNN_DATA_ERROR, "/nonexistent/graph.webnn");
  char path[4096];
  snprintf(path, sizeof path, "%s/bad.webnn", g_temp_dir);
  FILE* f = fopen(path, "w");
  if (f) {
    fputs(
        "webnn_graph \"bad\" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = relu(x; }\n"
        "  outputs { y; }\n}\n",
        f);
    fclose(f);
    CHECK_FAILS(cppnn_load_graph(ctx, path, NULL, NULL, &g, &e), CPPNN_DATA_ERROR, "bad.webnn:3:");
  }
  CHECK_FAILS(cppnn_load_graph(ctx, g_temp_dir, NULL, NULL, &g, &e), CPPNN_DATA_ERROR, NULL);
  snprintf(path, sizeof path, "%s/tests/fuzz/corpus/onnx_import/add_initializer.onnx",
           g_source_dir);
  if (OK(cppnn_import_onnx(ctx, path, NULL, 0, &g, &e))) {
    CHECK(cppnn_graph_output_count(g) >= 1);
    cppnn_graph_destroy(g);
  }
  CHECK_FAILS(cppnn_import_onnx(ctx, g_temp_dir, NULL, 0, &g, &e), CPPNN_DATA_ERROR, NULL);

  cppnn_context_destroy(ctx);
  CHECK(cppnn_context_is_lost(NULL));
  const uint32_t s1[] = {1};
  const cppnn_operand_descriptor d1 = {CPPNN_FLOAT32, s1, 1};
  cppnn_operand* late = NULL;
  CHECK_FAILS(cppnn_builder_input(b2, "late", &d1, &late, &e), CPPNN_INVALID_STATE_ERROR, NULL);
  CHECK_FAILS(cppnn_builder_create(NULL, &b2, &e), CPPNN_TYPE_ERROR, "context is NULL");
  cppnn_builder_destroy(b2);
  cppnn_tensor_destroy(t);
  /* Destroying NULL is a no-op. */
  cppnn_context_destroy(NULL);
  cppnn_builder_destroy(NULL);
  cppnn_graph_destroy(NULL);
  cppnn_tensor_destroy(NULL);
  cppnn_error_destroy(NULL);
  cppnn_string_free(NULL);
}

/* Errors are per call: threads failing at once each get their own message. */
static void* fail_repeatedly(void* arg) {
  const char* name = (const char*)arg;
  int* mismatches = (int*)calloc(1, sizeof(int));
  for (int i = 0; i < 200; ++i) {
    cppnn_error* e = NULL;
    cppnn_data_type dt;
    if (cppnn_data_type_from_name(name, &dt, &e) != CPPNN_TYPE_ERROR || !e ||
        !strstr(cppnn_error_message(e), name))
      ++*mismatches;
    cppnn_error_destroy(e);
  }
  return mismatches;
}

static void test_threads(void) {
  const char* names[] = {"alpha-type", "beta-type", "gamma-type", "delta-type"};
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) pthread_create(&threads[i], NULL, fail_repeatedly, (void*)names[i]);
  for (int i = 0; i < 4; ++i) {
    void* result = NULL;
    pthread_join(threads[i], &result);
    CHECK(result != NULL && *(int*)result == 0);
    free(result);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: capi_test SOURCE_DIR TEMP_DIR\n");
    return 2;
  }
  g_source_dir = argv[1];
  g_temp_dir = argv[2];
  CHECK(strlen(cppnn_version()) > 0);
  size_t backends = cppnn_backend_count();
  CHECK(backends >= 1);
  CHECK(cppnn_backend_name(backends) == NULL);
  for (size_t i = 0; i < backends; ++i) {
    fprintf(stderr, "capi: convnet on %s\n", cppnn_backend_name(i));
    test_convnet(cppnn_backend_name(i));
  }
  /* The test-only backend (built with the test suite) runs it too. */
  cppnn_context_options minimal;
  cppnn_context_options_init(&minimal);
  minimal.backend = "minimal";
  cppnn_context* probe = NULL;
  if (cppnn_context_create(&minimal, &probe, NULL) == CPPNN_OK) {
    cppnn_context_destroy(probe);
    fprintf(stderr, "capi: convnet on minimal (test-only)\n");
    test_convnet("minimal");
  } else {
    ++g_skipped;
  }
  test_generic_call();
  test_errors();
  test_threads();
  printf("capi: %d passed, %d failed, %d skipped\n", g_passed, g_failed, g_skipped);
  return g_failed == 0 ? 0 : 1;
}
