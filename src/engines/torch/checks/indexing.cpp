// Indexing, gather/scatter, masks, sorting and searching. Index-driven ops
// are bound by memory traffic (random access). Where the output is not
// unique (ties in sort/topk indices, scatter with duplicate targets) the row
// checks an invariant or avoids the ambiguity by construction.
#include <limits>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
constexpr int64_t kR = 1024, kC = 1024;
constexpr double kN = static_cast<double>(kR) * kC;
const std::string kShape = "1024x1024";
const auto kLongOpt = at::TensorOptions().dtype(at::kLong);

CheckDef make(std::string name, std::string shape, std::vector<at::ScalarType> dtypes = float_dtypes()) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "indexing";
  c.dtypes = std::move(dtypes);
  c.shape = std::move(shape);
  return c;
}

/// Each row a random permutation of 0..cols-1: scatter targets without duplicates.
at::Tensor row_permutations(int64_t rows, int64_t cols) {
  return at::argsort(at::rand({rows, cols}, at::TensorOptions().dtype(at::kDouble)), int64_t{1}, false);
}

/// A list of the (row) indices for index_* ops, with repeats.
at::Tensor some_rows(int64_t n, int64_t high) { return randint64({n}, high); }
}  // namespace

void add_indexing_checks(std::vector<CheckDef>& out) {
  // ---- gathers (exact: values are copied)
  {
    // 512 of 1024 rows, repeats allowed.
    CheckDef c = make("index_select", kShape + ", 512 rows");
    c.inputs = [] { return Tensors{randn64({kR, kC}), some_rows(512, kR)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::index_select(in[0], 0, in[1]); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return 2.0 * 512 * kC * e + 512 * 8; }, "2*K*C*elem + K*8");
    out.push_back(c);
  }
  {
    CheckDef c = make("gather", kShape + ", dim=1");
    c.inputs = [] { return Tensors{randn64({kR, kC}), randint64({kR, kC}, kC)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::gather(in[0], 1, in[1]); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kN * (2 * e + 8); }, "N*(2*elem + 8)");
    out.push_back(c);
  }
  {
    CheckDef c = make("take_along_dim", kShape + ", dim=1, 64 per row");
    c.inputs = [] { return Tensors{randn64({kR, kC}), randint64({kR, 64}, kC)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::take_along_dim(in[0], in[1], 1); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kR * 64 * (2 * e + 8); }, "R*K*(2*elem + 8)");
    out.push_back(c);
  }

  // ---- scatters
  {
    // Permutation indices: every target written once (duplicate targets
    // would make the result depend on write order).
    CheckDef c = make("scatter", kShape + ", dim=1, permutation");
    c.inputs = [] {
      return Tensors{at::zeros({kR, kC}, at::kDouble), row_permutations(kR, kC), randn64({kR, kC})};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::scatter(in[0], 1, in[1], in[2]); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kN * (3 * e + 8); }, "N*(3*elem + 8)");
    out.push_back(c);
  }
  {
    // Many sources per target: accumulation order varies, so tolerance.
    CheckDef c = make("scatter_add", kShape + " -> 1024x64, dim=1");
    c.inputs = [] {
      return Tensors{at::zeros({kR, 64}, at::kDouble), randint64({kR, kC}, 64), randn64({kR, kC})};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::scatter_add(in[0], 1, in[1], in[2]); };
    c.flops = kN;
    c.flops_formula = "N (adds)";
    c.bytes = [](double e) { return kN * (e + 8) + 2.0 * kR * 64 * e; };
    c.bytes_formula = "N*(elem + 8) + 2*R*64*elem";
    out.push_back(c);
  }
  {
    // Embedding-gradient pattern: 4096 rows added into a 1024-row table.
    static constexpr int64_t K = 4096, D = 256;
    CheckDef c = make("index_add", "1024x256 += 4096x256 at random rows");
    c.inputs = [] { return Tensors{randn64({kR, D}), randint64({K}, kR), randn64({K, D})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::index_add(in[0], 0, in[1], in[2]); };
    c.flops = static_cast<double>(K) * D;
    c.flops_formula = "K*D (adds)";
    c.bytes = [](double e) { return (2.0 * K * D + 2.0 * kR * D) * e + K * 8; };
    c.bytes_formula = "(2*K*D + 2*R*D)*elem + K*8";
    out.push_back(c);
  }
  {
    // x.index_put_((rows,), values, accumulate=True): duplicates add up.
    static constexpr int64_t K = 4096, D = 256;
    CheckDef c = make("index_put_accumulate", "1024x256, 4096 rows accumulated");
    c.inputs = [] { return Tensors{randn64({kR, D}), randint64({K}, kR), randn64({K, D})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::List<c10::optional<at::Tensor>> idx;
      idx.push_back(in[1]);
      return at::index_put(in[0], idx, in[2], /*accumulate=*/true);
    };
    c.flops = static_cast<double>(K) * D;
    c.flops_formula = "K*D (adds)";
    c.bytes = [](double e) { return (2.0 * K * D + 2.0 * kR * D) * e + K * 8; };
    c.bytes_formula = "(2*K*D + 2*R*D)*elem + K*8";
    out.push_back(c);
  }

  // ---- masks
  {
    // -inf as attention masks use it (exact in every dtype).
    CheckDef c = make("masked_fill", kShape);
    c.inputs = [] { return Tensors{randn64({kR, kC}), uniform64({kR, kC}, 0, 1) > 0.5}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return in[0].masked_fill(in[1], -std::numeric_limits<double>::infinity());
    };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kN * (2 * e + 1); }, "N*(2*elem + 1)", "0 (selection)");
    out.push_back(c);
  }
  {
    // Data-dependent output size: the device must count before it copies.
    CheckDef c = make("masked_select", kShape + ", ~30% selected");
    c.inputs = [] { return Tensors{randn64({kR, kC}), uniform64({kR, kC}, 0, 1) < 0.3}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::masked_select(in[0], in[1]); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kN * (1.3 * e + 1); }, "N*(1.3*elem + 1)", "0 (selection)");
    out.push_back(c);
  }
  {
    CheckDef c = make("nonzero", kShape + ", ~10% nonzero");
    c.inputs = [] { return Tensors{at::relu(uniform64({kR, kC}, -9, 1))}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::nonzero(in[0]); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kN * e + 0.1 * kN * 16; }, "N*elem + 0.1*N*2*8", "0 (selection)");
    out.push_back(c);
  }

  // ---- sorting and searching
  {
    // Sorted values are unique even with ties: exact.
    CheckDef c = make("sort", "256x1024, dim=-1, values");
    c.inputs = [] { return Tensors{randn64({256, kC})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return std::get<0>(at::sort(in[0], -1)); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return 256 * kC * (2 * e + 8); }, "N*(2*elem + 8)",
        "0 (N*log2(N) comparisons, not counted)");
    out.push_back(c);
  }
  {
    // Indices of tied values may come in any order: check that the indices
    // put the row in order (x.gather(argsort(x)) equals the sorted values).
    CheckDef c = make("argsort", "256x1024, dim=-1, x[argsort(x)]");
    c.inputs = [] { return Tensors{randn64({256, kC})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return in[0].gather(-1, at::argsort(in[0], int64_t{-1}, false));
    };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return 256 * kC * (2 * e + 8); }, "N*(2*elem + 8)", "0 (comparisons, not counted)");
    out.push_back(c);
  }
  {
    // Values exactly; indices through the values they point at.
    CheckDef c = make("topk", kShape + ", k=32, dim=-1");
    c.inputs = [] { return Tensors{randn64({kR, kC})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      auto vi = at::topk(in[0], 32, -1);
      return at::cat({std::get<0>(vi), in[0].gather(-1, std::get<1>(vi))}, -1);
    };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return kN * e + kR * 32 * (e + 8); }, "N*elem + R*k*(elem + 8)",
        "0 (comparisons, not counted)");
    out.push_back(c);
  }
  {
    CheckDef c = make("unique", "262144 ints in [0, 65536)", {at::kInt, at::kLong});
    c.inputs = [] { return Tensors{randint64({1 << 18}, 1 << 16).to(at::kDouble)}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return std::get<0>(
          at::_unique2(in[0], /*sorted=*/true, /*return_inverse=*/false, /*return_counts=*/false));
    };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return (1 << 18) * e + 65536 * e; }, "N*elem + U*elem", "0 (sort, not counted)");
    out.push_back(c);
  }
  {
    // Bucketing 256K values against 1024 sorted boundaries (ties resolve the
    // same way everywhere: the first boundary >= value).
    CheckDef c = make("searchsorted", "1024 boundaries, 262144 values");
    c.inputs = [] { return Tensors{std::get<0>(at::sort(randn64({1024}))), randn64({1 << 18})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::searchsorted(in[0], in[1]); };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return (1 << 18) * (e + 8); }, "N*(elem + 8)",
        "0 (10 comparisons per value, not counted)");
    out.push_back(c);
  }
  {
    CheckDef c = make("bincount", "1048576 ids in [0, 4096)", {at::kInt, at::kLong});
    c.inputs = [] { return Tensors{randint64({1 << 20}, 4096).to(at::kDouble)}; };
    c.op = [](const Tensors& in, const OpEnv& env) {
      // bincount wants integers: the float64 reference counts the same ids.
      return at::bincount(in[0].is_floating_point() ? in[0].to(at::kLong) : in[0], {}, 4096);
    };
    c.verify = Verify::exact;
    movement(
        c, [](double e) { return (1 << 20) * e + 4096 * 8.0; }, "N*elem + bins*8", "0 (counting)");
    out.push_back(c);
  }
  {
    CheckDef c = make("one_hot", "4x512 ids, 1024 classes", {at::kLong});
    c.inputs = [] { return Tensors{randint64({4, 512}, 1024)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::one_hot(in[0], 1024); };
    c.verify = Verify::exact;
    movement(
        c, [](double) { return 4 * 512 * 8.0 + 4 * 512 * 1024 * 8.0; }, "B*8 + B*classes*8", "0 (writes)");
    out.push_back(c);
  }
  {
    // Bag-of-words / recommendation lookup: mean of 16 rows per bag.
    static constexpr int64_t V = 8192, E = 256, Bags = 1024, Per = 16;
    CheckDef c = make("embedding_bag_mean", "8192x256 table, 1024 bags of 16");
    c.inputs = [] {
      return Tensors{randn64({V, E}), randint64({Bags * Per}, V), at::arange(0, Bags * Per, Per, kLongOpt)};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      return std::get<0>(at::embedding_bag(in[0], in[1], in[2], /*scale_grad_by_freq=*/false, /*mode=*/1));
    };
    c.flops = static_cast<double>(Bags) * Per * E;
    c.flops_formula = "B*P*E (adds)";
    c.bytes = [](double e) { return (Bags * Per * E + Bags * E) * e + Bags * Per * 8.0; };
    c.bytes_formula = "(B*P*E + B*E)*elem + B*P*8";
    out.push_back(c);
  }
}

}  // namespace accel::engine
