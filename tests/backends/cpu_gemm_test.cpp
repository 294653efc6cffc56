// The cpu backend's blocked float32 GEMM (src/backends/cpu/gemm.h) called directly, against a
// naive double-precision product: shapes around the register tile (12 × 32) and the depth and
// column blocks (256), row bias, accumulation into C, fused epilogues, a wider C (ldc > n) whose
// other columns must stay as they were, strided and transposed A and B, and the thread split
// (no pool, a 1-thread and a 3-thread pool), B rows read in place (RowsBPacker). Also the packed
// formats PackedA and MatrixBPacker document. Every element within 1e-5 of the sum of |products| (+
// |bias| + |C|) + 1e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/packed_weights.h"
#include "src/backends/cpu/thread_pool.h"

namespace cppnn::cpu {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// How a matrix is stored.
enum class Layout {
  kRowMajor,    // (r, c) at r·cols + c
  kTransposed,  // (r, c) at c·rows + r
  kPaddedRows,  // (r, c) at r·(cols + 5) + c
  kEveryOther,  // (r, c) at r·(2·cols + 3) + 2·c
};

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::kRowMajor:
      return "row-major";
    case Layout::kTransposed:
      return "transposed";
    case Layout::kPaddedRows:
      return "padded-rows";
    case Layout::kEveryOther:
      return "every-other";
  }
  return "?";
}

// A rows × cols matrix in a buffer: element (r, c) at data[r·rs + c·cs]. The elements of the
// buffer that are not part of the matrix hold NaN, so a read of one shows in the product.
struct Strided {
  std::vector<float> data;
  size_t rs = 0, cs = 0;
  float at(size_t r, size_t c) const { return data[r * rs + c * cs]; }
};

Strided random_matrix(size_t rows, size_t cols, Layout layout, std::mt19937& rng) {
  Strided m;
  switch (layout) {
    case Layout::kRowMajor:
      m.rs = cols;
      m.cs = 1;
      break;
    case Layout::kTransposed:
      m.rs = 1;
      m.cs = rows;
      break;
    case Layout::kPaddedRows:
      m.rs = cols + 5;
      m.cs = 1;
      break;
    case Layout::kEveryOther:
      m.rs = 2 * cols + 3;
      m.cs = 2;
      break;
  }
  const size_t size = rows == 0 || cols == 0 ? 1 : (rows - 1) * m.rs + (cols - 1) * m.cs + 1;
  m.data.assign(size + 3, kNaN);
  const std::vector<float> v = random_values(rows * cols, rng);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) m.data[r * m.rs + c * m.cs] = v[r * cols + c];
  return m;
}

enum class Act { kNone, kRelu, kClamp, kReluThenClamp };

const char* act_name(Act a) {
  switch (a) {
    case Act::kNone:
      return "none";
    case Act::kRelu:
      return "relu";
    case Act::kClamp:
      return "clamp";
    case Act::kReluThenClamp:
      return "relu+clamp";
  }
  return "?";
}

constexpr float kClampMin = -0.75f, kClampMax = 1.25f;

Epilogue make_epilogue(Act act) {
  Epilogue e;
  const Epilogue::Step relu{Epilogue::Kind::kRelu, 0, 0};
  const Epilogue::Step clamp{Epilogue::Kind::kClamp, kClampMin, kClampMax};
  switch (act) {
    case Act::kNone:
      break;
    case Act::kRelu:
      e.steps[e.count++] = relu;
      break;
    case Act::kClamp:
      e.steps[e.count++] = clamp;
      break;
    case Act::kReluThenClamp:
      e.steps[e.count++] = relu;
      e.steps[e.count++] = clamp;
      break;
  }
  return e;
}

double apply_act(Act act, double v) {
  if (act == Act::kRelu || act == Act::kReluThenClamp) v = v < 0 ? 0 : v;
  if (act == Act::kClamp || act == Act::kReluThenClamp)
    v = v < kClampMin ? kClampMin : (v > kClampMax ? kClampMax : v);
  return v;
}

struct GemmCase {
  size_t m = 1, n = 1, k = 1;
  Layout a_layout = Layout::kRowMajor, b_layout = Layout::kRowMajor;
  float scale = 1.0f;  // PackedA::pack's scale
  bool bias = false, accumulate = false;
  Act act = Act::kNone;
  size_t ldc_pad = 0;  // ldc = n + ldc_pad
  ThreadPool* pool = nullptr;
  bool rows_packer = false;  // B through RowsBPacker (read in place) instead of MatrixBPacker
  bool packed_b = false;     // B packed once (PackedB, a constant weight) from MatrixBPacker

  std::string name() const {
    return "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
           " A " + layout_name(a_layout) + " B " + layout_name(b_layout) +
           " scale=" + std::to_string(scale) + (bias ? " row_bias" : "") +
           (accumulate ? " accumulate" : "") + " epilogue=" + act_name(act) + " ldc=n+" +
           std::to_string(ldc_pad) +
           " threads=" + (pool ? std::to_string(pool->size()) : std::string("none")) +
           (rows_packer ? " RowsBPacker" : "") + (packed_b ? " PackedB" : "");
  }
};

// Runs the case and compares with the naive product; returns the number of bad elements.
size_t check_gemm(const GemmCase& g, std::mt19937& rng) {
  SCOPED_TRACE(g.name());
  const Strided a = random_matrix(g.m, g.k, g.a_layout, rng);
  const Strided b = random_matrix(g.k, g.n, g.b_layout, rng);
  const std::vector<float> bias = random_values(g.m, rng);
  const size_t ldc = g.n + g.ldc_pad;
  const std::vector<float> before = random_values(g.m * ldc, rng);
  std::vector<float> c = before;
  const PackedA pa = PackedA::pack(a.data.data(), g.m, g.k, a.rs, a.cs, g.scale);
  EXPECT_EQ(pa.rows, g.m);
  EXPECT_EQ(pa.depth, g.k);
  const MatrixBPacker matrix_bp(b.data.data(), b.rs, b.cs);
  // The rows packer's buffer ends right after the matrix's last element, so that a read past it
  // (the last row's last partial panel, which it must pack) is an ASan error.
  const std::vector<float> b_rows(b.data.begin(),
                                  b.data.end() - (g.rows_packer && g.k && g.n ? 3 : 0));
  const RowsBPacker rows_bp(b_rows.data(), g.k, g.n, b.rs);
  std::optional<PackedB> packed_bp;
  if (g.packed_b) packed_bp.emplace(matrix_bp, g.k, g.n);
  const BPacker& bp = g.rows_packer ? static_cast<const BPacker&>(rows_bp)
                      : packed_bp   ? static_cast<const BPacker&>(*packed_bp)
                                    : matrix_bp;
  const Epilogue e = make_epilogue(g.act);
  GemmOutput out;
  out.c = c.data();
  out.ldc = ldc;
  out.row_bias = g.bias ? bias.data() : nullptr;
  out.accumulate = g.accumulate;
  out.epilogue = g.act == Act::kNone ? nullptr : &e;
  gemm(pa, bp, g.n, out, g.pool);
  size_t bad = 0;
  for (size_t i = 0; i < g.m; ++i) {
    for (size_t j = 0; j < ldc; ++j) {
      const float got = c[i * ldc + j];
      if (j >= g.n) {  // past the product's columns: untouched
        if (std::memcmp(&got, &before[i * ldc + j], sizeof(float)) != 0 && bad++ < 5)
          ADD_FAILURE() << "c(" << i << ", " << j << ") past column n changed from "
                        << before[i * ldc + j] << " to " << got;
        continue;
      }
      double sum = 0, mag = 0;
      for (size_t l = 0; l < g.k; ++l) {
        const double p = double(a.at(i, l)) * double(g.scale) * double(b.at(l, j));
        sum += p;
        mag += std::fabs(p);
      }
      if (g.accumulate) {
        sum += before[i * ldc + j];
        mag += std::fabs(before[i * ldc + j]);
      } else if (g.bias) {
        sum += bias[i];
        mag += std::fabs(bias[i]);
      }
      const double want = apply_act(g.act, sum);
      const double tol = 1e-5 * mag + 1e-6;
      if (!(std::fabs(double(got) - want) <= tol) && bad++ < 5)
        ADD_FAILURE() << "c(" << i << ", " << j << "): got " << got << ", want " << want
                      << " (tolerance " << tol << ")";
    }
  }
  return bad;
}

const size_t kMs[] = {1, 5, 12, 13, 25};
const size_t kNs[] = {1, 7, 31, 32, 33, 257, 600};
const size_t kKs[] = {0, 1, 3, 255, 256, 257, 600};

class CpuGemm : public ::testing::Test {
 protected:
  // No pool, a pool of one thread (the caller only) and one of three.
  std::vector<ThreadPool*> pools() { return {nullptr, one_.get(), three_.get()}; }

  // check_gemm for every (m, n, k) of kMs × kNs × kKs on `pool`, each case set further by `adjust`.
  template <class F>
  void check_every_shape(ThreadPool* pool, F adjust) {
    for (size_t m : kMs)
      for (size_t n : kNs)
        for (size_t k : kKs) {
          GemmCase g;
          g.m = m;
          g.n = n;
          g.k = k;
          g.pool = pool;
          adjust(g);
          check_gemm(g, rng_);
        }
  }

  std::mt19937 rng_{20240611};
  std::unique_ptr<ThreadPool> one_ = std::make_unique<ThreadPool>(1);
  std::unique_ptr<ThreadPool> two_ = std::make_unique<ThreadPool>(2);
  std::unique_ptr<ThreadPool> three_ = std::make_unique<ThreadPool>(3);
};

TEST_F(CpuGemm, PoolSizes) {
  EXPECT_EQ(one_->size(), 1u);
  EXPECT_EQ(three_->size(), 3u);
}

TEST_F(CpuGemm, PlainProductOverEveryShape) {
  for (ThreadPool* pool : pools()) check_every_shape(pool, [](GemmCase&) {});
}

TEST_F(CpuGemm, RowBiasOverEveryShape) {
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), three_.get()})
    check_every_shape(pool, [](GemmCase& g) { g.bias = true; });
}

// B rows read in place: every shape around the tile and the blocks, rows contiguous or padded.
TEST_F(CpuGemm, RowsReadInPlaceOverEveryShape) {
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), three_.get()})
    for (Layout lb : {Layout::kRowMajor, Layout::kPaddedRows})
      check_every_shape(pool, [lb](GemmCase& g) {
        g.b_layout = lb;
        g.bias = (g.m + g.n) % 2 == 0;
        g.rows_packer = true;
      });
}

// accumulate adds the product to what C holds (the row bias, when set, is not added).
// A weight packed once (a constant B): with few column blocks per thread, each thread takes a run
// of column panels across blocks (n = 257 on 2 threads, 600 on 3), with the epilogue and the
// biases on its own columns only.
TEST_F(CpuGemm, PackedWeightsOverEveryShape) {
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), two_.get(), three_.get()})
    check_every_shape(pool, [](GemmCase& g) {
      g.packed_b = true;
      g.bias = g.n % 2 == 1;
      g.act = g.k % 2 == 1 ? Act::kReluThenClamp : Act::kNone;
      g.ldc_pad = g.m % 2;
    });
}

// One to four rows against a weight packed once (a decode step reading the prefill's packed
// weight): packed_rows_product over every shape, with and without a pool.
TEST_F(CpuGemm, PackedRowsProductOverEveryShape) {
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), two_.get(), three_.get()})
    for (size_t m : {1, 2, 4})
      for (size_t n : kNs)
        for (size_t k : kKs) {
          SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) +
                       " K=" + std::to_string(k));
          const Strided a = random_matrix(m, k, Layout::kRowMajor, rng_);
          const Strided b = random_matrix(k, n, Layout::kTransposed, rng_);
          const PackedB packed(MatrixBPacker(b.data.data(), b.rs, b.cs), k, n);
          const size_t ldy = n + 3;
          std::vector<float> y(m * ldy, -7.0f);
          packed_rows_product(a.data.data(), m, k, packed, k, n, y.data(), ldy, pool);
          for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < ldy; ++j) {
              if (j >= n) {
                ASSERT_EQ(y[i * ldy + j], -7.0f) << "past column n";
                continue;
              }
              double sum = 0, mag = 0;
              for (size_t l = 0; l < k; ++l) {
                sum += double(a.at(i, l)) * double(b.at(l, j));
                mag += std::fabs(double(a.at(i, l)) * double(b.at(l, j)));
              }
              ASSERT_NEAR(y[i * ldy + j], sum, 1e-5 * mag + 1e-6) << i << ", " << j;
            }
        }
}

// The backend's shared packed weights: one form per key while a plan holds it, packed again once
// none does.
TEST_F(CpuGemm, PackedWeightsAreSharedWhileHeld) {
  PackedWeights shared;
  const std::vector<float> w(64 * 40, 1.5f);
  const PackedWeights::Key key{w.data(), 64, 40, 40, 1, false};
  int packs = 0;
  auto make = [&] {
    ++packs;
    return std::make_shared<const PackedB>(MatrixBPacker(w.data(), 40, 1), 64, 40);
  };
  EXPECT_EQ(shared.find(key), nullptr);
  std::shared_ptr<const PackedB> first = shared.get_or_pack(key, make);
  EXPECT_EQ(shared.get_or_pack(key, make), first);
  EXPECT_EQ(shared.find(key), first);
  PackedWeights::Key other = key;
  other.half = true;
  EXPECT_EQ(shared.find(other), nullptr);
  EXPECT_EQ(packs, 1);
  first.reset();
  EXPECT_EQ(shared.find(key), nullptr);
  EXPECT_NE(shared.get_or_pack(key, make), nullptr);
  EXPECT_EQ(packs, 2);
}

TEST_F(CpuGemm, AccumulateAddsToC) {
  for (ThreadPool* pool : pools())
    for (size_t m : {1u, 13u, 25u})
      for (size_t n : {1u, 33u, 257u, 600u})
        for (size_t k : {0u, 1u, 256u, 257u, 600u})
          for (bool bias : {false, true}) {
            GemmCase g;
            g.m = m;
            g.n = n;
            g.k = k;
            g.accumulate = true;
            g.bias = bias;
            g.pool = pool;
            check_gemm(g, rng_);
          }
}

TEST_F(CpuGemm, EpiloguesRunOnTheFinishedSum) {
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), three_.get()})
    for (Act act : {Act::kRelu, Act::kClamp, Act::kReluThenClamp})
      for (size_t m : {1u, 12u, 13u, 25u})
        for (size_t n : {7u, 32u, 257u, 600u})
          for (size_t k : {0u, 3u, 255u, 257u, 600u}) {
            GemmCase g;
            g.m = m;
            g.n = n;
            g.k = k;
            g.act = act;
            g.bias = (m + n + k) % 2 == 0;
            g.accumulate = act == Act::kClamp && n == 257;
            g.pool = pool;
            check_gemm(g, rng_);
          }
}

// C wider than the product (ldc > n): only the product's columns are written.
TEST_F(CpuGemm, WiderCKeepsItsOtherColumns) {
  for (ThreadPool* pool : pools())
    for (size_t m : {1u, 13u, 25u})
      for (size_t n : {1u, 31u, 33u, 257u})
        for (size_t k : {0u, 3u, 257u})
          for (size_t pad : {1u, 17u}) {
            GemmCase g;
            g.m = m;
            g.n = n;
            g.k = k;
            g.ldc_pad = pad;
            g.bias = pad == 1;
            g.act = n == 33 ? Act::kRelu : Act::kNone;
            g.accumulate = n == 257 && pad == 17;
            g.pool = pool;
            check_gemm(g, rng_);
          }
}

// Strided and transposed A (PackedA::pack's strides) and B (MatrixBPacker's strides), and the
// packing scale.
TEST_F(CpuGemm, StridedAndTransposedInputs) {
  const Layout layouts[] = {Layout::kRowMajor, Layout::kTransposed, Layout::kPaddedRows,
                            Layout::kEveryOther};
  for (Layout la : layouts)
    for (Layout lb : layouts)
      for (size_t m : {5u, 13u})
        for (size_t n : {31u, 33u, 257u})
          for (size_t k : {3u, 256u, 257u}) {
            GemmCase g;
            g.m = m;
            g.n = n;
            g.k = k;
            g.a_layout = la;
            g.b_layout = lb;
            g.scale = (n + k) % 2 ? 0.5f : -1.25f;
            g.bias = k == 3;
            g.pool = (m + n) % 2 ? three_.get() : nullptr;
            check_gemm(g, rng_);
          }
}

// Many row panels and few column blocks: the rows are split between the threads too.
TEST_F(CpuGemm, TallMatricesSplitTheRows) {
  for (ThreadPool* pool : pools())
    for (size_t m : {37u, 100u, 200u, 301u})
      for (size_t n : {1u, 7u, 33u, 300u})
        for (size_t k : {5u, 300u}) {
          GemmCase g;
          g.m = m;
          g.n = n;
          g.k = k;
          g.bias = true;
          g.act = Act::kRelu;
          g.pool = pool;
          check_gemm(g, rng_);
        }
}

TEST_F(CpuGemm, LargeProduct) {
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), three_.get()}) {
    GemmCase g;
    g.m = 97;
    g.n = 1031;
    g.k = 777;
    g.bias = true;
    g.act = Act::kClamp;
    g.ldc_pad = 9;
    g.b_layout = Layout::kTransposed;
    g.pool = pool;
    check_gemm(g, rng_);
  }
}

// The same pool used for many products in a row, of shapes that take 1 task or many.
TEST_F(CpuGemm, OnePoolManyProducts) {
  ThreadPool pool(4);
  for (int round = 0; round < 40; ++round) {
    GemmCase g;
    g.m = 1 + size_t(round * 7) % 40;
    g.n = 1 + size_t(round * 131) % 700;
    g.k = size_t(round * 53) % 400;
    g.bias = round % 3 == 0;
    g.accumulate = round % 5 == 1;
    g.act = round % 4 == 2 ? Act::kRelu : Act::kNone;
    g.pool = &pool;
    check_gemm(g, rng_);
  }
}

// NaN and infinity in A reach exactly the rows that read them.
TEST_F(CpuGemm, NonFiniteValuesStayInTheirRows) {
  const size_t m = 13, n = 40, k = 300;
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n, 0.0f);
  a[2 * k + 7] = kNaN;
  a[12 * k + 299] = std::numeric_limits<float>::infinity();
  const PackedA pa = PackedA::pack(a.data(), m, k, k, 1);
  GemmOutput out;
  out.c = c.data();
  out.ldc = n;
  gemm(pa, MatrixBPacker(b.data(), n, 1), n, out, three_.get());
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      const float got = c[i * n + j];
      if (i == 2) {
        EXPECT_TRUE(std::isnan(got)) << i << ", " << j;
      } else if (i == 12) {
        EXPECT_EQ(got, std::numeric_limits<float>::infinity()) << i << ", " << j;
      } else {
        EXPECT_EQ(got, 0.125f * k) << i << ", " << j;
      }
    }
}

// PackedA's documented format: panel p holds rows [p·12, p·12 + 12) as depth × 12 values, the
// rows past m zero, every value times the scale.
TEST_F(CpuGemm, PackedAFormat) {
  for (size_t m : {1u, 12u, 13u, 25u})
    for (size_t k : {1u, 3u, 257u}) {
      SCOPED_TRACE("M=" + std::to_string(m) + " K=" + std::to_string(k));
      const Strided a = random_matrix(m, k, Layout::kEveryOther, rng_);
      const PackedA p = PackedA::pack(a.data.data(), m, k, a.rs, a.cs, -2.0f);
      EXPECT_EQ(p.rows, m);
      EXPECT_EQ(p.depth, k);
      ASSERT_EQ(p.panels(), (m + kGemmMR - 1) / kGemmMR);
      ASSERT_GE(p.data.size(), p.panels() * k * kGemmMR);
      for (size_t q = 0; q < p.panels(); ++q)
        for (size_t l = 0; l < k; ++l)
          for (size_t i = 0; i < kGemmMR; ++i) {
            const size_t row = q * kGemmMR + i;
            const float want = row < m ? a.at(row, l) * -2.0f : 0.0f;
            ASSERT_EQ(p.panel(q)[l * kGemmMR + i], want)
                << "panel " << q << " l " << l << " i " << i;
          }
      // pack_into reuses a PackedA of another size.
      PackedA reused = PackedA::pack(a.data.data(), 1, 1, a.rs, a.cs);
      PackedA::pack_into(reused, a.data.data(), m, k, a.rs, a.cs, -2.0f);
      EXPECT_EQ(reused.rows, m);
      EXPECT_EQ(reused.depth, k);
      ASSERT_GE(reused.data.size(), p.panels() * k * kGemmMR);
      EXPECT_TRUE(std::equal(p.data.begin(), p.data.begin() + p.panels() * k * kGemmMR,
                             reused.data.begin()));
    }
  // Packing a large matrix into a PackedA that held a larger one leaves no stale values.
  const Strided big = random_matrix(40, 50, Layout::kRowMajor, rng_);
  const Strided small = random_matrix(5, 3, Layout::kRowMajor, rng_);
  PackedA p = PackedA::pack(big.data.data(), 40, 50, big.rs, big.cs);
  PackedA::pack_into(p, small.data.data(), 5, 3, small.rs, small.cs);
  for (size_t l = 0; l < 3; ++l)
    for (size_t i = 0; i < kGemmMR; ++i)
      EXPECT_EQ(p.panel(0)[l * kGemmMR + i], i < 5 ? small.at(i, l) : 0.0f) << l << ", " << i;
}

// MatrixBPacker's documented format: dst[(j / 32)·kc·32 + l·32 + j % 32] = b(k0 + l, n0 + j),
// the columns past nc up to a multiple of 32 zero.
TEST_F(CpuGemm, MatrixBPackerFormat) {
  for (Layout layout : {Layout::kRowMajor, Layout::kTransposed, Layout::kEveryOther}) {
    const size_t rows = 300, cols = 600;
    const Strided b = random_matrix(rows, cols, layout, rng_);
    const MatrixBPacker packer(b.data.data(), b.rs, b.cs);
    struct Block {
      size_t k0, kc, n0, nc;
    };
    for (const Block& blk : {Block{0, 1, 0, 1}, Block{0, 256, 0, 256}, Block{256, 44, 256, 256},
                             Block{3, 7, 512, 88}, Block{299, 1, 599, 1}, Block{10, 20, 64, 33}}) {
      SCOPED_TRACE(std::string(layout_name(layout)) + " k0=" + std::to_string(blk.k0) +
                   " kc=" + std::to_string(blk.kc) + " n0=" + std::to_string(blk.n0) +
                   " nc=" + std::to_string(blk.nc));
      const size_t padded = (blk.nc + kGemmNR - 1) / kGemmNR * kGemmNR;
      std::vector<float> dst(padded * blk.kc + 8, kNaN);
      packer.pack(blk.k0, blk.kc, blk.n0, blk.nc, dst.data());
      for (size_t j = 0; j < padded; ++j)
        for (size_t l = 0; l < blk.kc; ++l) {
          const float got = dst[(j / kGemmNR) * blk.kc * kGemmNR + l * kGemmNR + j % kGemmNR];
          const float want = j < blk.nc ? b.at(blk.k0 + l, blk.n0 + j) : 0.0f;
          ASSERT_EQ(got, want) << "j " << j << " l " << l;
        }
      for (size_t t = padded * blk.kc; t < dst.size(); ++t)
        EXPECT_TRUE(std::isnan(dst[t])) << "wrote past the block at " << t;
    }
  }
}

// The empty sum (K = 0): C is the row bias (or zero, or what it held with accumulate), then the
// epilogue.
TEST_F(CpuGemm, ZeroDepth) {
  const size_t m = 13, n = 40;
  const std::vector<float> bias = random_values(m, rng_);
  const PackedA pa = PackedA::pack(nullptr, m, 0, 0, 1);
  const MatrixBPacker bp(nullptr, n, 1);
  const Epilogue relu = make_epilogue(Act::kRelu);
  for (bool accumulate : {false, true})
    for (bool with_bias : {false, true})
      for (bool with_relu : {false, true}) {
        SCOPED_TRACE(std::string(accumulate ? "accumulate" : "") + (with_bias ? " bias" : "") +
                     (with_relu ? " relu" : ""));
        const std::vector<float> before = random_values(m * n, rng_);
        std::vector<float> c = before;
        GemmOutput out;
        out.c = c.data();
        out.ldc = n;
        out.row_bias = with_bias ? bias.data() : nullptr;
        out.accumulate = accumulate;
        out.epilogue = with_relu ? &relu : nullptr;
        gemm(pa, bp, n, out, three_.get());
        for (size_t i = 0; i < m; ++i)
          for (size_t j = 0; j < n; ++j) {
            float want = accumulate ? before[i * n + j] : with_bias ? bias[i] : 0.0f;
            if (with_relu && want < 0) want = 0;
            ASSERT_EQ(c[i * n + j], want) << i << ", " << j;
          }
      }
}

}  // namespace
}  // namespace cppnn::cpu
