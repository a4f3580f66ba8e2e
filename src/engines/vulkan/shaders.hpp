// The compute shaders as SPIR-V, embedded at build time
// (cmake/VulkanEngine.cmake, cmake/EmbedFiles.cmake): shaders/*.comp compiled
// by glslc, shaders/dot_int8.spvasm assembled by spirv-as.
#pragma once

#include <string_view>

namespace accel::vulkan::shaders {

std::string_view fma_fp32();
std::string_view fma_fp16();
std::string_view fill();
std::string_view copy();
std::string_view read();
#if ACCEL_VULKAN_INT8
std::string_view dot_int8();
#else
/// This build had no spirv-as (Debian: spirv-tools): no int8 dot product shader.
inline std::string_view dot_int8() { return {}; }
#endif

}  // namespace accel::vulkan::shaders
