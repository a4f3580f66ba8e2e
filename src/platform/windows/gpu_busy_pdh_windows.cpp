// The PDH GPU busy source (platform/gpu_busy.hpp): pdh.dll loaded at run
// time, one query with the language-neutral counter
// \GPU Engine(*)\Utilization Percentage (PdhAddEnglishCounterW), collected
// once at open (a rate counter needs two collections) and at every read.
// A wildcard instance picks up processes started after the query was made
// (the engine's workers are). The per-instance values go to the pure
// aggregate_pdh_gpu_engines (pdh_gpu_engine.cpp).
#include "platform/windows/win_util.hpp"  // windows.h first

#include <pdh.h>
#include <pdhmsg.h>

#include <fmt/format.h>

#include "platform/gpu_busy.hpp"

namespace accel::platform::detail {

namespace {

using OpenQueryFn = PDH_STATUS(WINAPI*)(LPCWSTR, DWORD_PTR, PDH_HQUERY*);
using AddCounterFn = PDH_STATUS(WINAPI*)(PDH_HQUERY, LPCWSTR, DWORD_PTR, PDH_HCOUNTER*);
using CollectFn = PDH_STATUS(WINAPI*)(PDH_HQUERY);
using ArrayFn = PDH_STATUS(WINAPI*)(PDH_HCOUNTER, DWORD, LPDWORD, LPDWORD, PPDH_FMT_COUNTERVALUE_ITEM_W);
using CloseFn = PDH_STATUS(WINAPI*)(PDH_HQUERY);

std::string pdh_status(PDH_STATUS s) {
  const char* name = "";
  switch (static_cast<DWORD>(s)) {
    case PDH_CSTATUS_NO_OBJECT:
      name =
          " PDH_CSTATUS_NO_OBJECT: no GPU Engine counters (Windows before 10 1709, no WDDM 2 driver, or "
          "Wine)";
      break;
    case PDH_CSTATUS_NO_COUNTER:
      name = " PDH_CSTATUS_NO_COUNTER";
      break;
    case PDH_NO_DATA:
      name = " PDH_NO_DATA";
      break;
    case PDH_INVALID_DATA:
      name = " PDH_INVALID_DATA";
      break;
    default:
      break;
  }
  return fmt::format("PDH status 0x{:08X}{}", static_cast<std::uint32_t>(s), name);
}

template <typename F>
F proc(HMODULE m, const char* name) {
  return m ? reinterpret_cast<F>(reinterpret_cast<void*>(GetProcAddress(m, name))) : nullptr;
}

class PdhBusySource final : public GpuBusySource {
 public:
  PdhBusySource(HMODULE dll, PDH_HQUERY query, PDH_HCOUNTER counter, CollectFn collect, ArrayFn array,
                CloseFn close)
      : dll_(dll), query_(query), counter_(counter), collect_(collect), array_(array), close_(close) {}
  ~PdhBusySource() override {
    close_(query_);
    FreeLibrary(dll_);
  }
  PdhBusySource(const PdhBusySource&) = delete;
  PdhBusySource& operator=(const PdhBusySource&) = delete;

  std::vector<GpuBusyReading> read() override {
    if (collect_(query_) != ERROR_SUCCESS) return {};
    DWORD bytes = 0, count = 0;
    PDH_STATUS s = array_(counter_, PDH_FMT_DOUBLE, &bytes, &count, nullptr);
    if (s != static_cast<PDH_STATUS>(PDH_MORE_DATA) || bytes == 0) return {};
    buffer_.assign(bytes + sizeof(PDH_FMT_COUNTERVALUE_ITEM_W), 0);
    auto* items = reinterpret_cast<PDH_FMT_COUNTERVALUE_ITEM_W*>(buffer_.data());
    s = array_(counter_, PDH_FMT_DOUBLE, &bytes, &count, items);
    if (s != ERROR_SUCCESS) return {};
    std::vector<std::pair<std::string, double>> values;
    values.reserve(count);
    for (DWORD i = 0; i < count; ++i) {
      const DWORD cs = items[i].FmtValue.CStatus;
      if (cs != PDH_CSTATUS_VALID_DATA && cs != PDH_CSTATUS_NEW_DATA)
        continue;  // a new instance's first value
      if (!items[i].szName) continue;
      values.emplace_back(win::narrow(items[i].szName, wcsnlen(items[i].szName, 512)),
                          items[i].FmtValue.doubleValue);
    }
    return aggregate_pdh_gpu_engines(values);
  }

 private:
  HMODULE dll_;
  PDH_HQUERY query_;
  PDH_HCOUNTER counter_;
  CollectFn collect_;
  ArrayFn array_;
  CloseFn close_;
  std::vector<unsigned char> buffer_;
};

}  // namespace

std::unique_ptr<GpuBusySource> open_pdh_gpu_busy_source(std::string& why) {
  HMODULE dll = LoadLibraryExW(L"pdh.dll", nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!dll) {
    why = "pdh.dll could not be loaded: " + win::last_error();
    return nullptr;
  }
  const auto open = proc<OpenQueryFn>(dll, "PdhOpenQueryW");
  const auto add = proc<AddCounterFn>(dll, "PdhAddEnglishCounterW");
  const auto collect = proc<CollectFn>(dll, "PdhCollectQueryData");
  const auto array = proc<ArrayFn>(dll, "PdhGetFormattedCounterArrayW");
  const auto close = proc<CloseFn>(dll, "PdhCloseQuery");
  if (!open || !add || !collect || !array || !close) {
    why =
        "pdh.dll lacks PdhOpenQueryW / PdhAddEnglishCounterW / PdhCollectQueryData / "
        "PdhGetFormattedCounterArrayW / PdhCloseQuery";
    FreeLibrary(dll);
    return nullptr;
  }
  PDH_HQUERY query = nullptr;
  PDH_STATUS s = open(nullptr, 0, &query);
  if (s != ERROR_SUCCESS) {
    why = "PdhOpenQueryW failed: " + pdh_status(s);
    FreeLibrary(dll);
    return nullptr;
  }
  PDH_HCOUNTER counter = nullptr;
  s = add(query, L"\\GPU Engine(*)\\Utilization Percentage", 0, &counter);
  if (s == ERROR_SUCCESS) {
    s = collect(query);  // the first of the two collections a rate needs
    if (s == static_cast<PDH_STATUS>(PDH_NO_DATA))
      s = ERROR_SUCCESS;  // no GPU process yet: instances come later
  }
  if (s != ERROR_SUCCESS) {
    why = "\\GPU Engine(*)\\Utilization Percentage: " + pdh_status(s);
    close(query);
    FreeLibrary(dll);
    return nullptr;
  }
  return std::make_unique<PdhBusySource>(dll, query, counter, collect, array, close);
}

}  // namespace accel::platform::detail
