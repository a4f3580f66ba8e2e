#include <gtest/gtest.h>

#include <tuple>

#include "core/safetensors.hpp"

using namespace accel;

namespace {
std::string f32_bytes(std::size_t n) { return std::string(n * 4, '\x01'); }

SafetensorsHeader parse(const std::string& file) {
  return parse_safetensors_header(reinterpret_cast<const unsigned char*>(file.data()), file.size(),
                                  file.size(), "t");
}

void expect_error(const std::string& file, const std::string& fragment) {
  try {
    parse(file);
    ADD_FAILURE() << "no error; expected '" << fragment << "'";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

std::string with_header(const std::string& header_json, const std::string& body) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((header_json.size() >> (8 * i)) & 0xff);
  return out + header_json + body;
}
}  // namespace

TEST(Safetensors, RoundTrip) {
  const std::string file =
      write_safetensors({{"a", {"F32", {2, 3}, f32_bytes(6)}}, {"b", {"BF16", {4}, std::string(8, 'x')}}});
  const auto h = parse(file);
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors.at("a").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(h.tensors.at("a").end - h.tensors.at("a").begin, 24u);
  EXPECT_EQ(h.tensors.at("b").dtype, "BF16");
  EXPECT_EQ(h.data_start % 8, 0u);  // the header is padded to 8 bytes
  EXPECT_EQ(h.metadata.at("format"), "pt");
}

TEST(Safetensors, TruncatedFiles) {
  const std::string file = write_safetensors({{"a", {"F32", {16}, f32_bytes(16)}}});
  expect_error(file.substr(0, file.size() - 4), "truncated");
  expect_error(file.substr(0, 20), "truncated");
  expect_error(file.substr(0, 5), "too short");
}

TEST(Safetensors, InconsistentHeaders) {
  expect_error(with_header(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 12]}})", f32_bytes(4)),
               "bytes for shape");
  expect_error(with_header(R"({"a": {"dtype": "Q4", "shape": [4], "data_offsets": [0, 16]}})", f32_bytes(4)),
               "unknown safetensors dtype");
  expect_error(with_header(R"({"a": {"dtype": "F32", "shape": [4]}})", f32_bytes(4)), "malformed entry");
  expect_error(with_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                               "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                           f32_bytes(3)),
               "overlap");
  expect_error(with_header("{not json", ""), "not valid JSON");
  std::string huge(8, '\xff');
  expect_error(huge + "xxxx", "implausible");
}
