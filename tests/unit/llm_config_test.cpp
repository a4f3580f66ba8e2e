#include "core/llm_config.hpp"

#include <gtest/gtest.h>

using namespace accel;

TEST(LlmPresets, OneTableInHelpOrder) {
  EXPECT_EQ(llm_preset_names(), (std::vector<std::string>{"tiny", "qwen2.5-0.5b", "llama-3.2-1b",
                                                          "llama-3.2-3b", "llama-3.1-8b"}));
  for (const auto& name : llm_preset_names()) {
    const LlamaConfig* p = find_llm_preset(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->name, name);
    EXPECT_EQ(p->heads % p->kv_heads, 0) << name;      // grouped-query attention
  }
  EXPECT_EQ(find_llm_preset("llama-4"), nullptr);
}

// The shapes of the published configs (config.json on the Hugging Face hub)
// and the parameter counts the model cards give.
TEST(LlmPresets, PublishedShapes) {
  const LlamaConfig& l1 = *find_llm_preset("llama-3.2-1b");
  EXPECT_EQ(l1.vocab, 128256);
  EXPECT_EQ(l1.hidden, 2048);
  EXPECT_EQ(l1.intermediate, 8192);
  EXPECT_EQ(l1.layers, 16);
  EXPECT_EQ(l1.kv_heads, 8);
  EXPECT_TRUE(l1.tie_embeddings);
  ASSERT_TRUE(l1.rope_scaling);
  EXPECT_EQ(l1.rope_scaling->factor, 32.0);
  EXPECT_NEAR(l1.parameters() / 1e9, 1.24, 0.01);  // "1.23B" (tied embeddings)
  const LlamaConfig& l8 = *find_llm_preset("llama-3.1-8b");
  EXPECT_FALSE(l8.tie_embeddings);
  EXPECT_EQ(l8.rope_scaling->factor, 8.0);
  EXPECT_NEAR(l8.parameters() / 1e9, 8.03, 0.01);  // "8.03B"
  const LlamaConfig& q = *find_llm_preset("qwen2.5-0.5b");
  EXPECT_TRUE(q.qkv_bias);
  EXPECT_FALSE(q.rope_scaling);
  EXPECT_EQ(q.rms_eps, 1e-6);
  EXPECT_NEAR(q.parameters() / 1e9, 0.49, 0.01);  // "0.49B"
}
