// The compute shaders as SPIR-V, compiled from shaders/*.comp by glslc and
// embedded at build time (cmake/VulkanEngine.cmake, cmake/EmbedFiles.cmake).
#pragma once

#include <string_view>

namespace accel::vulkan::shaders {

std::string_view fma_fp32();
std::string_view fma_fp16();
std::string_view fill();
std::string_view copy();
std::string_view read();

}  // namespace accel::vulkan::shaders
