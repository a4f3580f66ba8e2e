// The Vulkan calls of the ceiling (ceiling.hpp): the loader opened at run
// time, every function pointer through vkGetInstanceProcAddr /
// vkGetDeviceProcAddr, the embedded SPIR-V (shaders.hpp), timestamps around
// each dispatch or copy, the checksums read back and verified.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "core/stats.hpp"
#include "engines/vulkan/ceiling.hpp"
#include "engines/vulkan/shaders.hpp"
#include "platform/detail.hpp"

namespace accel::vulkan {

namespace {

using Clock = std::chrono::steady_clock;

std::string result_name(VkResult r) {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver / ICD found)";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    default:
      return fmt::format("VkResult {}", static_cast<int>(r));
  }
}

struct VkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw VkError(fmt::format("{} failed: {}", what, result_name(r)));
}

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

std::vector<std::string> default_loader_names() {
#if defined(_WIN32)
  return {"vulkan-1.dll"};
#elif defined(__APPLE__)
  return {"libvulkan.1.dylib", "libMoltenVK.dylib"};
#else
  return {"libvulkan.so.1", "libvulkan.so"};
#endif
}

bool has_extension(const std::vector<VkExtensionProperties>& exts, const char* name) {
  for (const auto& e : exts) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

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

class Gpu {
 public:
  Gpu(const InstanceFns& ifn, VkPhysicalDevice pd, const DeviceInfo& info, std::uint32_t queue_family,
      bool enable_fp16, bool fp16_by_extension)
      : ifn_(ifn), info_(info), queue_family_(queue_family) {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = queue_family;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;
    VkPhysicalDeviceShaderFloat16Int8Features f16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    f16.shaderFloat16 = VK_TRUE;
    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &q;
    const char* ext = "VK_KHR_shader_float16_int8";
    if (enable_fp16) {
      ci.pNext = &f16;
      if (fp16_by_extension) {
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &ext;
      }
    }
    check(ifn_.vkCreateDevice(pd, &ci, nullptr, &device_), "vkCreateDevice");
#define ACCEL_VK_LOAD_DEVICE(name)                                                   \
  fn_.name = reinterpret_cast<PFN_##name>(ifn_.vkGetDeviceProcAddr(device_, #name)); \
  if (!fn_.name) throw VkError("the driver does not export " #name);
    ACCEL_VK_DEVICE_FUNCS(ACCEL_VK_LOAD_DEVICE)
#undef ACCEL_VK_LOAD_DEVICE
    fn_.vkGetDeviceQueue(device_, queue_family, 0, &queue_);
    ifn_.vkGetPhysicalDeviceMemoryProperties(pd, &memory_);

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = queue_family;
    check(fn_.vkCreateCommandPool(device_, &pci, nullptr, &pool_), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check(fn_.vkAllocateCommandBuffers(device_, &ai, &cmd_), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(fn_.vkCreateFence(device_, &fi, nullptr, &fence_), "vkCreateFence");
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    check(fn_.vkCreateQueryPool(device_, &qi, nullptr, &queries_), "vkCreateQueryPool");
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 64};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 32;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    check(fn_.vkCreateDescriptorPool(device_, &dpi, nullptr, &descriptors_), "vkCreateDescriptorPool");
  }

  ~Gpu() {
    if (!device_) return;
    fn_.vkQueueWaitIdle(queue_);
    for (auto& p : pipelines_) {
      fn_.vkDestroyPipeline(device_, p.pipeline, nullptr);
      fn_.vkDestroyPipelineLayout(device_, p.layout, nullptr);
      fn_.vkDestroyDescriptorSetLayout(device_, p.set_layout, nullptr);
      fn_.vkDestroyShaderModule(device_, p.module, nullptr);
    }
    if (descriptors_) fn_.vkDestroyDescriptorPool(device_, descriptors_, nullptr);
    if (queries_) fn_.vkDestroyQueryPool(device_, queries_, nullptr);
    if (fence_) fn_.vkDestroyFence(device_, fence_, nullptr);
    if (pool_) fn_.vkDestroyCommandPool(device_, pool_, nullptr);
    fn_.vkDestroyDevice(device_, nullptr);
  }
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  // ---- memory

  /// A buffer; `host` = host-visible and coherent (mapped), else device-local
  /// (falling back to any type the buffer accepts).
  Buffer make_buffer(VkDeviceSize size, bool host) {
    Buffer b;
    b.size = size;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(fn_.vkCreateBuffer(device_, &bi, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    fn_.vkGetBufferMemoryRequirements(device_, b.buffer, &req);
    const VkMemoryPropertyFlags want =
        host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
             : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int type = -1;
    // Host buffers: system memory (not device-local) first, cached first, so
    // transfers cross the bus and reads back are fast.
    for (int pass = 0; pass < 3 && type < 0; ++pass) {
      for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
        if (!(req.memoryTypeBits & (1u << i))) continue;
        const auto f = memory_.memoryTypes[i].propertyFlags;
        if ((f & want) != want) continue;
        if (host && pass == 0 &&
            ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) || !(f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)))
          continue;
        if (host && pass == 1 && (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) continue;
        type = static_cast<int>(i);
        break;
      }
    }
    if (type < 0) {
      fn_.vkDestroyBuffer(device_, b.buffer, nullptr);
      throw VkError(host ? "no host-visible coherent memory type" : "no device-local memory type");
    }
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = static_cast<std::uint32_t>(type);
    const VkResult r = fn_.vkAllocateMemory(device_, &ai, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
      fn_.vkDestroyBuffer(device_, b.buffer, nullptr);
      check(r, "vkAllocateMemory");
    }
    check(fn_.vkBindBufferMemory(device_, b.buffer, b.memory, 0), "vkBindBufferMemory");
    if (host) check(fn_.vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
    return b;
  }

  void free(Buffer& b) {
    if (!b.buffer) return;
    if (b.mapped) fn_.vkUnmapMemory(device_, b.memory);
    fn_.vkDestroyBuffer(device_, b.buffer, nullptr);
    fn_.vkFreeMemory(device_, b.memory, nullptr);
    b = Buffer{};
  }

  // ---- pipelines

  std::size_t pipeline(std::string_view spirv, int bindings) {
    Pipeline p;
    p.bindings = bindings;
    std::vector<std::uint32_t> code((spirv.size() + 3) / 4);
    std::memcpy(code.data(), spirv.data(), spirv.size());
    VkShaderModuleCreateInfo si{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    si.codeSize = spirv.size();
    si.pCode = code.data();
    check(fn_.vkCreateShaderModule(device_, &si, nullptr, &p.module), "vkCreateShaderModule");
    std::vector<VkDescriptorSetLayoutBinding> b(bindings);
    for (int i = 0; i < bindings; ++i) {
      b[i].binding = static_cast<std::uint32_t>(i);
      b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      b[i].descriptorCount = 1;
      b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = static_cast<std::uint32_t>(bindings);
    li.pBindings = b.data();
    check(fn_.vkCreateDescriptorSetLayout(device_, &li, nullptr, &p.set_layout),
          "vkCreateDescriptorSetLayout");
    VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &p.set_layout;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pr;
    check(fn_.vkCreatePipelineLayout(device_, &pli, nullptr, &p.layout), "vkCreatePipelineLayout");
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = p.module;
    ci.stage.pName = "main";
    ci.layout = p.layout;
    check(fn_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &p.pipeline),
          "vkCreateComputePipelines");
    pipelines_.push_back(p);
    return pipelines_.size() - 1;
  }

  /// Records one dispatch of pipeline `pi` over `buffers` into the command buffer.
  void record_dispatch(std::size_t pi, const std::vector<const Buffer*>& buffers, const Push& push,
                       std::uint32_t groups) {
    const Pipeline& p = pipelines_.at(pi);
    VkDescriptorSet set;
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = descriptors_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &p.set_layout;
    check(fn_.vkAllocateDescriptorSets(device_, &ai, &set), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      infos[i] = {buffers[i]->buffer, 0, VK_WHOLE_SIZE};
      writes[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstSet = set;
      writes[i].dstBinding = static_cast<std::uint32_t>(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    fn_.vkUpdateDescriptorSets(device_, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
    fn_.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    fn_.vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
    fn_.vkCmdPushConstants(cmd_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push), &push);
    fn_.vkCmdDispatch(cmd_, groups, 1, 1);
  }

  void barrier() {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    fn_.vkCmdPipelineBarrier(
        cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0,
        1, &mb, 0, nullptr, 0, nullptr);
  }

  /// Device time (ms, from the timestamps) and host time (ms, the clock
  /// around submit and fence) of the commands `record` adds.
  struct Times {
    double device_ms = 0;
    double host_ms = 0;
  };
  Times submit(const std::function<void()>& record, bool timed = true) {
    check(fn_.vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(fn_.vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    if (timed) {
      fn_.vkCmdResetQueryPool(cmd_, queries_, 0, 2);
      fn_.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
    }
    record();
    if (timed) fn_.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
    barrier();
    check(fn_.vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    check(fn_.vkResetFences(device_, 1, &fence_), "vkResetFences");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd_;
    const auto t0 = Clock::now();
    check(fn_.vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
    check(fn_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, 120ull * 1000 * 1000 * 1000), "vkWaitForFences");
    const auto t1 = Clock::now();
    fn_.vkResetDescriptorPool(device_, descriptors_, 0);
    Times t;
    t.host_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (timed) {
      std::uint64_t ts[2] = {0, 0};
      check(fn_.vkGetQueryPoolResults(device_, queries_, 0, 2, sizeof(ts), ts, sizeof(std::uint64_t),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
            "vkGetQueryPoolResults");
      const std::uint64_t mask =
          info_.timestamp_valid_bits >= 64 ? ~0ull : ((1ull << info_.timestamp_valid_bits) - 1);
      const std::uint64_t ticks = (ts[1] - ts[0]) & mask;
      t.device_ms = static_cast<double>(ticks) * info_.timestamp_period_ns * 1e-6;
    }
    return t;
  }

  void copy(const Buffer& src, const Buffer& dst, VkDeviceSize bytes) {
    VkBufferCopy region{0, 0, bytes};
    fn_.vkCmdCopyBuffer(cmd_, src.buffer, dst.buffer, 1, &region);
  }

  /// The first `bytes` of a device buffer, through a host-visible staging buffer.
  std::vector<std::uint32_t> download(const Buffer& b, VkDeviceSize bytes) {
    Buffer staging = make_buffer(bytes, true);
    submit([&] { copy(b, staging, bytes); }, false);
    std::vector<std::uint32_t> out(bytes / 4);
    std::memcpy(out.data(), staging.mapped, bytes);
    free(staging);
    return out;
  }

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

// ---------------------------------------------------------------- measurements

Push push_of(std::uint32_t w0, std::uint32_t w1 = 0) {
  Push p;
  p.words[0] = w0;
  p.words[1] = w1;
  return p;
}

Push fma_push(std::uint32_t iterations, const FmaParams& prm) {
  Push p;
  p.words[0] = iterations;
  std::memcpy(&p.words[1], &prm.b, 4);
  std::memcpy(&p.words[2], &prm.c, 4);
  std::memcpy(&p.words[3], &prm.seed, 4);
  return p;
}

/// Samples of `record`: one untimed warm-up submit, then `n` timed ones.
/// Device time from the timestamps when the queue has them, else the host
/// clock (the row says which); the host clock's median goes into metrics.
struct Sampled {
  std::vector<double> samples_us;
  double host_median_ms = 0;
  double device_median_ms = 0;
  std::string method = "vulkan_timestamps";
};
Sampled sample(Gpu& gpu, const std::function<void()>& record, int n) {
  const bool ts = gpu.info().timestamp_valid_bits > 0;
  gpu.submit(record, false);
  Sampled s;
  std::vector<double> host, device;
  for (int i = 0; i < n; ++i) {
    const auto t = gpu.submit(record, ts);
    host.push_back(t.host_ms);
    device.push_back(ts ? t.device_ms : t.host_ms);
    s.samples_us.push_back((ts ? t.device_ms : t.host_ms) * 1000);
  }
  s.host_median_ms = quantile(host, 0.5);
  s.device_median_ms = quantile(device, 0.5);
  if (!ts) s.method = "host_clock";
  return s;
}

void finish_row(Result& r, const Sampled& s) {
  r.timing->method = s.method;
  r.metrics["host_median_ms"] = s.host_median_ms;
  const std::string cc = timing_cross_check(s.device_median_ms, s.host_median_ms);
  if (!cc.empty()) r.warnings.push_back(cc);
}

Result measure_fma(Gpu& gpu, bool fp16, const Options& o) {
  const DeviceInfo& d = gpu.info();
  const std::string dtype = fp16 ? "fp16" : "fp32";
  const auto t_start = Clock::now();
  const std::size_t pi = gpu.pipeline(fp16 ? shaders::fma_fp16() : shaders::fma_fp32(), 1);
  const std::uint32_t groups = d.software ? 16 : 8192;
  const std::uint64_t lanes = std::uint64_t{groups} * kWorkgroupSize;
  Buffer out = gpu.make_buffer(lanes * 4, false);
  const FmaParams prm = fma_params(fp16);
  const double target = d.software ? o.software_target_ms : o.gpu_target_ms;
  std::uint32_t iterations = d.software ? 2 : 64;
  auto record = [&] { gpu.record_dispatch(pi, {&out}, fma_push(iterations, prm), groups); };
  // Grow the trip count until one submit lasts `target`; bounded in time.
  const bool ts = d.timestamp_valid_bits > 0;
  gpu.submit(record, false);  // warm-up: the pipeline's first dispatch may compile it (lavapipe JITs)
  auto t = gpu.submit(record, ts);
  std::vector<std::string> growth{fmt::format("{}:{:.3f}ms", iterations, ts ? t.device_ms : t.host_ms)};
  while (auto next = next_iterations(iterations, ts ? t.device_ms : t.host_ms, target)) {
    if (std::chrono::duration<double>(Clock::now() - t_start).count() > (d.software ? 5 : 30)) break;
    iterations = *next;
    t = gpu.submit(record, ts);
    growth.push_back(fmt::format("{}:{:.3f}ms", iterations, ts ? t.device_ms : t.host_ms));
  }
  const Sampled s = sample(gpu, record, d.software ? o.software_samples : o.gpu_samples);
  // Checksums of 64 lanes spread over the dispatch, recomputed in double.
  const auto sums = gpu.download(out, lanes * 4);
  gpu.free(out);
  double worst = 0;
  int bad = 0;
  for (int k = 0; k < 64; ++k) {
    const auto lane = static_cast<std::uint32_t>((lanes - 1) * k / 63);
    const double want = fma_lane_expected(prm, lane, iterations);
    float got = 0;
    std::memcpy(&got, &sums[lane], sizeof got);
    const double err = std::abs(got - want) / std::max(1e-30, std::abs(want));
    if (!(err <= fma_tolerance(fp16))) ++bad;
    worst = std::max(worst, std::isfinite(err) ? err : 1e30);
  }
  Work w;
  w.flops = 2.0 * static_cast<double>(lanes) * iterations * kFmaUnroll * kFmaChains;
  Result r = make_row(d, "compute", "fma", dtype, "chains32", s.samples_us, w);
  finish_row(r, s);
  r.metrics["iterations"] = iterations;
  r.metrics["lanes"] = static_cast<double>(lanes);
  r.evidence["growth"] = growth;
  r.accuracy = Accuracy{
      "checksum", worst, fma_tolerance(fp16),
      fmt::format("64 lanes' sums of their {} chains against the closed form in double", kFmaChains)};
  if (bad > 0) {
    r.status = Status::mismatch;
    r.reason = fmt::format("{} of 64 sampled lane checksums wrong (worst relative error {:.3g})", bad, worst);
  }
  if (ts && t.device_ms < target && !d.software) {
    r.warnings.push_back(fmt::format("the dispatch did not reach {:.0f} ms per submit", target));
  }
  return r;
}

std::vector<Result> measure_memory(Gpu& gpu, const Options& o) {
  const DeviceInfo& d = gpu.info();
  const std::uint64_t bytes = memory_buffer_bytes(d, o.quick);
  const std::uint64_t words = bytes / 4, elements = bytes / 16;
  const auto count = static_cast<std::uint32_t>(elements);
  const std::uint32_t groups = static_cast<std::uint32_t>(
      std::min<std::uint64_t>((elements + kWorkgroupSize - 1) / kWorkgroupSize, 65535));
  const std::uint32_t seed = 0x5eed1234u;
  const std::size_t fill = gpu.pipeline(shaders::fill(), 1);
  const std::size_t read = gpu.pipeline(shaders::read(), 2);
  const std::size_t copy = gpu.pipeline(shaders::copy(), 2);
  Buffer src = gpu.make_buffer(bytes, false);
  Buffer dst = gpu.make_buffer(bytes, false);
  Buffer sums = gpu.make_buffer(std::uint64_t{groups} * 4, false);
  gpu.submit(
      [&] { gpu.record_dispatch(fill, {&src}, push_of(static_cast<std::uint32_t>(words), seed), groups); },
      false);
  const std::uint32_t expected = read_checksum_expected(words, seed);
  auto checksum = [&]() {
    std::uint32_t s = 0;
    for (auto v : gpu.download(sums, std::uint64_t{groups} * 4)) s += v;
    return s;
  };
  const int n = d.software ? o.software_samples : 21;
  const std::string shape = "large";
  std::vector<Result> rows;

  const Sampled sr = sample(
      gpu,
      [&] {
        gpu.record_dispatch(read, {&src, &sums}, push_of(count), groups);
      },
      n);
  const std::uint32_t got_read = checksum();
  Result rr = make_row(d, "memory", "read", "u32", shape, sr.samples_us, Work{0, static_cast<double>(bytes)});
  finish_row(rr, sr);
  rows.push_back(rr);

  const Sampled sc = sample(
      gpu,
      [&] {
        gpu.record_dispatch(copy, {&src, &dst}, push_of(count), groups);
      },
      n);
  gpu.submit([&] { gpu.record_dispatch(read, {&dst, &sums}, push_of(count), groups); }, false);
  const std::uint32_t got_copy = checksum();
  Result rc =
      make_row(d, "memory", "copy", "u32", shape, sc.samples_us, Work{0, 2.0 * static_cast<double>(bytes)});
  finish_row(rc, sc);
  rows.push_back(rc);

  for (auto* r : {&rows[0], &rows[1]}) {
    const std::uint32_t got = r == &rows[0] ? got_read : got_copy;
    r->metrics["buffer_bytes"] = static_cast<double>(bytes);
    r->accuracy = Accuracy{"checksum", got == expected ? 0.0 : 1.0, 0,
                           fmt::format("position-weighted sum {:#010x}, expected {:#010x}", got, expected)};
    if (got != expected) {
      r->status = Status::mismatch;
      r->reason = fmt::format("checksum {:#010x} != {:#010x} expected from the data", got, expected);
    }
  }
  gpu.free(src);
  gpu.free(dst);
  gpu.free(sums);
  return rows;
}

std::vector<Result> measure_transfers(Gpu& gpu, const Options& o) {
  const DeviceInfo& d = gpu.info();
  const std::uint64_t bytes = (d.software ? 8 : 256) * (1ull << 20);
  const std::string shape = d.software ? "8MiB" : "256MiB";
  Buffer host = gpu.make_buffer(bytes, true);
  Buffer back = gpu.make_buffer(bytes, true);
  Buffer dev = gpu.make_buffer(bytes, false);
  auto* h = static_cast<std::uint32_t*>(host.mapped);
  for (std::uint64_t i = 0; i < bytes / 4; ++i) h[i] = fill_word(static_cast<std::uint32_t>(i), 77u);
  std::memset(back.mapped, 0, bytes);
  const int n = d.software ? o.software_samples : 11;
  std::vector<Result> rows;
  const Sampled up = sample(
      gpu, [&] { gpu.copy(host, dev, bytes); }, n);
  const Sampled down = sample(
      gpu, [&] { gpu.copy(dev, back, bytes); }, n);
  const bool same = std::memcmp(host.mapped, back.mapped, bytes) == 0;
  for (const bool h2d : {true, false}) {
    Result r = make_row(d, "transfer", h2d ? "h2d" : "d2h", "u8", shape, (h2d ? up : down).samples_us,
                        Work{0, static_cast<double>(bytes)});
    finish_row(r, h2d ? up : down);
    r.accuracy =
        Accuracy{"exact", same ? 0.0 : 1.0, 0, "host -> device -> host round trip compared byte for byte"};
    if (!same) {
      r.status = Status::mismatch;
      r.reason = "the bytes read back differ from those written";
    }
    rows.push_back(std::move(r));
  }
  gpu.free(host);
  gpu.free(back);
  gpu.free(dev);
  return rows;
}

// ---------------------------------------------------------------- discovery

struct Described {
  DeviceInfo info;
  std::uint32_t queue_family = 0;
  bool has_compute = false;
  bool fp16_by_extension = false;
};

Described describe(const InstanceFns& f, VkPhysicalDevice pd, int index, std::uint32_t instance_api) {
  Described out;
  DeviceInfo& d = out.info;
  d.index = index;
  VkPhysicalDeviceProperties props;
  f.vkGetPhysicalDeviceProperties(pd, &props);
  std::uint32_t n = 0;
  f.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  f.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
  const bool v12 = props.apiVersion >= VK_API_VERSION_1_2 && instance_api >= VK_API_VERSION_1_2;

  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceIDProperties idp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceDriverProperties drv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  p2.pNext = &idp;
  void** tail = &idp.pNext;
  const bool has_driver = v12 || has_extension(exts, "VK_KHR_driver_properties");
  const bool has_pci = has_extension(exts, "VK_EXT_pci_bus_info");
  if (has_driver) {
    *tail = &drv;
    tail = &drv.pNext;
  }
  if (has_pci) {
    *tail = &pci;
    tail = &pci.pNext;
  }
  f.vkGetPhysicalDeviceProperties2(pd, &p2);

  d.name = props.deviceName;
  d.type = device_type_name(static_cast<int>(props.deviceType));
  d.vendor_id = fmt::format("{:#06x}", props.vendorID);
  d.device_id = fmt::format("{:#06x}", props.deviceID);
  d.api_version = api_version_string(props.apiVersion);
  if (has_driver) {
    d.driver_name = drv.driverName;
    d.driver_info = drv.driverInfo;
  }
  if (has_pci) d.pci_address = pci_string(pci.pciDomain, pci.pciBus, pci.pciDevice, pci.pciFunction);
  d.device_uuid = hex_bytes(idp.deviceUUID, VK_UUID_SIZE);
  if (idp.deviceLUIDValid) d.device_luid = hex_bytes(idp.deviceLUID, VK_LUID_SIZE);
  d.software = is_software_device(d.type, d.name, d.driver_name);
  d.timestamp_period_ns = props.limits.timestampPeriod;
  d.max_storage_buffer_range = props.limits.maxStorageBufferRange;
  if (!has_pci)
    d.notes.push_back("PCI address unknown: the driver has no VK_EXT_pci_bus_info (joined by name)");

  VkPhysicalDeviceMemoryProperties mem;
  f.vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (std::uint32_t i = 0; i < mem.memoryHeapCount; ++i) {
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      d.device_local_bytes = std::max<std::uint64_t>(d.device_local_bytes, mem.memoryHeaps[i].size);
  }

  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> qf(n);
  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, qf.data());
  for (int pass = 0; pass < 2 && !out.has_compute; ++pass) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!(qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
      if (pass == 0 && qf[i].timestampValidBits == 0) continue;
      out.queue_family = i;
      out.has_compute = true;
      d.timestamp_valid_bits = qf[i].timestampValidBits;
      break;
    }
  }
  if (out.has_compute && d.timestamp_valid_bits == 0)
    d.notes.push_back("the compute queue has no timestamps: timed with the host clock");

  const bool f16_ext = has_extension(exts, "VK_KHR_shader_float16_int8");
  if (v12 || f16_ext) {
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceShaderFloat16Int8Features f16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    f2.pNext = &f16;
    f.vkGetPhysicalDeviceFeatures2(pd, &f2);
    d.fp16 = f16.shaderFloat16 == VK_TRUE;
    out.fp16_by_extension = !v12;
  }
  d.notes.push_back("int8 dot product: left out (not measured by this engine yet)");
  return out;
}

}  // namespace

Run run(const Options& options) {
  Run out;
  const auto lib = platform::detail::DynLib::open(options.loader_names.empty() ? default_loader_names()
                                                                               : options.loader_names);
  if (!lib) {
    out.error = "no Vulkan loader (" + lib.error + ")";
    return out;
  }
  out.loader = lib.name;
  auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(lib.sym("vkGetInstanceProcAddr"));
  if (!gipa) {
    out.error = lib.name + " exports no vkGetInstanceProcAddr";
    return out;
  }
  auto enumerate_version =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(gipa(nullptr, "vkEnumerateInstanceVersion"));
  std::uint32_t loader_api = VK_API_VERSION_1_0;
  if (enumerate_version) enumerate_version(&loader_api);
  if (loader_api < VK_API_VERSION_1_1) {
    out.error =
        fmt::format("the Vulkan loader is {}; 1.1 or later is needed", api_version_string(loader_api));
    return out;
  }
  auto create_instance = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "accel-doctor";
  app.pEngineName = "accel-doctor vulkan ceiling";
  app.apiVersion = loader_api >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (!create_instance) {
    out.error = "the loader has no vkCreateInstance";
    return out;
  }
  if (const VkResult r = create_instance(&ici, nullptr, &instance); r != VK_SUCCESS) {
    out.error = "vkCreateInstance failed: " + result_name(r);
    return out;
  }
  InstanceFns f;
  bool complete = true;
#define ACCEL_VK_LOAD_INSTANCE(name)                            \
  f.name = reinterpret_cast<PFN_##name>(gipa(instance, #name)); \
  if (!f.name) complete = false;
  ACCEL_VK_INSTANCE_FUNCS(ACCEL_VK_LOAD_INSTANCE)
#undef ACCEL_VK_LOAD_INSTANCE
  if (!complete) {
    out.error = "the Vulkan loader lacks core 1.1 instance functions";
    if (f.vkDestroyInstance) f.vkDestroyInstance(instance, nullptr);
    return out;
  }
  std::uint32_t count = 0;
  f.vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> pds(count);
  f.vkEnumeratePhysicalDevices(instance, &count, pds.data());
  if (count == 0) out.error = "the Vulkan loader found no physical device (no driver / ICD installed)";
  for (std::uint32_t i = 0; i < count; ++i) {
    Described desc = describe(f, pds[i], static_cast<int>(i), app.apiVersion);
    DeviceInfo& d = desc.info;
    auto missing = [&](const std::string& g, const std::string& nm, const std::string& dt,
                       const std::string& sh, Status st, const std::string& why) {
      out.results.push_back(make_missing_row(d, g, nm, dt, sh, st, why));
    };
    if (!desc.has_compute) {
      d.notes.push_back("no compute queue: nothing measured");
      missing("compute", "fma", "fp32", "chains32", Status::unavailable, "the device has no compute queue");
      out.devices.push_back(d);
      continue;
    }
    if (options.gpus_only && d.software) {
      d.notes.push_back("a software (CPU) device: listed, not measured here (`bench --vulkan` measures it)");
      out.devices.push_back(d);
      continue;
    }
    try {
      Gpu gpu(f, pds[i], d, desc.queue_family, d.fp16, desc.fp16_by_extension);
      auto guarded = [&](const std::string& g, const std::string& nm, const std::string& dt,
                         const std::string& sh, const std::function<void()>& body) {
        try {
          body();
        } catch (const std::exception& e) {
          missing(g, nm, dt, sh, Status::error, e.what());
        }
      };
      guarded("compute", "fma", "fp32", "chains32",
              [&] { out.results.push_back(measure_fma(gpu, false, options)); });
      if (d.fp16) {
        guarded("compute", "fma", "fp16", "chains32",
                [&] { out.results.push_back(measure_fma(gpu, true, options)); });
      } else {
        missing("compute", "fma", "fp16", "chains32", Status::unavailable, "the device has no shaderFloat16");
      }
      guarded("memory", "copy", "u32", "large", [&] {
        for (auto& r : measure_memory(gpu, options)) out.results.push_back(std::move(r));
      });
      guarded("transfer", "h2d", "u8", d.software ? "8MiB" : "256MiB", [&] {
        for (auto& r : measure_transfers(gpu, options)) out.results.push_back(std::move(r));
      });
    } catch (const std::exception& e) {
      d.notes.push_back(std::string("could not open the device: ") + e.what());
      missing("compute", "fma", "fp32", "chains32", Status::error,
              std::string("could not open the device: ") + e.what());
    }
    out.devices.push_back(d);
  }
  f.vkDestroyInstance(instance, nullptr);
  return out;
}

}  // namespace accel::vulkan
