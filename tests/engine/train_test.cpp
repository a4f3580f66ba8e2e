#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "core/idx.hpp"
#include "engine_api/train.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/train/trainer.hpp"

using namespace accel;
using namespace accel::engine;
using namespace accel::engine::train;
namespace fs = std::filesystem;

namespace {
const c10::Device kCpu(c10::kCPU);

double mean_tail(const std::vector<double>& v, std::size_t n) {
  double s = 0;
  for (std::size_t i = v.size() - n; i < v.size(); ++i) s += v[i];
  return s / static_cast<double>(n);
}

const Result* find(const std::vector<Result>& results, const std::string& key) {
  for (const auto& r : results) {
    if (r.key == key) return &r;
  }
  return nullptr;
}
}  // namespace

TEST(Train, OneStepChangesTheWeightsAndResetsGradients) {
  const Dataset data = synthetic_dataset(256, 1);
  for (const std::string name : {"mlp", "cnn"}) {
    Trainer t(make_model(name, kCpu, 7), Precision::fp32, kCpu);
    std::vector<at::Tensor> before;
    for (const auto& p : t.model().parameters()) before.push_back(p.detach().clone());
    const at::Tensor loss = t.step(host_batch(data, 0, 16, false));
    EXPECT_EQ(loss.dim(), 0);
    EXPECT_FALSE(loss.requires_grad());
    EXPECT_TRUE(std::isfinite(loss.item<double>()));
    int changed = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
      const auto& p = t.model().parameters()[i];
      changed += !at::equal(before[i], p.detach());
      EXPECT_FALSE(p.grad().defined()) << name << " parameter " << i << " keeps its gradient";
    }
    EXPECT_EQ(changed, static_cast<int>(before.size()))
        << name << ": every parameter moves after one SGD step";
  }
}

TEST(Train, SameSeedSameWeights) {
  auto a = make_model("cnn", kCpu, 3), b = make_model("cnn", kCpu, 3), c = make_model("cnn", kCpu, 4);
  ASSERT_EQ(a->parameters().size(), b->parameters().size());
  for (std::size_t i = 0; i < a->parameters().size(); ++i) {
    EXPECT_TRUE(at::equal(a->parameters()[i], b->parameters()[i]));
  }
  EXPECT_FALSE(at::equal(a->parameters()[0], c->parameters()[0]));
  EXPECT_EQ(make_model("mlp", kCpu, 1)->parameter_count(),
            784 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 10 + 10);
}

TEST(Train, LossFallsOverAFewStepsOnSyntheticData) {
  const Dataset data = synthetic_dataset(1024, 2);
  // Labels come from the images: every class appears.
  EXPECT_EQ(std::get<0>(at::_unique(data.labels)).numel(), 10);
  for (const std::string name : {"mlp", "cnn"}) {
    const int steps = name == "mlp" ? 12 : 8;
    const auto curve = loss_curve(name, Precision::fp32, kCpu, data, 32, steps, 5);
    ASSERT_EQ(curve.size(), static_cast<std::size_t>(steps));
    EXPECT_NEAR(curve.front(), std::log(10.0), 0.5) << name << ": starts near chance";
    EXPECT_LT(mean_tail(curve, 3), curve.front() - 0.1) << name << ": the loss falls";
  }
}

TEST(Train, AutocastScopeRunsInBf16AndRestores) {
  auto m = make_model("mlp", kCpu, 1);
  const at::Tensor x = at::randn({4, 1, 28, 28});
  at::Tensor logits;
  {
    AutocastScope scope(c10::DeviceType::CPU, at::kBFloat16);
    logits = m->forward(x);
  }
  EXPECT_EQ(logits.scalar_type(), at::kBFloat16);
  EXPECT_EQ(m->forward(x).scalar_type(), at::kFloat) << "autocast is off again after the scope";
}

TEST(Train, Bf16AutocastLossAgreesWithFp32OnCpu) {
  const Dataset data = synthetic_dataset(2048, 3);
  const int steps = 20;
  const auto fp32 = loss_curve("mlp", Precision::fp32, kCpu, data, 32, steps, 11);
  const auto bf16 = loss_curve("mlp", Precision::bf16, kCpu, data, 32, steps, 11);
  ASSERT_EQ(bf16.size(), fp32.size());
  // Same weights and data: the first losses nearly equal (bf16 rounding only).
  EXPECT_NEAR(bf16.front(), fp32.front(), 0.02);
  // The suite's stated tolerance for bf16: 10% of the fp32 loss + 0.05.
  const double f32 = mean_tail(fp32, 4), b16 = mean_tail(bf16, 4);
  EXPECT_LT(b16, bf16.front()) << "bf16 training learns too";
  EXPECT_LE(std::abs(b16 - f32), 0.10 * f32 + 0.05) << "bf16 " << b16 << " vs fp32 " << f32;
}

TEST(Train, Fp16AvailabilityFollowsTheTorchVersion) {
  const std::string why = precision_unavailable(kCpu, Precision::fp16);
  EXPECT_EQ(precision_unavailable(kCpu, Precision::bf16), "");
  EXPECT_EQ(precision_unavailable(kCpu, Precision::fp32), "");
#if ACCEL_TORCH_AT_LEAST(2, 3)
  EXPECT_EQ(why, "") << "torch >= 2.3 has CPU fp16 autocast and the CPU gradient-scaler kernels";
#else
  EXPECT_NE(why.find("torch >= 2.3"), std::string::npos) << why;
  EXPECT_THROW(Trainer(make_model("mlp", kCpu, 1), Precision::fp16, kCpu), std::runtime_error);
#endif
}

TEST(Train, Fp16WithGradScalingAgreesOnTheCpu) {
  const std::string why = precision_unavailable(kCpu, Precision::fp16);
  if (!why.empty()) GTEST_SKIP() << why;
  const Dataset data = synthetic_dataset(1024, 3);
  const auto fp32 = loss_curve("mlp", Precision::fp32, kCpu, data, 32, 12, 11);
  const auto fp16 = loss_curve("mlp", Precision::fp16, kCpu, data, 32, 12, 11);
  EXPECT_LE(std::abs(mean_tail(fp16, 3) - mean_tail(fp32, 3)), 0.05 * mean_tail(fp32, 3) + 0.03);
  GradScaler scaler(kCpu, 1024.0);
  std::vector<at::Tensor> grads{at::full({3}, 2048.0), at::full({2}, std::numeric_limits<float>::infinity())};
  EXPECT_FALSE(scaler.unscale(grads));
  scaler.update();
  EXPECT_EQ(scaler.current_scale(), 512.0) << "backs off after an overflow";
}

TEST(Train, OutOfMemoryErrorsAreRecognised) {
  try {
    throw_injected_oom(2e6, 1000000, "an estimated");
  } catch (const c10::OutOfMemoryError& e) {
    EXPECT_TRUE(is_out_of_memory(e));
    EXPECT_NE(std::string(e.what()).find("injected"), std::string::npos);
  }
  // torch 1.13's CUDA allocator style: a plain c10::Error saying so.
  try {
    TORCH_CHECK(false, "CUDA out of memory. Tried to allocate 2.00 GiB");
  } catch (const c10::Error& e) {
    EXPECT_TRUE(is_out_of_memory(e));
  }
  try {
    TORCH_CHECK(false, "DefaultCPUAllocator: can't allocate memory: you tried to allocate 1 bytes");
  } catch (const c10::Error& e) {
    EXPECT_TRUE(is_out_of_memory(e));
  }
  EXPECT_FALSE(is_out_of_memory(std::runtime_error("shape mismatch")));
}

TEST(Train, InjectedOomEndsTheSweepCleanlyAndKeepsEarlierBatches) {
  // A limit between the estimates of batch 16 and batch 32: the sweep runs
  // 8 and 16, the step at 32 throws torch's OOM error, the sweep stops there.
  Trainer probe(make_model("mlp", kCpu, 1), Precision::fp32, kCpu);
  const double at16 = probe.estimated_step_bytes(16), at32 = probe.estimated_step_bytes(32);
  ASSERT_LT(at16, at32);
  TrainOptions o;
  o.device = "cpu";
  o.quick = true;
  o.isolate = false;
  o.models = {"mlp"};
  o.precisions = {"fp32"};
  o.filters = {"sweep"};
  o.sweep_min = 8;
  o.sweep_max = 128;
  o.inject_oom_above_bytes = static_cast<std::uint64_t>((at16 + at32) / 2);
  const auto results = run_train(o);
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  EXPECT_EQ(r.key, "train/cpu/mlp/fp32/sweep");
  EXPECT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.metrics.at("max_batch"), 16);
  EXPECT_EQ(r.metrics.at("oom_at_batch"), 32);
  EXPECT_EQ(r.metrics.at("injected_limit_bytes"), static_cast<double>(o.inject_oom_above_bytes));
  EXPECT_EQ(r.evidence.at("limit"), "injected_out_of_memory");
  EXPECT_EQ(r.evidence.at("injected"), true);
  EXPECT_NE(r.evidence.at("oom_message").get<std::string>().find("injected"), std::string::npos);
  EXPECT_NE(r.evidence.at("limit_detail").get<std::string>().find("largest batch that fits is 16"),
            std::string::npos);
  const auto& curve = r.evidence.at("curve");
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_EQ(curve[0].at("batch"), 8);
  EXPECT_EQ(curve[1].at("batch"), 16);
  EXPECT_GT(curve[1].at("samples_per_s").get<double>(), 0);
  EXPECT_TRUE(r.evidence.contains("memory_released"));

  // With a limit below the smallest batch the row fails, saying so.
  o.inject_oom_above_bytes = 1000;
  const auto none = run_train(o);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].status, Status::error);
  EXPECT_NE(none[0].reason.find("out of memory already at batch 8"), std::string::npos) << none[0].reason;
}

TEST(Train, StepRowsMeasureThroughputAndLossAgreement) {
  TrainOptions o;
  o.device = "cpu";
  o.quick = true;
  o.isolate = false;
  o.models = {"mlp"};
  o.precisions = {"fp32", "fp16", "bf16"};
  o.batches = {16};
  o.steps = 8;
  o.sweep = false;
  const auto results = run_train(o);
  ASSERT_EQ(results.size(), 4u);  // three step rows and the item cost
  const Result* fp32 = find(results, "train/cpu/mlp/fp32/b16");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->status, Status::ok) << fp32->reason;
  EXPECT_GT(fp32->metrics.at("samples_per_s"), 0);
  EXPECT_EQ(fp32->metrics.at("input_bytes_per_step"), 16 * (784 * 4 + 8));
  EXPECT_LT(fp32->metrics.at("loss_final"), fp32->metrics.at("loss_first"));
  if (!fp32->evidence.contains("profile_unavailable")) {
    EXPECT_EQ(fp32->metrics.at("h2d_bytes_per_step"), 0) << "the CPU target copies nothing";
    EXPECT_EQ(fp32->metrics.at("host_reads_per_step"), 0) << "an fp32 step reads nothing on the host";
  }
  const Result* bf16 = find(results, "train/cpu/mlp/bf16/b16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->status, Status::ok) << bf16->reason;
  ASSERT_TRUE(bf16->accuracy.has_value());
  EXPECT_LE(bf16->accuracy->rel_error, bf16->accuracy->tolerance);
  const Result* fp16 = find(results, "train/cpu/mlp/fp16/b16");
  ASSERT_NE(fp16, nullptr);
  if (!precision_unavailable(kCpu, Precision::fp16).empty()) {
    EXPECT_EQ(fp16->status, Status::unavailable);
    EXPECT_FALSE(fp16->reason.empty());
  }
  const Result* cost = find(results, "train/cpu/mlp/fp32/b16/item_cost");
  ASSERT_NE(cost, nullptr);
  EXPECT_EQ(cost->status, Status::ok) << cost->reason;
  EXPECT_TRUE(cost->metrics.count("item_cost_us"));
  EXPECT_TRUE(cost->metrics.count("item_cost_pct"));
  EXPECT_GT(bf16->metrics.at("speedup_vs_fp32"), 0);
}

TEST(Train, ItemsAndKeys) {
  TrainOptions o;
  o.device = "cuda:0";
  o.batches = {128, 256};
  const auto items = list_train(o);
  std::vector<std::string> keys;
  for (const auto& it : items) keys.push_back(it.key);
  for (const std::string k :
       {"train/cuda/mlp/fp32/b128", "train/cuda/mlp/bf16/b256", "train/cuda/cnn/fp16/b128",
        "train/cuda/mlp/bf16/b128/item_cost", "train/cuda/cnn/bf16/sweep", "train/cpu/mlp/fp32/b128",
        "train/cpu/cnn/fp32/b128"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  }
  o.cpu_compare = false;
  o.filters = {"sweep"};
  EXPECT_EQ(list_train(o).size(), 2u);
}

TEST(Train, ReadsMnistIdxFiles) {
  const fs::path dir = fs::temp_directory_path() / ("accel-train-test-mnist-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::uint32_t n = 20;
  std::vector<std::uint8_t> pixels(n * 784), labels(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    labels[i] = static_cast<std::uint8_t>(i % 10);
    for (std::uint32_t p = 0; p < 784; ++p)
      pixels[i * 784 + p] = static_cast<std::uint8_t>(p < 392 ? 255 : 0);
  }
  std::ofstream(dir / "train-images-idx3-ubyte", std::ios::binary)
      << write_idx(kIdxImagesMagic, {n, 28, 28}, pixels);
  std::ofstream(dir / "train-labels-idx1-ubyte", std::ios::binary) << write_idx(kIdxLabelsMagic, {n}, labels);
  const Dataset d = mnist_dataset(dir.string());
  EXPECT_FALSE(d.synthetic);
  EXPECT_EQ(d.images.sizes().vec(), (std::vector<int64_t>{20, 1, 28, 28}));
  EXPECT_EQ(d.labels[13].item<int64_t>(), 3);
  EXPECT_NEAR(d.images[0][0][0][0].item<double>(), (1.0 - kMnistMean) / kMnistStd, 1e-5);
  EXPECT_NEAR(d.images[0][0][27][27].item<double>(), -kMnistMean / kMnistStd, 1e-5);
  // Wrapping batches past the end of the data.
  const HostBatch b = host_batch(d, 15, 10, false);
  EXPECT_EQ(b.size(), 10);
  EXPECT_EQ(b.labels[5].item<int64_t>(), 0);  // sample 20 wraps to sample 0
  // A truncated file is a clear error.
  const std::string full = write_idx(kIdxImagesMagic, {n, 28, 28}, pixels);
  std::ofstream(dir / "train-images-idx3-ubyte", std::ios::binary) << full.substr(0, full.size() - 10);
  try {
    mnist_dataset(dir.string());
    ADD_FAILURE() << "no error for a truncated file";
  } catch (const IdxError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}
