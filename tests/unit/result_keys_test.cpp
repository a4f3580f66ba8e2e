#include "core/result_keys.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/evidence.hpp"

using namespace accel;

TEST(ResultKeys, OpsRoundTrip) {
  const OpsKey k{"matmul", "gemm", "bf16"};
  EXPECT_EQ(k.str(), "ops/matmul/gemm/bf16");
  const auto p = OpsKey::parse("ops/matmul/gemm/bf16");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->category, "matmul");
  EXPECT_EQ(p->name, "gemm");
  EXPECT_EQ(p->dtype, "bf16");
  EXPECT_FALSE(OpsKey::parse("ops/matmul/gemm"));
  EXPECT_FALSE(OpsKey::parse("ops/matmul/gemm/bf16/x"));
  EXPECT_FALSE(OpsKey::parse("bench/matmul/gemm/bf16"));
  EXPECT_FALSE(OpsKey::parse("ops//gemm/bf16"));
}

TEST(ResultKeys, BenchRoundTrip) {
  const BenchKey k{"cuda", "gemm", "square", "bf16", "4096x4096x4096"};
  EXPECT_EQ(k.str(), "bench/cuda/gemm/square/bf16/4096x4096x4096");
  const auto p = BenchKey::parse(k.str());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->device_type, "cuda");
  EXPECT_EQ(p->group, "gemm");
  EXPECT_EQ(p->name, "square");
  EXPECT_EQ(p->dtype, "bf16");
  EXPECT_EQ(p->shape, "4096x4096x4096");
  EXPECT_EQ(BenchKey::parse("bench/vulkan/memory/copy/fp32/rotating")->device_type, "vulkan");
  EXPECT_EQ(BenchKey::parse("bench/ort-dml/workload/mlp/fp16/-")->group, "workload");
  EXPECT_FALSE(BenchKey::parse("bench/cuda/gemm/square/bf16"));
  EXPECT_FALSE(BenchKey::parse("llm/cuda/gemm/square/bf16/1"));
}

TEST(ResultKeys, LlmRoundTripEveryTest) {
  LlmKey k;
  k.device_type = "cuda";
  k.preset = "llama-3.2-1b";
  k.dtype = "bf16";
  EXPECT_EQ(k.str(), "llm/cuda/llama-3.2-1b/bf16/correctness");
  EXPECT_EQ(k.twin(), "llama-3.2-1b/correctness");
  k.test = LlmKey::Test::prefill;
  k.batch = 4;
  k.prompt = 512;
  EXPECT_EQ(k.str(), "llm/cuda/llama-3.2-1b/bf16/b4/pp512");
  EXPECT_EQ(k.test_name(), "pp512");
  k.test = LlmKey::Test::decode;
  k.gen = 128;
  EXPECT_EQ(k.str(), "llm/cuda/llama-3.2-1b/bf16/b4/tg128@d512");
  EXPECT_EQ(k.test_name(), "tg128@d512");
  EXPECT_EQ(k.twin(), "llama-3.2-1b/b4/tg128@d512");
  k.test = LlmKey::Test::graph;
  EXPECT_EQ(k.str(), "llm/cuda/llama-3.2-1b/bf16/b4/tg128@d512/graph");
  const auto p = LlmKey::parse(k.str());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->test, LlmKey::Test::graph);
  EXPECT_EQ(p->batch, 4);
  EXPECT_EQ(p->prompt, 512);
  EXPECT_EQ(p->gen, 128);
  EXPECT_EQ(p->preset, "llama-3.2-1b");
  // The CPU twin runs fp32 on another device type: the twin ignores both.
  auto cpu = *p;
  cpu.device_type = "cpu";
  cpu.dtype = "fp32";
  EXPECT_EQ(cpu.twin(), p->twin());
  for (const char* bad :
       {"llm/cuda/x/bf16", "llm/cuda/x/bf16/b1", "llm/cuda/x/bf16/b1/pp", "llm/cuda/x/bf16/bx/pp8",
        "llm/cuda/x/bf16/b1/tg8", "llm/cuda/x/bf16/b1/tg8@d8/eager", "llm/cuda/x/bf16/correctness/1",
        "train/cuda/x/bf16/b1/pp8"}) {
    EXPECT_FALSE(LlmKey::parse(bad)) << bad;
  }
}

TEST(ResultKeys, TrainRoundTripEveryItem) {
  TrainKey k;
  k.device_type = "cuda";
  k.model = "mlp";
  k.precision = "bf16";
  k.batch = 64;
  EXPECT_EQ(k.str(), "train/cuda/mlp/bf16/b64");
  k.item = TrainKey::Item::item_cost;
  EXPECT_EQ(k.str(), "train/cuda/mlp/bf16/b64/item_cost");
  k.item = TrainKey::Item::sweep;
  k.batch = 0;
  EXPECT_EQ(k.str(), "train/cuda/mlp/bf16/sweep");
  for (const char* key :
       {"train/cuda/mlp/bf16/b64", "train/cpu/cnn/fp32/b256/item_cost", "train/cuda/mlp/fp16/sweep"}) {
    const auto p = TrainKey::parse(key);
    ASSERT_TRUE(p) << key;
    EXPECT_EQ(p->str(), key);
  }
  EXPECT_EQ(TrainKey::parse("train/cpu/cnn/fp32/b256/item_cost")->batch, 256);
  EXPECT_EQ(TrainKey::parse("train/cpu/cnn/fp32/b256/item_cost")->item, TrainKey::Item::item_cost);
  for (const char* bad : {"train/cuda/mlp/bf16", "train/cuda/mlp/bf16/64", "train/cuda/mlp/bf16/b64/other",
                          "train/cuda/mlp/bf16/sweep/b1", "llm/cuda/mlp/bf16/b64"}) {
    EXPECT_FALSE(TrainKey::parse(bad)) << bad;
  }
}

// Every key of these suites in the recorded reports parses and is written
// back to the letter: the types describe the keys the engines really wrote.
TEST(ResultKeys, RecordedKeysRoundTrip) {
  int seen = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ACCEL_TEST_FIXTURES) + "/reports")) {
    if (entry.path().extension() != ".json") continue;
    Report report;
    try {
      report = read_report_file(entry.path().string());
    } catch (const ReportError&) {
      continue;  // the fixtures of malformed reports
    }
    for (const auto& r : report.results) {
      const std::string& key = r.key;
      std::optional<std::string> back;
      if (key.rfind("ops/", 0) == 0) {
        if (auto k = OpsKey::parse(key)) back = k->str();
      } else if (key.rfind("bench/", 0) == 0) {
        if (auto k = BenchKey::parse(key)) back = k->str();
      } else if (key.rfind("llm/", 0) == 0) {
        if (auto k = LlmKey::parse(key)) back = k->str();
      } else if (key.rfind("train/", 0) == 0) {
        if (auto k = TrainKey::parse(key)) back = k->str();
      } else {
        continue;
      }
      ++seen;
      ASSERT_TRUE(back) << entry.path() << ": " << key;
      EXPECT_EQ(*back, key) << entry.path();
    }
  }
  EXPECT_GT(seen, 100);
}
