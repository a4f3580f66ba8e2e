// One libFuzzer target per harness: compiled once per name with
// -DACCEL_FUZZ_TARGET=<name> (tests/fuzz/CMakeLists.txt).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return accel::fuzz::ACCEL_FUZZ_TARGET(data, size);
}
