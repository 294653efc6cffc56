// The LiteRT runtime wrapper (src/backends/litert/litert_runtime.h) on tiny .tflite models built
// here with the generated flatbuffers API: ADD of two float32 [2,3] inputs with and without a
// SignatureDef (signature key, names, order), CONV_2D against a direct NHWC convolution with 1
// and 3 XNNPACK threads (and the threads the process gains), bindings reused for the same
// pointers and replaced for new ones, unaligned pointers through staging copies, element types
// LiteRT binds (float16, int64, bool, scalars), and the errors: bytes that are not a model, a
// run LiteRT rejects (its own message), the wrong number of buffers.
#include "src/backends/litert/litert_runtime.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "tflite_subset_generated.h"

namespace cppnn::litert_runtime {
namespace {

using tflite::BuiltinOperator;
using tflite::BuiltinOptions;
using tflite::TensorType;
using Fbb = flatbuffers::FlatBufferBuilder;

// One tensor of a test model; `data` non-empty makes it a constant.
struct TensorDef {
  std::vector<int32_t> shape;
  TensorType type = TensorType::FLOAT32;
  std::string name;
  std::vector<uint8_t> data = {};
};

// One operator of a test model and its builtin options table.
struct OpDef {
  BuiltinOperator code;
  std::vector<int32_t> inputs, outputs;
  BuiltinOptions options_type = BuiltinOptions::NONE;
  std::function<flatbuffers::Offset<void>(Fbb&)> options = nullptr;
};

// A named signature input or output and its tensor.
struct SignatureIo {
  std::string name;
  uint32_t tensor;
};

// A one-subgraph model, with a SignatureDef when `signature_key` is set.
struct ModelDef {
  std::vector<TensorDef> tensors;
  std::vector<OpDef> ops;
  std::vector<int32_t> inputs, outputs;
  std::optional<std::string> signature_key = std::nullopt;
  std::vector<SignatureIo> signature_inputs = {}, signature_outputs = {};
};

std::vector<std::byte> build(const ModelDef& def) {
  Fbb fbb;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers{tflite::CreateBuffer(fbb)};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  for (const TensorDef& t : def.tensors) {
    uint32_t buffer = 0;
    if (!t.data.empty()) {
      fbb.ForceVectorAlignment(t.data.size(), 1, 16);
      buffer = uint32_t(buffers.size());
      buffers.push_back(tflite::CreateBuffer(fbb, fbb.CreateVector(t.data)));
    }
    tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(t.shape), t.type, buffer,
                                           fbb.CreateString(t.name)));
  }
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  for (const OpDef& op : def.ops) {
    const auto index = uint32_t(codes.size());
    codes.push_back(tflite::CreateOperatorCode(fbb, int8_t(op.code), 0, 1, op.code));
    const auto options = op.options ? op.options(fbb) : flatbuffers::Offset<void>();
    ops.push_back(tflite::CreateOperator(fbb, index, fbb.CreateVector(op.inputs),
                                         fbb.CreateVector(op.outputs), op.options_type, options));
  }
  const auto subgraph = tflite::CreateSubGraph(
      fbb, fbb.CreateVector(tensors), fbb.CreateVector(def.inputs), fbb.CreateVector(def.outputs),
      fbb.CreateVector(ops), fbb.CreateString("main"));
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<tflite::SignatureDef>>> sigs;
  if (def.signature_key) {
    auto maps = [&](const std::vector<SignatureIo>& ios) {
      std::vector<flatbuffers::Offset<tflite::TensorMap>> v;
      for (const SignatureIo& io : ios)
        v.push_back(tflite::CreateTensorMap(fbb, fbb.CreateString(io.name), io.tensor));
      return fbb.CreateVector(v);
    };
    const auto in = maps(def.signature_inputs);
    const auto out = maps(def.signature_outputs);
    sigs = fbb.CreateVector(std::vector{
        tflite::CreateSignatureDef(fbb, in, out, fbb.CreateString(*def.signature_key), 0)});
  }
  const auto model =
      tflite::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(std::vector{subgraph}),
                          0, fbb.CreateVector(buffers), 0, 0, sigs);
  tflite::FinishModelBuffer(fbb, model);
  const auto* p = reinterpret_cast<const std::byte*>(fbb.GetBufferPointer());
  return {p, p + fbb.GetSize()};
}

template <class T>
std::vector<uint8_t> raw(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Host memory aligned to 64 bytes (LiteRT's host-buffer alignment), `offset` bytes in.
class HostBuffer {
 public:
  explicit HostBuffer(size_t bytes, size_t offset = 0)
      : blocks_((bytes + offset) / sizeof(Block) + 1), offset_(offset) {}
  std::byte* data() { return reinterpret_cast<std::byte*>(blocks_.data()) + offset_; }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(data());
  }

 private:
  struct alignas(64) Block {
    std::byte b[64];
  };
  std::vector<Block> blocks_;
  size_t offset_;
};

ModelDef add_model(std::optional<std::string> key) {
  ModelDef def{.tensors = {{{2, 3}, TensorType::FLOAT32, "a"},
                           {{2, 3}, TensorType::FLOAT32, "b"},
                           {{2, 3}, TensorType::FLOAT32, "sum"}},
               .ops = {{BuiltinOperator::ADD,
                        {0, 1},
                        {2},
                        BuiltinOptions::AddOptions,
                        [](Fbb& f) { return tflite::CreateAddOptions(f).Union(); }}},
               .inputs = {0, 1},
               .outputs = {2},
               .signature_key = key};
  if (key) {
    def.signature_inputs = {{"x", 0}, {"y", 1}};
    def.signature_outputs = {{"z", 2}};
  }
  return def;
}

// Runs a model of float inputs and one float output on aligned buffers.
std::vector<float> run_floats(CompiledModel& model, const std::vector<std::vector<float>>& inputs) {
  std::vector<HostBuffer> in;
  std::vector<const std::byte*> in_ptrs;
  for (const auto& v : inputs) {
    in.emplace_back(v.size() * sizeof(float));
    std::memcpy(in.back().data(), v.data(), v.size() * sizeof(float));
  }
  for (auto& b : in) in_ptrs.push_back(b.data());
  HostBuffer out(model.output(0).byte_size);
  std::byte* out_ptr = out.data();
  model.run(in_ptrs, std::span(&out_ptr, 1));
  return {out.as<float>(), out.as<float>() + model.output(0).byte_size / sizeof(float)};
}

size_t process_threads() {
  size_t n = 0;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return 0;
  while (const dirent* e = readdir(dir))
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n;
}

TEST(LiteRtRuntime, ModelWithoutSignatureDefHasLiteRtsDefaultSignature) {
  const auto bytes = build(add_model(std::nullopt));
  CompiledModel model(bytes, 0);
  EXPECT_EQ(model.signature_key(), "<placeholder signature>");
  ASSERT_EQ(model.input_count(), 2u);
  ASSERT_EQ(model.output_count(), 1u);
  EXPECT_EQ(model.input(0).name, "a");
  EXPECT_EQ(model.input(1).name, "b");
  EXPECT_EQ(model.output(0).name, "sum");
  EXPECT_EQ(model.input(0).element_type, kLiteRtElementTypeFloat32);
  EXPECT_EQ(model.input(0).shape, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(model.input(0).byte_size, 24u);
  EXPECT_EQ(run_floats(model, {{1, 2, 3, 4, 5, 6}, {10, 20, 30, 40, 50, 60}}),
            (std::vector<float>{11, 22, 33, 44, 55, 66}));
}

TEST(LiteRtRuntime, SignatureDefNamesTheInputsAndOutputs) {
  const auto bytes = build(add_model("serving_default"));
  CompiledModel model(bytes, 0);
  EXPECT_EQ(model.signature_key(), "serving_default");
  EXPECT_EQ(model.input(0).name, "x");
  EXPECT_EQ(model.input(1).name, "y");
  EXPECT_EQ(model.output(0).name, "z");
  EXPECT_EQ(model.find_input("y"), 1u);
  EXPECT_EQ(model.find_output("z"), 0u);
  EXPECT_EQ(model.find_input("a"), std::nullopt);
  EXPECT_EQ(run_floats(model, {{1, 2, 3, 4, 5, 6}, {1, 1, 1, 1, 1, 1}}),
            (std::vector<float>{2, 3, 4, 5, 6, 7}));
}

// LiteRT lists a signature's inputs in the subgraph's input order, not the SignatureDef's.
TEST(LiteRtRuntime, SignatureInputsFollowTheSubgraphOrder) {
  ModelDef def{.tensors = {{{2}, TensorType::FLOAT32, "minuend"},
                           {{2}, TensorType::FLOAT32, "subtrahend"},
                           {{2}, TensorType::FLOAT32, "difference"}},
               .ops = {{BuiltinOperator::SUB,
                        {0, 1},
                        {2},
                        BuiltinOptions::SubOptions,
                        [](Fbb& f) { return tflite::CreateSubOptions(f).Union(); }}},
               .inputs = {0, 1},
               .outputs = {2},
               .signature_key = "serving_default",
               .signature_inputs = {{"second", 1}, {"first", 0}},
               .signature_outputs = {{"out", 2}}};
  const auto bytes = build(def);
  CompiledModel model(bytes, 0);
  EXPECT_EQ(model.input(0).name, "first");
  EXPECT_EQ(model.input(1).name, "second");
  EXPECT_EQ(run_floats(model, {{10, 20}, {1, 2}}), (std::vector<float>{9, 18}));
}

// NHWC input [1,5,5,2], OHWI filter [3,3,3,2], bias [3], SAME padding, stride 1, against the
// direct sum; the same with 3 XNNPACK threads.
TEST(LiteRtRuntime, Conv2dMatchesTheDirectSumWithOneAndThreeThreads) {
  const int h = 5, w = 5, ci = 2, co = 3;
  std::vector<float> filter(co * 3 * 3 * ci), bias{0.5f, -1.0f, 2.0f}, input(h * w * ci);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = float(int(i % 7) - 3) * 0.25f;
  for (size_t i = 0; i < input.size(); ++i) input[i] = float(int(i % 11) - 5);
  std::vector<float> expected(h * w * co);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int o = 0; o < co; ++o) {
        double s = bias[o];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx)
            for (int c = 0; c < ci; ++c) {
              const int iy = y + ky - 1, ix = x + kx - 1;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              s += double(input[(iy * w + ix) * ci + c]) * filter[((o * 3 + ky) * 3 + kx) * ci + c];
            }
        expected[(y * w + x) * co + o] = float(s);
      }
  ModelDef def{
      .tensors = {{{1, h, w, ci}, TensorType::FLOAT32, "input"},
                  {{co, 3, 3, ci}, TensorType::FLOAT32, "filter", raw(filter)},
                  {{co}, TensorType::FLOAT32, "bias", raw(bias)},
                  {{1, h, w, co}, TensorType::FLOAT32, "output"}},
      .ops = {{BuiltinOperator::CONV_2D,
               {0, 1, 2},
               {3},
               BuiltinOptions::Conv2DOptions,
               [](Fbb& f) {
                 return tflite::CreateConv2DOptions(f, tflite::Padding::SAME, 1, 1).Union();
               }}},
      .inputs = {0},
      .outputs = {3}};
  const auto bytes = build(def);
  for (int threads : {1, 3}) {
    CompiledModel model(bytes, threads);
    const auto got = run_floats(model, {input});
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], expected[i], 1e-4) << "threads " << threads << " element " << i;
  }
}

// The thread count reaches XNNPACK: its pool adds num_threads - 1 threads to the process while
// the model lives; LiteRT's default adds none.
TEST(LiteRtRuntime, NumThreadsSizesXnnpacksPool) {
  const auto bytes = build(add_model(std::nullopt));
  const size_t before = process_threads();
  ASSERT_GT(before, 0u);
  {
    CompiledModel model(bytes, 0);
    EXPECT_EQ(process_threads(), before);
  }
  {
    CompiledModel model(bytes, 3);
    EXPECT_EQ(process_threads(), before + 2);
    EXPECT_EQ(run_floats(model, {{1, 2, 3, 4, 5, 6}, {0, 0, 0, 0, 0, 0}}),
              (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
  EXPECT_EQ(process_threads(), before);
}

TEST(LiteRtRuntime, SamePointersReuseTheBindingsNewPointersReplaceThem) {
  const auto bytes = build(add_model(std::nullopt));
  CompiledModel model(bytes, 0);
  HostBuffer a(24), b(24), c(24), a2(24), c2(24);
  for (int i = 0; i < 6; ++i) {
    a.as<float>()[i] = float(i);
    b.as<float>()[i] = 100;
    a2.as<float>()[i] = float(-i);
  }
  std::vector<const std::byte*> in{a.data(), b.data()};
  std::vector<std::byte*> out{c.data()};
  model.run(in, out);
  EXPECT_EQ(model.buffers_created(), 3u);
  EXPECT_EQ(c.as<float>()[5], 105);
  a.as<float>()[5] = 1000;  // read again from the caller's memory
  model.run(in, out);
  EXPECT_EQ(model.buffers_created(), 3u);
  EXPECT_EQ(c.as<float>()[5], 1100);

  in[0] = a2.data();  // a new input pointer: one new binding
  model.run(in, out);
  EXPECT_EQ(model.buffers_created(), 4u);
  EXPECT_EQ(c.as<float>()[5], 95);
  out[0] = c2.data();  // a new output pointer: one more; c keeps its last result
  model.run(in, out);
  EXPECT_EQ(model.buffers_created(), 5u);
  EXPECT_EQ(c2.as<float>()[4], 96);
  EXPECT_EQ(c.as<float>()[5], 95);
  EXPECT_EQ(model.staged_copies(), 0u);
}

// Pointers off LiteRT's 64-byte alignment run through staging buffers, created once.
TEST(LiteRtRuntime, UnalignedPointersAreCopiedThroughStagingBuffers) {
  const auto bytes = build(add_model(std::nullopt));
  CompiledModel model(bytes, 0);
  HostBuffer a(24, 4), b(24, 8), c(24, 12);
  for (int i = 0; i < 6; ++i) {
    a.as<float>()[i] = float(i);
    b.as<float>()[i] = 0.5f;
  }
  std::vector<const std::byte*> in{a.data(), b.data()};
  std::vector<std::byte*> out{c.data()};
  model.run(in, out);
  EXPECT_EQ(model.buffers_created(), 3u);
  EXPECT_EQ(model.staged_copies(), 3u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.as<float>()[i], float(i) + 0.5f);
  b.as<float>()[0] = 7;
  model.run(in, out);
  EXPECT_EQ(model.buffers_created(), 3u);
  EXPECT_EQ(model.staged_copies(), 6u);
  EXPECT_EQ(c.as<float>()[0], 7);
}

// Element types of WebNN that LiteRT binds as host memory, through an elementwise op that
// LiteRT's builtin kernels or XNNPACK run for that type; a rank-0 (scalar) tensor too.
TEST(LiteRtRuntime, BindsFloat16Int64BoolAndScalars) {
  auto binary = [](TensorType type, std::vector<int32_t> shape, BuiltinOperator code,
                   BuiltinOptions options_type) {
    return build({.tensors = {{shape, type, "a"}, {shape, type, "b"}, {shape, type, "c"}},
                  .ops = {{code, {0, 1}, {2}, options_type, nullptr}},
                  .inputs = {0, 1},
                  .outputs = {2}});
  };
  {  // float16: 1.0 + 1.5 = 2.5 (0x3C00 + 0x3E00 = 0x4100)
    const auto bytes =
        binary(TensorType::FLOAT16, {2, 2}, BuiltinOperator::ADD, BuiltinOptions::AddOptions);
    CompiledModel model(bytes, 0);
    EXPECT_EQ(model.input(0).element_type, kLiteRtElementTypeFloat16);
    EXPECT_EQ(model.input(0).byte_size, 8u);
    HostBuffer a(8), b(8), c(8);
    for (int i = 0; i < 4; ++i) {
      a.as<uint16_t>()[i] = 0x3C00;
      b.as<uint16_t>()[i] = 0x3E00;
    }
    std::vector<const std::byte*> in{a.data(), b.data()};
    std::vector<std::byte*> out{c.data()};
    model.run(in, out);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(c.as<uint16_t>()[i], 0x4100);
  }
  {  // int64 beyond 32 bits
    const auto bytes =
        binary(TensorType::INT64, {3}, BuiltinOperator::ADD, BuiltinOptions::AddOptions);
    CompiledModel model(bytes, 0);
    EXPECT_EQ(model.input(0).byte_size, 24u);
    HostBuffer a(24), b(24), c(24);
    for (int i = 0; i < 3; ++i) {
      a.as<int64_t>()[i] = int64_t(1) << 40;
      b.as<int64_t>()[i] = -i;
    }
    std::vector<const std::byte*> in{a.data(), b.data()};
    std::vector<std::byte*> out{c.data()};
    model.run(in, out);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(c.as<int64_t>()[i], (int64_t(1) << 40) - i);
  }
  {  // bool, one byte per element
    const auto bytes = binary(TensorType::BOOL, {4}, BuiltinOperator::LOGICAL_AND,
                              BuiltinOptions::LogicalAndOptions);
    CompiledModel model(bytes, 0);
    EXPECT_EQ(model.input(0).element_type, kLiteRtElementTypeBool);
    EXPECT_EQ(model.input(0).byte_size, 4u);
    HostBuffer a(4), b(4), c(4);
    const uint8_t av[4] = {0, 1, 0, 1}, bv[4] = {0, 0, 1, 1};
    std::memcpy(a.data(), av, 4);
    std::memcpy(b.data(), bv, 4);
    std::vector<const std::byte*> in{a.data(), b.data()};
    std::vector<std::byte*> out{c.data()};
    model.run(in, out);
    EXPECT_EQ(c.as<uint8_t>()[0] + c.as<uint8_t>()[1] + c.as<uint8_t>()[2], 0);
    EXPECT_EQ(c.as<uint8_t>()[3], 1);
  }
  {  // a scalar: shape [], rank 0
    const auto bytes = binary(TensorType::FLOAT32, {}, BuiltinOperator::MAXIMUM,
                              BuiltinOptions::MaximumMinimumOptions);
    CompiledModel model(bytes, 0);
    EXPECT_TRUE(model.input(0).shape.empty());
    EXPECT_EQ(model.input(0).byte_size, 4u);
    EXPECT_EQ(run_floats(model, {{-2}, {3}}), std::vector<float>{3});
  }
}

TEST(LiteRtRuntime, BytesThatAreNotAModelThrowOperationError) {
  const std::string junk = "this is not a TFLite flatbuffer, just some bytes";
  const std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(junk.data()),
                                     reinterpret_cast<const std::byte*>(junk.data()) + junk.size());
  try {
    CompiledModel model(bytes, 0);
    FAIL() << "no exception";
  } catch (const OperationError& e) {
    EXPECT_NE(std::string(e.what()).find("loading the model: invalid flatbuffer"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(CompiledModel(std::span<const std::byte>(), 0), OperationError);
}

// Shape and type checks of TFLite kernels happen at the first run: LiteRT compiles this model,
// and its run fails with TFLite's own message.
TEST(LiteRtRuntime, ARunLiteRtRejectsThrowsWithLiteRtsMessage) {
  const auto bytes =
      build({.tensors = {{{2}, TensorType::UINT32, "a"},
                         {{2}, TensorType::UINT32, "b"},
                         {{2}, TensorType::UINT32, "c"}},
             .ops = {{BuiltinOperator::ADD, {0, 1}, {2}, BuiltinOptions::AddOptions, nullptr}},
             .inputs = {0, 1},
             .outputs = {2}});
  CompiledModel model(bytes, 0);
  HostBuffer a(8), b(8), c(8);
  std::vector<const std::byte*> in{a.data(), b.data()};
  std::vector<std::byte*> out{c.data()};
  for (int attempt = 0; attempt < 2; ++attempt) {  // the messages do not pile up
    try {
      model.run(in, out);
      FAIL() << "no exception";
    } catch (const OperationError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("running the model: runtime failure"), std::string::npos) << what;
      EXPECT_NE(what.find("Type UINT32 is unsupported by op Add"), std::string::npos) << what;
      EXPECT_EQ(what.find("UINT32", what.find("UINT32") + 1), std::string::npos) << what;
    }
  }
}

TEST(LiteRtRuntime, TheWrongNumberOfBuffersThrowsOperationError) {
  const auto bytes = build(add_model(std::nullopt));
  CompiledModel model(bytes, 0);
  HostBuffer a(24), c(24);
  std::vector<const std::byte*> in{a.data()};
  std::vector<std::byte*> out{c.data()};
  EXPECT_THROW(model.run(in, out), OperationError);
  in.push_back(nullptr);
  EXPECT_THROW(model.run(in, out), OperationError);
}

}  // namespace
}  // namespace cppnn::litert_runtime
