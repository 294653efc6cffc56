// convert-onnx --keep-dynamic (src/import/onnx/keep_dynamic.h) on a small BERT-like transformer
// encoder built here the way exporters write one: token, position (Range over Shape) and token
// type (ConstantOfShape) embeddings, an attention mask, multi-head attention with reshapes
// computed from Shape chains and transposes, layer normalization, GELU through Erf, and masked
// mean pooling. Converted once with seq kept dynamic up to 128, printed and read back as a .webnn
// file, then dispatched at seq = 7, 32, 128 and 7 again (from the cache) on every compiled-in
// backend, each result against ONNX Runtime on the original model (relative L2 <= 1e-4).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cppnn/formats.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "src/import/onnx/keep_dynamic.h"
#include "tests/import/onnx_model_builder.h"
#include "tests/temp_dir.h"

#if __has_include(<onnxruntime_cxx_api.h>)
#include <onnxruntime_cxx_api.h>
#define CPPNN_TEST_HAVE_ORT 1
#endif

namespace cppnn::testing {
namespace {

constexpr int64_t kVocab = 50, kHidden = 32, kHeads = 4, kHeadDim = 8, kFfn = 64, kMaxPos = 128;
constexpr int kLayers = 2;

// The encoder model (opset 17), inputs input_ids and attention_mask int64 [1, seq].
class EncoderModel {
 public:
  EncoderModel() {
    m_.input("input_ids", onnx::TensorProto_DataType_INT64, {1, -1}, {"", "seq"});
    m_.input("attention_mask", onnx::TensorProto_DataType_INT64, {1, -1}, {"", "seq"});
    weight("word_emb", {kVocab, kHidden}, 0.5f);
    weight("pos_emb", {kMaxPos, kHidden}, 0.5f);
    weight("type_emb", {2, kHidden}, 0.5f);
    m_.initializer_i64("i0", {0}, {}).initializer_i64("i1", {1}, {});
    m_.initializer_i64("ax0", {0}, {1}).initializer_i64("ax1", {1}, {1});
    m_.initializer_i64("ax2", {2}, {1}).initializer_i64("ax12", {1, 2}, {2});
    m_.initializer_i64("heads", {kHeads}, {1}).initializer_i64("hdim", {kHeadDim}, {1});
    m_.initializer_i64("hidden", {kHidden}, {1});
    m_.initializer_f32("one", {1.0f}, {}).initializer_f32("half", {0.5f}, {});
    m_.initializer_f32("neg", {-10000.0f}, {}).initializer_f32("sqrt2", {std::sqrt(2.0f)}, {});
    m_.initializer_f32("sqrtd", {std::sqrt(float{kHeadDim})}, {});
    // Embeddings: position ids from Range(0, seq), token types from ConstantOfShape.
    node("Shape", {"input_ids"}, {"ids_shape"});
    node("Gather", {"ids_shape", "i1"}, {"seq_len"});
    node("Range", {"i0", "seq_len", "i1"}, {"pos_ids"});
    node("Gather", {"pos_emb", "pos_ids"}, {"pos"});
    auto& cos = node("ConstantOfShape", {"ids_shape"}, {"type_ids"});
    auto* value = cos.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    value->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
    value->mutable_t()->add_dims(1);
    value->mutable_t()->add_int64_data(0);
    node("Gather", {"type_emb", "type_ids"}, {"types"});
    node("Gather", {"word_emb", "input_ids"}, {"words"});
    node("Add", {"words", "pos"}, {"e0"});
    node("Add", {"e0", "types"}, {"e1"});
    layer_norm("e1", "emb_ln", "x0");
    // The additive attention mask [1, 1, 1, seq].
    auto& cast = node("Cast", {"attention_mask"}, {"mask_f"});
    OnnxModelBuilder::attr_int(cast, "to", onnx::TensorProto_DataType_FLOAT);
    node("Unsqueeze", {"mask_f", "ax12"}, {"mask4"});
    node("Sub", {"one", "mask4"}, {"inv"});
    node("Mul", {"inv", "neg"}, {"mask_add"});
    std::string x = "x0";
    for (int l = 0; l < kLayers; ++l) x = layer(x, "l" + std::to_string(l));
    // Outputs: the last hidden state and the masked mean pooling.
    node("Identity", {x}, {"last_hidden_state"});
    node("Unsqueeze", {"mask_f", "ax2"}, {"mask3"});
    node("Mul", {x, "mask3"}, {"masked"});
    OnnxModelBuilder::attr_int(node("ReduceSum", {"masked", "ax1"}, {"sum"}), "keepdims", 0);
    node("ReduceSum", {"mask_f", "ax1"}, {"count"});
    node("Div", {"sum", "count"}, {"pooled"});
    m_.output("last_hidden_state").output("pooled");
  }

  std::string bytes() const { return m_.bytes(); }

 private:
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
    onnx::NodeProto& n = m_.node(op, in, out);
    n.set_name(out[0] + "_" + op);
    return n;
  }
  void weight(const std::string& name, std::vector<int64_t> dims, float scale) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    std::vector<float> v(n);
    for (float& f : v) f = scale * dist_(rng_);
    m_.initializer_f32(name, v, dims);
  }
  void layer_norm(const std::string& in, const std::string& p, const std::string& out) {
    std::vector<float> gamma(kHidden), beta(kHidden);
    for (auto& g : gamma) g = 1.0f + 0.1f * dist_(rng_);
    for (auto& b : beta) b = 0.1f * dist_(rng_);
    m_.initializer_f32(p + "_g", gamma, {kHidden}).initializer_f32(p + "_b", beta, {kHidden});
    auto& n = node("LayerNormalization", {in, p + "_g", p + "_b"}, {out});
    OnnxModelBuilder::attr_int(n, "axis", -1);
    auto* eps = n.add_attribute();
    eps->set_name("epsilon");
    eps->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    eps->set_f(1e-12f);
  }
  // y = x W + b.
  std::string dense(const std::string& x, const std::string& p, int64_t in, int64_t out) {
    weight(p + "_w", {in, out}, 1.0f / std::sqrt(static_cast<float>(in)));
    weight(p + "_b", {out}, 0.1f);
    node("MatMul", {x, p + "_w"}, {p + "_mm"});
    node("Add", {p + "_mm", p + "_b"}, {p + "_y"});
    return p + "_y";
  }
  // [1, seq, hidden] -> [1, heads, seq, head_dim] (perm [0, 2, 1, 3]) or its transpose for keys.
  std::string heads(const std::string& x, const std::string& p, std::vector<int64_t> perm) {
    node("Shape", {x}, {p + "_shape"});
    node("Gather", {p + "_shape", "i0"}, {p + "_b"});
    node("Gather", {p + "_shape", "i1"}, {p + "_s"});
    node("Unsqueeze", {p + "_b", "ax0"}, {p + "_b1"});
    node("Unsqueeze", {p + "_s", "ax0"}, {p + "_s1"});
    OnnxModelBuilder::attr_int(node("Concat", {p + "_b1", p + "_s1", "heads", "hdim"}, {p + "_ns"}),
                               "axis", 0);
    node("Reshape", {x, p + "_ns"}, {p + "_r"});
    OnnxModelBuilder::attr_ints(node("Transpose", {p + "_r"}, {p + "_t"}), "perm", perm);
    return p + "_t";
  }
  std::string layer(const std::string& x, const std::string& p) {
    const std::string q = heads(dense(x, p + "_q", kHidden, kHidden), p + "_qh", {0, 2, 1, 3});
    const std::string k = heads(dense(x, p + "_k", kHidden, kHidden), p + "_kh", {0, 2, 3, 1});
    const std::string v = heads(dense(x, p + "_v", kHidden, kHidden), p + "_vh", {0, 2, 1, 3});
    node("MatMul", {q, k}, {p + "_qk"});
    node("Div", {p + "_qk", "sqrtd"}, {p + "_sc"});
    node("Add", {p + "_sc", "mask_add"}, {p + "_scm"});
    OnnxModelBuilder::attr_int(node("Softmax", {p + "_scm"}, {p + "_pr"}), "axis", -1);
    node("MatMul", {p + "_pr", v}, {p + "_ctx"});
    OnnxModelBuilder::attr_ints(node("Transpose", {p + "_ctx"}, {p + "_ct"}), "perm", {0, 2, 1, 3});
    // Back to [1, seq, hidden] with a shape computed from the input.
    node("Shape", {x}, {p + "_xs"});
    node("Gather", {p + "_xs", "i0"}, {p + "_xb"});
    node("Gather", {p + "_xs", "i1"}, {p + "_xq"});
    node("Unsqueeze", {p + "_xb", "ax0"}, {p + "_xb1"});
    node("Unsqueeze", {p + "_xq", "ax0"}, {p + "_xq1"});
    OnnxModelBuilder::attr_int(node("Concat", {p + "_xb1", p + "_xq1", "hidden"}, {p + "_bs"}),
                               "axis", 0);
    node("Reshape", {p + "_ct", p + "_bs"}, {p + "_merged"});
    const std::string o = dense(p + "_merged", p + "_o", kHidden, kHidden);
    node("Add", {o, x}, {p + "_res1"});
    layer_norm(p + "_res1", p + "_ln1", p + "_x1");
    const std::string h = dense(p + "_x1", p + "_f1", kHidden, kFfn);
    node("Div", {h, "sqrt2"}, {p + "_hs"});
    node("Erf", {p + "_hs"}, {p + "_erf"});
    node("Add", {p + "_erf", "one"}, {p + "_erf1"});
    node("Mul", {h, p + "_erf1"}, {p + "_hg"});
    node("Mul", {p + "_hg", "half"}, {p + "_gelu"});
    const std::string f = dense(p + "_gelu", p + "_f2", kFfn, kHidden);
    node("Add", {f, p + "_x1"}, {p + "_res2"});
    layer_norm(p + "_res2", p + "_ln2", p + "_out");
    return p + "_out";
  }

  OnnxModelBuilder m_;
  std::mt19937 rng_{1234};
  std::uniform_real_distribution<float> dist_{-1.0f, 1.0f};
};

// Token ids and a mask with the last tokens padded (0).
struct EncoderInputs {
  std::vector<int64_t> ids, mask;
};
EncoderInputs inputs_of(uint32_t seq) {
  EncoderInputs in;
  std::mt19937 rng(seq);
  for (uint32_t i = 0; i < seq; ++i) {
    in.ids.push_back(static_cast<int64_t>(rng() % kVocab));
    in.mask.push_back(i + 2 < seq || seq <= 2 ? 1 : 0);
  }
  return in;
}

double rel_l2(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (double{got[i]} - want[i]) * (double{got[i]} - want[i]);
    den += double{want[i]} * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-30));
}

#ifdef CPPNN_TEST_HAVE_ORT
// ONNX Runtime on the original model: {last_hidden_state, pooled}.
std::vector<std::vector<float>> run_ort(const std::string& model, const EncoderInputs& in) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "keep_dynamic_test");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  Ort::Session session(env, model.data(), model.size(), options);
  Ort::MemoryInfo mem = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  const std::vector<int64_t> shape = {1, static_cast<int64_t>(in.ids.size())};
  std::vector<Ort::Value> values;
  values.push_back(Ort::Value::CreateTensor<int64_t>(mem, const_cast<int64_t*>(in.ids.data()),
                                                     in.ids.size(), shape.data(), shape.size()));
  values.push_back(Ort::Value::CreateTensor<int64_t>(mem, const_cast<int64_t*>(in.mask.data()),
                                                     in.mask.size(), shape.data(), shape.size()));
  const char* in_names[] = {"input_ids", "attention_mask"};
  const char* out_names[] = {"last_hidden_state", "pooled"};
  auto outs = session.Run(Ort::RunOptions{nullptr}, in_names, values.data(), 2, out_names, 2);
  std::vector<std::vector<float>> r;
  for (auto& o : outs) {
    const float* p = o.GetTensorData<float>();
    r.emplace_back(p, p + o.GetTensorTypeAndShapeInfo().GetElementCount());
  }
  return r;
}

TEST(KeepDynamicEncoder, MatchesOnnxRuntimeAtEverySequenceLength) {
  const std::string model = EncoderModel().bytes();
  TempDir dir;
  const std::filesystem::path path = dir.path() / "encoder.onnx";
  std::ofstream(path, std::ios::binary) << model;
  const Graph g = onnx_import::onnx_to_dynamic_graph(path, {}, {{"seq", 128}});
  // Printed and read back (symbolic sizes in the file), weights inline.
  GraphFileOptions fo;
  fo.max_inline_bytes = UINT64_MAX;
  const std::string text = graph_to_webnn_text(g, fo);
  ASSERT_NE(text.find("dyn(\"seq\", 128)"), std::string::npos);
  for (const std::string& backend : available_backends()) {
    SCOPED_TRACE(backend);
    MLContext context = MLContext::create({.backend = backend});
    MLGraphBuilder builder(context);
    MLGraph graph = builder.build(load_graph_file(builder, text, "encoder.webnn"));
    for (uint32_t seq : {7u, 32u, 128u, 7u}) {
      SCOPED_TRACE("seq=" + std::to_string(seq));
      const EncoderInputs in = inputs_of(seq);
      const auto want = run_ort(model, in);
      const auto i64 = MLOperandDataType::kInt64;
      const auto f32 = MLOperandDataType::kFloat32;
      MLTensor ids = context.createTensor({i64, {1, seq}, false, true});
      MLTensor mask = context.createTensor({i64, {1, seq}, false, true});
      context.writeTensor(ids, in.ids);
      context.writeTensor(mask, in.mask);
      MLTensor hidden = context.createTensor({f32, {1, seq, kHidden}, true, false});
      MLTensor pooled = context.createTensor({f32, {1, kHidden}, true, false});
      context.dispatch(graph, {{"input_ids", ids}, {"attention_mask", mask}},
                       {{"last_hidden_state", hidden}, {"pooled", pooled}});
      EXPECT_LE(rel_l2(context.readTensor<float>(hidden), want[0]), 1e-4);
      EXPECT_LE(rel_l2(context.readTensor<float>(pooled), want[1]), 1e-4);
    }
    // 7 and 32 re-derived once each; 128 is the graph as built; the second 7 from the cache.
    EXPECT_EQ(graph.state()->dynamic->derivations, 2u);
  }
}
#endif

// A constant whose values (not only its extent) follow the dynamic dimension cannot be kept
// dynamic: a clear error naming it.
TEST(KeepDynamic, ValueComputedFromTheDimensionIsAnError) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_FLOAT, {-1}, {"seq"});
  m.initializer_i64("i0", {0}, {});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i0"}, {"n"});
  auto& cast = m.node("Cast", {"n"}, {"nf"});
  OnnxModelBuilder::attr_int(cast, "to", onnx::TensorProto_DataType_FLOAT);
  m.node("Mul", {"x", "nf"}, {"y"});
  m.output("y");
  TempDir dir;
  const std::filesystem::path path = dir.path() / "m.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  try {
    onnx_import::onnx_to_dynamic_graph(path, {}, {{"seq", 16}});
    FAIL() << "no error";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("has other values at seq = 15"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
