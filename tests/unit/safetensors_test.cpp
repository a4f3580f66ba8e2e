#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "core/safetensors.hpp"
#include "platform/process.hpp"

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

namespace {
struct TempCheckpoint {
  std::filesystem::path dir;
  TempCheckpoint() {
    dir = std::filesystem::temp_directory_path() /
          ("accel_st_" + std::to_string(accel::platform::process_id()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempCheckpoint() { std::filesystem::remove_all(dir); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir / name, std::ios::binary) << bytes;
  }
  std::string validate_error() const {
    try {
      validate_safetensors_checkpoint(dir.string());
    } catch (const SafetensorsError& e) {
      return e.what();
    }
    return "";
  }
};
}  // namespace

TEST(SafetensorsCheckpoint, AValidFolderPasses) {
  TempCheckpoint ck;
  ck.write("config.json", R"({"model_type": "llama"})");
  ck.write("model.safetensors", write_safetensors({{"a", {"F32", {16}, f32_bytes(16)}}}));
  EXPECT_EQ(validate_safetensors_checkpoint(ck.dir.string()).size(), 1u);
  EXPECT_EQ(read_safetensors_header((ck.dir / "model.safetensors").string()).tensors.size(), 1u);
}

TEST(SafetensorsCheckpoint, ATruncatedFileNamesPathAndBytes) {
  TempCheckpoint ck;
  ck.write("config.json", R"({"model_type": "llama"})");
  const std::string file = write_safetensors({{"a", {"F32", {16}, f32_bytes(16)}}});
  ck.write("model-00001-of-00002.safetensors", file);
  ck.write("model-00002-of-00002.safetensors", file.substr(0, file.size() - 10));
  const std::string why = ck.validate_error();
  EXPECT_NE(why.find("model-00002-of-00002.safetensors: truncated: tensor 'a' ends at byte"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(std::to_string(file.size() - 10) + " bytes"), std::string::npos) << why;
}

TEST(SafetensorsCheckpoint, EveryOtherBadFolderIsOneClearLine) {
  {
    TempCheckpoint ck;  // no config.json
    ck.write("model.safetensors", write_safetensors({{"a", {"F32", {1}, f32_bytes(1)}}}));
    EXPECT_NE(ck.validate_error().find("config.json: cannot read"), std::string::npos) << ck.validate_error();
  }
  {
    TempCheckpoint ck;  // config.json not JSON: the byte offset is named
    ck.write("config.json", "{\"a\": ");
    ck.write("model.safetensors", write_safetensors({{"a", {"F32", {1}, f32_bytes(1)}}}));
    EXPECT_NE(ck.validate_error().find("config.json: not valid JSON at byte"), std::string::npos)
        << ck.validate_error();
  }
  {
    TempCheckpoint ck;  // no weights
    ck.write("config.json", "{}");
    EXPECT_NE(ck.validate_error().find("no .safetensors files"), std::string::npos) << ck.validate_error();
  }
  {
    TempCheckpoint ck;  // an index naming a missing shard
    ck.write("config.json", "{}");
    ck.write("model.safetensors.index.json", R"({"weight_map": {"a": "missing.safetensors"}})");
    EXPECT_NE(ck.validate_error().find("missing.safetensors: cannot open"), std::string::npos)
        << ck.validate_error();
  }
  {
    TempCheckpoint ck;  // a header length beyond the file
    ck.write("config.json", "{}");
    ck.write("model.safetensors", with_header(R"({"a": 1})", "").substr(0, 12));
    EXPECT_NE(ck.validate_error().find("truncated: the header says"), std::string::npos)
        << ck.validate_error();
  }
  {
    TempCheckpoint ck;  // not a directory at all
    try {
      validate_safetensors_checkpoint((ck.dir / "nope").string());
      ADD_FAILURE() << "no error";
    } catch (const SafetensorsError& e) {
      EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
    }
  }
}
