// JSON (de)serialisers of the evidence model (core/evidence.hpp): the report and everything in it,
// declared there with ACCEL_JSON_DECLARE (core/json.hpp says why they are not inline).
#include "core/evidence.hpp"

namespace accel {
ACCEL_JSON_DEFINE(Timing, samples_us, median_us, iqr_us, min_us, max_us, warmup, inner, method, noisy,
                  budget_exhausted, burst_us)
ACCEL_JSON_DEFINE(ErrorInfo, message, cause_id, cause, fix, reference)
ACCEL_JSON_DEFINE(Work, flops, bytes)
ACCEL_JSON_DEFINE(Accuracy, method, rel_error, tolerance, detail)
ACCEL_JSON_DEFINE(Roofline, intensity_flop_per_byte, peak_tflops, peak_source, bandwidth_gbps,
                  bandwidth_source, bound_tflops, achieved_tflops, achieved_gbps, percent_of_bound,
                  above_peak)
ACCEL_JSON_DEFINE(FallbackOp, op, cause_id, calls, time_us)
ACCEL_JSON_DEFINE(ProfileEvidence, where, detail, kernel_count, kernel_time_us, kernels, h2d_count, h2d_bytes,
                  d2h_count, d2h_bytes, d2d_count, memcpy_time_us, memset_count, sync_count, fallback_cost_us,
                  implementation, ops, fallback_ops, call_us)
ACCEL_JSON_DEFINE(GpuEngineBusy, engine, median_percent, max_percent)
ACCEL_JSON_DEFINE(GpuBusyDevice, id, name, source, samples, median_percent, max_percent, engines, percent)
ACCEL_JSON_DEFINE(GpuBusy, period_ms, window_ms, devices, not_measured)
ACCEL_JSON_DEFINE(Result, key, kind, name, category, dtype, shape, device, status, reason, timing, cpu_timing,
                  speedup, work, metrics, accuracy, roofline, profile, warnings, error, evidence, wall_ms,
                  phase_ms, gpu_busy)
ACCEL_JSON_DEFINE(HostInfo, os, kernel, hostname, arch, cpu_model, logical_cores, physical_cores, cpu_max_mhz,
                  cpu_clock_source, simd, memory_total_bytes, memory_available_bytes, cpu_governor,
                  affinity_cpus, affinity_list, cpu_quota_cpus, memory_limit_bytes, not_collected)
ACCEL_JSON_DEFINE(BlasInfo, name, library, version, evidence, not_collected)
ACCEL_JSON_DEFINE(PluginModule, module, version, error)
ACCEL_JSON_DEFINE(EngineHost, kind, python_executable, python_version, torch_python_version, plugins, command,
                  not_found)
ACCEL_JSON_DEFINE(TorchInfo, version, source, backend, cxx11_abi, config, build, cuda_version, hip_version,
                  cudnn_version, miopen_version, openmp, cpu_capability, arch_list, intra_op_threads,
                  inter_op_threads, features, host, not_collected)
ACCEL_JSON_DEFINE(DeviceInfo, id, index, type, name, vendor, arch, total_memory_bytes, multiprocessors,
                  integrated, arch_in_build, pci_bus_id, backend, plugin, announces_cpu_fallback, luid,
                  dxgi_index, adapter_join, not_collected)
ACCEL_JSON_DEFINE(PcieLink, current_speed, max_speed, current_width, max_width)
ACCEL_JSON_DEFINE(GpuHardware, pci_address, vendor_id, device_id, vendor, name, driver, integrated,
                  integrated_basis, boot_vga, link, vram_bytes, gfx_target, compute_capability, vendor_info,
                  not_collected)
ACCEL_JSON_DEFINE(DriverInfo, nvidia_driver, cuda_driver_api, cuda_init_error, rocm_version, amdgpu_driver,
                  device_nodes, not_collected)
ACCEL_JSON_DEFINE(EnvVar, name, value, effect)
ACCEL_JSON_DEFINE(DeviceChoice, requested, chosen, reason)
ACCEL_JSON_DEFINE(WindowsFile, name, path, where, version)
ACCEL_JSON_DEFINE(WindowsAdapter, dxgi_index, high_performance_index, name, vendor_id, device_id, vendor,
                  luid, dedicated_video_memory_bytes, dedicated_system_memory_bytes,
                  shared_system_memory_bytes, software, driver_version, integrated, integrated_basis,
                  hardware, wddm_version, not_collected)
ACCEL_JSON_DEFINE(WindowsPython, path, found_by, site_packages, torch_version, torch_hip_version,
                  torch_cuda_version, not_collected)
ACCEL_JSON_DEFINE(WindowsProcessQos, pid, path, ecoqos, why)
ACCEL_JSON_DEFINE(WindowsInfo, os_build, adapters, hardware_gpu_scheduling, tdr_delay_s, tdr_delay_source,
                  python_gpu_preference, power_scheme, power_scheme_guid, power_mode, power_source,
                  battery_percent, battery_saver, process_ecoqos, remote_session, smart_app_control, hip_path,
                  hip_runtime, hsa_override_gfx_version, vc_runtime, directml, onnxruntime, runtimes_missing,
                  onnxruntime_directml_ep, pythons, torch_hip_runtime, python_processes, adrenalin_version,
                  adrenalin_version_source, not_collected)
ACCEL_JSON_DEFINE(OrtEpDevice, ep_name, ep_vendor, type, vendor, vendor_id, device_id, name, luid, discrete,
                  dxgi_adapter_number, dxgi_high_performance_index, memory_bytes, windows_adapter, metadata,
                  ep_metadata)
ACCEL_JSON_DEFINE(OnnxRuntimeInfo, library, found_by, version, api_version, build_info, model_path, providers,
                  ep_devices, python, python_packages, directml_library, device, device_reason, warnings,
                  not_found, not_collected)
ACCEL_JSON_DEFINE(Environment, host, torch, blas, driver, devices, gpus, env_vars, selection, windows,
                  topology, onnxruntime)
ACCEL_JSON_DEFINE(Finding, id, severity, title, evidence, why, fix, reference, impact)
ACCEL_JSON_DEFINE(ToolInfo, version, commit)
ACCEL_JSON_DEFINE(Context, tool, started_at, finished_at, argv, command, environment)
ACCEL_JSON_DEFINE(Report, schema_version, context, results, findings, verdict)
}  // namespace accel
