// Gpu (gpu.hpp): one logical device, its queue, command buffer, timestamps,
// buffers and pipelines.
#include "engines/vulkan/gpu.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

namespace accel::vulkan::detail {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

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

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw VkError(fmt::format("{} failed: {}", what, result_name(r)));
}

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

Gpu::Gpu(const InstanceFns& ifn, VkPhysicalDevice pd, const DeviceInfo& info, std::uint32_t queue_family,
         const DeviceFeatures& features)
    : ifn_(ifn), info_(info), queue_family_(queue_family) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  q.queueFamilyIndex = queue_family;
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &q;
  std::vector<const char*> extensions;
  void* chain = nullptr;  // the features' pNext chain
  auto enable = [&chain](auto& feature) {
    feature.pNext = chain;
    chain = &feature;
  };
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
  dot.shaderIntegerDotProduct = VK_TRUE;
  if (features.int8_dot) {
    enable(dot);
    extensions.push_back("VK_KHR_shader_integer_dot_product");
  }
  VkPhysicalDeviceShaderFloat16Int8Features f16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  f16.shaderFloat16 = VK_TRUE;
  if (features.fp16) {
    enable(f16);
    if (features.fp16_by_extension) extensions.push_back("VK_KHR_shader_float16_int8");
  }
  ci.pNext = chain;
  ci.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.empty() ? nullptr : extensions.data();
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

Gpu::~Gpu() {
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
// ---- memory

Buffer Gpu::make_buffer(VkDeviceSize size, bool host) {
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

void Gpu::free(Buffer& b) {
  if (!b.buffer) return;
  if (b.mapped) fn_.vkUnmapMemory(device_, b.memory);
  fn_.vkDestroyBuffer(device_, b.buffer, nullptr);
  fn_.vkFreeMemory(device_, b.memory, nullptr);
  b = Buffer{};
}

// ---- pipelines

std::size_t Gpu::pipeline(std::string_view spirv, int bindings) {
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
  check(fn_.vkCreateDescriptorSetLayout(device_, &li, nullptr, &p.set_layout), "vkCreateDescriptorSetLayout");
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

void Gpu::record_dispatch(std::size_t pi, const std::vector<const Buffer*>& buffers, const Push& push,
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

void Gpu::barrier() {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
  fn_.vkCmdPipelineBarrier(
      cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0,
      1, &mb, 0, nullptr, 0, nullptr);
}

Gpu::Times Gpu::submit(const std::function<void()>& record, bool timed) {
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

void Gpu::copy(const Buffer& src, const Buffer& dst, VkDeviceSize bytes) {
  VkBufferCopy region{0, 0, bytes};
  fn_.vkCmdCopyBuffer(cmd_, src.buffer, dst.buffer, 1, &region);
}

std::vector<std::uint32_t> Gpu::download(const Buffer& b, VkDeviceSize bytes) {
  Buffer staging = make_buffer(bytes, true);
  submit([&] { copy(b, staging, bytes); }, false);
  std::vector<std::uint32_t> out(bytes / 4);
  std::memcpy(out.data(), staging.mapped, bytes);
  free(staging);
  return out;
}

}  // namespace accel::vulkan::detail
