// Inside the Vulkan ceiling engine (not a public header: runtime.cpp and
// measure.cpp only): the function tables loaded through
// vkGetInstanceProcAddr / vkGetDeviceProcAddr, errors, and `Gpu`, one logical
// device with one compute queue, a command buffer, a timestamp query pair and
// the helpers the measurements use (buffers, pipelines, timed submits).
// Throws VkError (a std::runtime_error naming the call and the VkResult).
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engines/vulkan/ceiling.hpp"

namespace accel::vulkan::detail {

/// "VK_ERROR_DEVICE_LOST", ... ("VkResult N" for others).
std::string result_name(VkResult r);

struct VkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws VkError "<what> failed: <result>" unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

// ---------------------------------------------------------------- function tables

#define ACCEL_VK_INSTANCE_FUNCS(X)            \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

#define ACCEL_VK_DEVICE_FUNCS(X)   \
  X(vkDestroyDevice)               \
  X(vkGetDeviceQueue)              \
  X(vkCreateBuffer)                \
  X(vkDestroyBuffer)               \
  X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory)              \
  X(vkFreeMemory)                  \
  X(vkBindBufferMemory)            \
  X(vkMapMemory)                   \
  X(vkUnmapMemory)                 \
  X(vkCreateShaderModule)          \
  X(vkDestroyShaderModule)         \
  X(vkCreateDescriptorSetLayout)   \
  X(vkDestroyDescriptorSetLayout)  \
  X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout)       \
  X(vkCreateComputePipelines)      \
  X(vkDestroyPipeline)             \
  X(vkCreateDescriptorPool)        \
  X(vkDestroyDescriptorPool)       \
  X(vkAllocateDescriptorSets)      \
  X(vkResetDescriptorPool)         \
  X(vkUpdateDescriptorSets)        \
  X(vkCreateCommandPool)           \
  X(vkDestroyCommandPool)          \
  X(vkAllocateCommandBuffers)      \
  X(vkBeginCommandBuffer)          \
  X(vkEndCommandBuffer)            \
  X(vkResetCommandBuffer)          \
  X(vkCmdBindPipeline)             \
  X(vkCmdBindDescriptorSets)       \
  X(vkCmdPushConstants)            \
  X(vkCmdDispatch)                 \
  X(vkCmdWriteTimestamp)           \
  X(vkCmdResetQueryPool)           \
  X(vkCmdCopyBuffer)               \
  X(vkCmdPipelineBarrier)          \
  X(vkCreateQueryPool)             \
  X(vkDestroyQueryPool)            \
  X(vkGetQueryPoolResults)         \
  X(vkQueueSubmit)                 \
  X(vkQueueWaitIdle)               \
  X(vkCreateFence)                 \
  X(vkDestroyFence)                \
  X(vkWaitForFences)               \
  X(vkResetFences)

#define ACCEL_VK_DECLARE(name) PFN_##name name = nullptr;

struct InstanceFns {
  ACCEL_VK_INSTANCE_FUNCS(ACCEL_VK_DECLARE)
};
struct DeviceFns {
  ACCEL_VK_DEVICE_FUNCS(ACCEL_VK_DECLARE)
};

/// The loader's file names on this platform.
std::vector<std::string> default_loader_names();
bool has_extension(const std::vector<VkExtensionProperties>& exts, const char* name);

// ---------------------------------------------------------------- one device

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
};

struct Pipeline {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  int bindings = 0;
};

/// Push constants of every shader fit in 16 bytes.
struct Push {
  std::uint32_t words[4] = {0, 0, 0, 0};
};

/// What to enable on the logical device (each only where describe() found it).
struct DeviceFeatures {
  bool fp16 = false;               ///< shaderFloat16
  bool fp16_by_extension = false;  ///< through VK_KHR_shader_float16_int8 (a 1.1 device)
  bool int8_dot = false;           ///< shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product)
};

class Gpu {
 public:
  Gpu(const InstanceFns& ifn, VkPhysicalDevice pd, const DeviceInfo& info, std::uint32_t queue_family,
      const DeviceFeatures& features);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  /// A buffer; `host` = host-visible and coherent (mapped), else device-local
  /// (falling back to any type the buffer accepts).
  Buffer make_buffer(VkDeviceSize size, bool host);
  void free(Buffer& b);

  /// A compute pipeline of `spirv` with `bindings` storage buffers and a
  /// 16-byte push constant; returns its index for record_dispatch.
  std::size_t pipeline(std::string_view spirv, int bindings);
  /// Records one dispatch of pipeline `pi` over `buffers` into the command buffer.
  void record_dispatch(std::size_t pi, const std::vector<const Buffer*>& buffers, const Push& push,
                       std::uint32_t groups);
  void barrier();

  /// Device time (ms, from the timestamps) and host time (ms, the clock
  /// around submit and fence) of the commands `record` adds.
  struct Times {
    double device_ms = 0;
    double host_ms = 0;
  };
  Times submit(const std::function<void()>& record, bool timed = true);
  void copy(const Buffer& src, const Buffer& dst, VkDeviceSize bytes);
  /// The first `bytes` of a device buffer, through a host-visible staging buffer.
  std::vector<std::uint32_t> download(const Buffer& b, VkDeviceSize bytes);

  const DeviceInfo& info() const { return info_; }

 private:
  const InstanceFns& ifn_;
  DeviceInfo info_;
  std::uint32_t queue_family_ = 0;
  DeviceFns fn_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  std::vector<Pipeline> pipelines_;
};

}  // namespace accel::vulkan::detail
