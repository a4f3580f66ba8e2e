// The Vulkan calls of the ceiling (ceiling.hpp): the loader opened at run
// time, every function pointer through vkGetInstanceProcAddr, each physical
// device described (identity, features) and measured (measure.hpp) on a
// logical device (gpu.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "engines/vulkan/ceiling.hpp"
#include "engines/vulkan/gpu.hpp"
#include "engines/vulkan/measure.hpp"
#include "engines/vulkan/shaders.hpp"
#include "platform/detail.hpp"

namespace accel::vulkan {

namespace {

using namespace detail;

// ---------------------------------------------------------------- discovery

/// Fills `ext` (an extension struct with its sType) through
/// vkGetPhysicalDeviceFeatures2.
template <typename T>
void query_features(const InstanceFns& f, VkPhysicalDevice pd, T& ext) {
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &ext;
  f.vkGetPhysicalDeviceFeatures2(pd, &f2);
}

struct Described {
  DeviceInfo info;
  std::uint32_t queue_family = 0;
  bool has_compute = false;
  DeviceFeatures features;
};

/// shaderIntegerDotProduct and whether the packed signed 4x8 form is
/// hardware-accelerated (VK_KHR_shader_integer_dot_product, core in 1.3).
void describe_int8_dot(const InstanceFns& f, VkPhysicalDevice pd,
                       const std::vector<VkExtensionProperties>& exts, Described& out) {
  DeviceInfo& d = out.info;
  if (shaders::dot_int8().empty()) {
    d.notes.push_back("int8 dot product: left out, this build had no spirv-as (Debian: spirv-tools)");
    return;
  }
  if (!has_extension(exts, "VK_KHR_shader_integer_dot_product")) {
    d.notes.push_back("int8 dot product: the driver has no VK_KHR_shader_integer_dot_product");
    return;
  }
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
  query_features(f, pd, dot);
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceShaderIntegerDotProductPropertiesKHR props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES_KHR};
  p2.pNext = &props;
  f.vkGetPhysicalDeviceProperties2(pd, &p2);
  d.int8_dot = dot.shaderIntegerDotProduct == VK_TRUE;
  d.int8_dot_accelerated = props.integerDotProduct4x8BitPackedSignedAccelerated == VK_TRUE;
  out.features.int8_dot = d.int8_dot;
  if (!d.int8_dot) {
    d.notes.push_back("int8 dot product: the driver reports no shaderIntegerDotProduct");
  } else if (!d.int8_dot_accelerated) {
    d.notes.push_back(
        "int8 dot product: the driver says the packed 4x8-bit signed form is not hardware-accelerated "
        "(emulated with other instructions)");
  }
}

/// Why the int8 row is not measured: the device's int8 note without its prefix.
std::string int8_missing_reason(const DeviceInfo& d) {
  const std::string prefix = "int8 dot product: ";
  for (const auto& n : d.notes) {
    if (n.rfind(prefix, 0) == 0) return n.substr(prefix.size());
  }
  return "the device has no shaderIntegerDotProduct";
}

/// The compute queue family to measure on: one with timestamps first.
void find_compute_queue(const InstanceFns& f, VkPhysicalDevice pd, Described& out) {
  DeviceInfo& d = out.info;
  std::uint32_t n = 0;
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
}

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

  find_compute_queue(f, pd, out);

  const bool f16_ext = has_extension(exts, "VK_KHR_shader_float16_int8");
  if (v12 || f16_ext) {
    VkPhysicalDeviceShaderFloat16Int8Features f16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    query_features(f, pd, f16);
    d.fp16 = f16.shaderFloat16 == VK_TRUE;
    out.features.fp16 = d.fp16;
    out.features.fp16_by_extension = !v12;
  }
  describe_int8_dot(f, pd, exts, out);
  return out;
}

/// The instance of the loader `lib` with its core 1.1 functions; on failure
/// `error` says why and nothing is left to destroy.
struct Instance {
  VkInstance handle = VK_NULL_HANDLE;
  InstanceFns f;
  std::uint32_t api = VK_API_VERSION_1_1;  ///< the version the instance was created for
  std::string error;
};

Instance create_instance(const platform::detail::DynLib& lib) {
  Instance inst;
  auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(lib.sym("vkGetInstanceProcAddr"));
  if (!gipa) {
    inst.error = lib.name + " exports no vkGetInstanceProcAddr";
    return inst;
  }
  auto enumerate_version =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(gipa(nullptr, "vkEnumerateInstanceVersion"));
  std::uint32_t loader_api = VK_API_VERSION_1_0;
  if (enumerate_version) enumerate_version(&loader_api);
  if (loader_api < VK_API_VERSION_1_1) {
    inst.error =
        fmt::format("the Vulkan loader is {}; 1.1 or later is needed", api_version_string(loader_api));
    return inst;
  }
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "accel-doctor";
  app.pEngineName = "accel-doctor vulkan ceiling";
  app.apiVersion = loader_api >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;
  inst.api = app.apiVersion;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (!create) {
    inst.error = "the loader has no vkCreateInstance";
    return inst;
  }
  if (const VkResult r = create(&ici, nullptr, &inst.handle); r != VK_SUCCESS) {
    inst.error = "vkCreateInstance failed: " + result_name(r);
    inst.handle = VK_NULL_HANDLE;
    return inst;
  }
  bool complete = true;
  InstanceFns& f = inst.f;
#define ACCEL_VK_LOAD_INSTANCE(name)                               \
  f.name = reinterpret_cast<PFN_##name>(gipa(inst.handle, #name)); \
  if (!f.name) complete = false;
  ACCEL_VK_INSTANCE_FUNCS(ACCEL_VK_LOAD_INSTANCE)
#undef ACCEL_VK_LOAD_INSTANCE
  if (!complete) {
    inst.error = "the Vulkan loader lacks core 1.1 instance functions";
    if (f.vkDestroyInstance) f.vkDestroyInstance(inst.handle, nullptr);
    inst.handle = VK_NULL_HANDLE;
  }
  return inst;
}

/// Measures one opened device: the compute rows (fp32, fp16, int8 where the
/// device has them), memory and transfers; a row that throws is an error row.
void measure_device(Gpu& gpu, const DeviceInfo& d, const Options& options, Run& out) {
  auto missing = [&](const std::string& g, const std::string& nm, const std::string& dt,
                     const std::string& sh, Status st, const std::string& why) {
    out.results.push_back(make_missing_row(d, g, nm, dt, sh, st, why));
  };
  auto guarded = [&](const std::string& g, const std::string& nm, const std::string& dt,
                     const std::string& sh, const std::function<void()>& body) {
    try {
      body();
    } catch (const std::exception& e) {
      missing(g, nm, dt, sh, Status::error, e.what());
    }
  };
  guarded("compute", "fma", "fp32", "chains32",
          [&] { out.results.push_back(measure_chains(gpu, ChainKind::fma_fp32, options)); });
  if (d.fp16) {
    guarded("compute", "fma", "fp16", "chains32",
            [&] { out.results.push_back(measure_chains(gpu, ChainKind::fma_fp16, options)); });
  } else {
    missing("compute", "fma", "fp16", "chains32", Status::unavailable, "the device has no shaderFloat16");
  }
  if (d.int8_dot) {
    guarded("compute", "dot", "int8", "chains32",
            [&] { out.results.push_back(measure_chains(gpu, ChainKind::dot_int8, options)); });
  } else {
    missing("compute", "dot", "int8", "chains32", Status::unavailable, int8_missing_reason(d));
  }
  const CacheSizing cache = cache_sizing(d, options.datasheet);
  guarded("memory", "copy", "u32", "large", [&] {
    for (auto& r : measure_memory(gpu, options, cache.llc_bytes, cache.sizing))
      out.results.push_back(std::move(r));
  });
  guarded("transfer", "h2d", "u8", d.software ? "8MiB" : "256MiB", [&] {
    for (auto& r : measure_transfers(gpu, options)) out.results.push_back(std::move(r));
  });
}

/// One physical device: described, then measured unless it has no compute
/// queue or is a software device the options leave out.
void run_device(const Instance& inst, VkPhysicalDevice pd, int index, const Options& options, Run& out) {
  Described desc = describe(inst.f, pd, index, inst.api);
  DeviceInfo& d = desc.info;
  if (!desc.has_compute) {
    d.notes.push_back("no compute queue: nothing measured");
    out.results.push_back(make_missing_row(d, "compute", "fma", "fp32", "chains32", Status::unavailable,
                                           "the device has no compute queue"));
  } else if (options.gpus_only && d.software) {
    d.notes.push_back("a software (CPU) device: listed, not measured here (`bench --vulkan` measures it)");
  } else {
    try {
      Gpu gpu(inst.f, pd, d, desc.queue_family, desc.features);
      measure_device(gpu, d, options, out);
    } catch (const std::exception& e) {
      d.notes.push_back(std::string("could not open the device: ") + e.what());
      out.results.push_back(make_missing_row(d, "compute", "fma", "fp32", "chains32", Status::error,
                                             std::string("could not open the device: ") + e.what()));
    }
  }
  out.devices.push_back(d);
}

}  // namespace

bool int8_dot_built() { return !shaders::dot_int8().empty(); }

Run run(const Options& options) {
  Run out;
  const auto lib = platform::detail::DynLib::open(options.loader_names.empty() ? default_loader_names()
                                                                               : options.loader_names);
  if (!lib) {
    out.error = "no Vulkan loader (" + lib.error + ")";
    return out;
  }
  out.loader = lib.name;
  const Instance inst = create_instance(lib);
  if (!inst.error.empty()) {
    out.error = inst.error;
    return out;
  }
  std::uint32_t count = 0;
  inst.f.vkEnumeratePhysicalDevices(inst.handle, &count, nullptr);
  std::vector<VkPhysicalDevice> pds(count);
  inst.f.vkEnumeratePhysicalDevices(inst.handle, &count, pds.data());
  if (count == 0) out.error = "the Vulkan loader found no physical device (no driver / ICD installed)";
  for (std::uint32_t i = 0; i < count; ++i) run_device(inst, pds[i], static_cast<int>(i), options, out);
  inst.f.vkDestroyInstance(inst.handle, nullptr);
  return out;
}

}  // namespace accel::vulkan
