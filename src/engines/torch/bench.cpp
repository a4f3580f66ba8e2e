#include "engine_api/bench.hpp"
#include "engine_api/bench_ceilings.hpp"

#include <ATen/Context.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "core/accumulation.hpp"
#include "core/peaks.hpp"
#include "core/result_keys.hpp"
#include "core/roofline.hpp"
#include "engine_api/ops.hpp"
#include "engines/torch/backend/backend.hpp"
#include "engines/torch/suite_item.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/timer.hpp"

namespace accel::engine {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

struct BenchCtx {
  c10::Device device = c10::kCPU;
  bool quick = false;
  TimerOptions timer;
};

struct BenchRow {
  ItemInfo info;
  std::string device;  ///< "target" or "cpu"
  std::function<void(Result&, const BenchCtx&)> run;
};

std::string device_type_of(const std::string& device) {
  const auto colon = device.find(':');
  return colon == std::string::npos ? device : device.substr(0, colon);
}

double tflops(double flops, double us) { return us > 0 ? flops / (us * 1e-6) / 1e12 : 0; }
double gbps(double bytes, double us) { return us > 0 ? bytes / (us * 1e-6) / 1e9 : 0; }

/// Two sets of buffers, used alternately, so a repeat never finds its data in
/// a cache: each buffer is at least 4x the largest last-level cache we know
/// of (H200: 60 MB L2; server CPUs: up to ~256 MB L3 at 256 MiB is the floor).
double buffer_bytes(const BenchCtx& ctx) {
  if (ctx.device.is_cpu()) return ctx.quick ? 128 * kMiB : 256 * kMiB;
  if (const auto* b = accelerator_backend(ctx.device)) {
    const auto info = b->describe(ctx.device.index());
    if (info.total_memory_bytes && *info.total_memory_bytes >= 16 * kGiB) return kGiB;
  }
  return 256 * kMiB;
}

// ---------------------------------------------------------------- GEMM

/// fp32: TF32 rounds the inputs to 10 mantissa bits (5e-3), plain fp32
/// accumulates in fp32 (1e-4); fp16/bf16 follow the accumulation model over
/// K (core/accumulation.hpp); int8 is exact.
double gemm_tolerance(const std::string& dtype, bool tf32, int64_t K) {
  if (dtype == "fp32") return tf32 ? 5e-3 : 1e-4;
  if (const auto half = parse_half_format(dtype)) return accumulation_model(*half, K).tolerance;
  return 0;
}

/// TF32 for cuBLAS matmuls, restored on scope exit.
struct Tf32Scope {
  explicit Tf32Scope(bool on) : previous(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(on);
  }
  ~Tf32Scope() { at::globalContext().setAllowTF32CuBLAS(previous); }
  bool previous;
};

void run_gemm(Result& r, const BenchCtx& ctx, const std::string& dtype, bool tf32, int64_t M, int64_t N,
              int64_t K) {
  const auto opts = at::TensorOptions().device(ctx.device);
  if (tf32) {
    bool ampere_or_newer = false;
    if (const auto* b = accelerator_backend(ctx.device); b && ctx.device.is_cuda()) {
      // Read "sm_%1d" before 2026-12-02: sm_100 and sm_120 (Blackwell) read as
      // major 1 and their tf32 rows said "unavailable".
      ampere_or_newer = arch_has_tf32(b->describe(ctx.device.index()).arch);
    }
    if (!ampere_or_newer) {
      r.status = Status::unavailable;
      r.reason = "TF32 needs an NVIDIA Ampere (sm_80) or newer GPU, or an MI300-class AMD GPU";
      return;
    }
  }
  const Tf32Scope tf32_scope(tf32);
  at::Tensor a, b, c;
  if (dtype == "int8") {
#if ACCEL_TORCH_AT_LEAST(2, 2)
    a = at::randint(-8, 8, {M, K}, opts.dtype(at::kChar));
    b = at::randint(-8, 8, {K, N}, opts.dtype(at::kChar));
    c = at::_int_mm(a, b);
    r.timing = time_op(
        ctx.device, [&] { at::_int_mm_out(c, a, b); }, ctx.timer);
#else
    r.status = Status::unavailable;
    r.reason = "int8 matrix products (at::_int_mm) need torch >= 2.2";
    return;
#endif
  } else {
    const auto st = dtype_from_name(dtype == "tf32" ? "fp32" : dtype);
    a = at::randn({M, K}, opts.dtype(st));
    b = at::randn({K, N}, opts.dtype(st));
    c = at::mm(a, b);
    // A GEMV-like product (few rows) is bound by reading B: rotate copies of
    // B that together exceed the caches, as a model's layers do, or a
    // cache-resident B reads faster than memory (a 64 MiB fp32 B stayed in a
    // server CPU's L3 and ran at 232% of the DRAM bound, H200 host, 2026-11-30).
    std::vector<at::Tensor> bs{b};
    if (M <= 16) {
      const double b_bytes = static_cast<double>(b.nbytes());
      const int copies = std::clamp(static_cast<int>(std::ceil(2 * buffer_bytes(ctx) / b_bytes)), 1, 16);
      for (int i = 1; i < copies; ++i) bs.push_back(at::randn({K, N}, opts.dtype(st)));
      r.evidence["rotating_b_copies"] = copies;
    }
    std::size_t turn = 0;
    r.timing = time_op(
        ctx.device,
        [&] {
          at::mm_out(c, a, bs[turn]);
          turn = (turn + 1) % bs.size();
        },
        ctx.timer);
    at::mm_out(c, a, b);  // the block checked below is a @ b
  }
  // Check an 8x8 block of C against a float64 product on the CPU.
  const int64_t bm = std::min<int64_t>(8, M), bn = std::min<int64_t>(8, N);
  const at::Tensor ref =
      at::mm(a.narrow(0, 0, bm).cpu().to(at::kDouble), b.narrow(1, 0, bn).cpu().to(at::kDouble));
  const at::Tensor got = c.narrow(0, 0, bm).narrow(1, 0, bn).cpu().to(at::kDouble);
  const double err = (got - ref).norm().item<double>() / std::max(ref.norm().item<double>(), 1e-30);
  const double tol = gemm_tolerance(dtype == "tf32" ? "fp32" : dtype, tf32, K);
  std::string detail = fmt::format("8x8 block of C, relative error {:.3g} (tolerance {:.3g})", err, tol);
  if (const auto half = parse_half_format(dtype); half && err > tol) {
    detail += ": " + explain_accumulation_error(accumulation_model(*half, K), err);
  }
  r.accuracy = Accuracy{"float64_reference", err, tol, detail};
  r.work.flops = 2.0 * M * N * K;
  const double elem = dtype == "int8" ? 1.0 : static_cast<double>(a.element_size());
  r.work.bytes = (M * K + K * N) * elem + M * N * static_cast<double>(c.element_size());
  r.metrics["tflops"] = tflops(r.work.flops, r.timing->median_us);
  r.metrics["arithmetic_intensity"] = r.work.flops / r.work.bytes;
  if (err > tol) {
    r.status = Status::mismatch;
    r.reason = r.accuracy->detail;
  } else {
    r.status = Status::ok;
  }
}

// ---------------------------------------------------------------- memory

void run_memory(Result& r, const BenchCtx& ctx, const std::string& kind) {
  const double bytes = buffer_bytes(ctx);
  const int64_t n = static_cast<int64_t>(bytes / 4);
  const auto opts = at::TensorOptions().device(ctx.device).dtype(at::kFloat);
  r.shape = fmt::format("{:.0f}MiB x2 sets", bytes / kMiB);
  std::vector<at::Tensor> a(2), b(2), c(2);
  for (int s = 0; s < 2; ++s) {
    a[s] = at::randn({n}, opts);
    b[s] = at::randn({n}, opts);
    c[s] = at::empty({n}, opts);
  }
  at::Tensor sum_out = at::empty({}, opts);
  int turn = 0;
  std::function<void()> fn;
  if (kind == "copy") {
    fn = [&] {
      c[turn].copy_(a[turn]);
      turn ^= 1;
    };
    r.work.bytes = 2.0 * bytes;
  } else if (kind == "triad") {
    fn = [&] {
      at::add_out(c[turn], a[turn], b[turn], 2.0);
      turn ^= 1;
    };
    r.work.bytes = 3.0 * bytes;
    r.work.flops = 2.0 * static_cast<double>(n);
  } else {
    fn = [&] {
      at::sum_out(sum_out, a[turn]);
      turn ^= 1;
    };
    r.work.bytes = bytes;
    r.work.flops = static_cast<double>(n);
  }
  r.timing = time_op(ctx.device, fn, ctx.timer);
  // Verify the last operation of each kind on one set.
  bool right = true;
  if (kind == "copy") {
    c[0].copy_(a[0]);
    right = at::equal(c[0], a[0]);
  } else if (kind == "triad") {
    at::add_out(c[0], a[0], b[0], 2.0);
    right = at::allclose(c[0].narrow(0, 0, 4096), a[0].narrow(0, 0, 4096) + 2.0 * b[0].narrow(0, 0, 4096));
  } else {
    const double want = a[0].to(at::kDouble).sum().item<double>();
    const double got = at::sum(a[0]).item<double>();
    right = std::fabs(got - want) <= 1e-3 * std::sqrt(static_cast<double>(n)) + 1e-4 * std::fabs(want);
  }
  r.metrics["gbps"] = gbps(r.work.bytes, r.timing->median_us);
  r.status = right ? Status::ok : Status::mismatch;
  if (!right) r.reason = "the result differs from the expected values";
}

// ---------------------------------------------------------------- transfers

void run_transfer(Result& r, const BenchCtx& ctx, bool h2d, bool pinned, double bytes) {
  const int64_t n = static_cast<int64_t>(bytes / 4);
  auto host_opts = at::TensorOptions().dtype(at::kFloat);
  at::Tensor host = at::empty({n}, host_opts);
  if (pinned) host = host.pin_memory();
  host.uniform_();
  at::Tensor dev = at::randn({n}, at::TensorOptions().device(ctx.device).dtype(at::kFloat));
  std::function<void()> fn;
  if (h2d) {
    fn = [&] { dev.copy_(host, /*non_blocking=*/pinned); };
  } else {
    fn = [&] { host.copy_(dev, /*non_blocking=*/pinned); };
  }
  r.timing = time_op(ctx.device, fn, ctx.timer);
  synchronize(ctx.device);
  const bool right = at::equal(host.narrow(0, 0, std::min<int64_t>(n, 1 << 16)),
                               dev.narrow(0, 0, std::min<int64_t>(n, 1 << 16)).cpu());
  r.work.bytes = bytes;
  r.metrics["gbps"] = gbps(bytes, r.timing->median_us);
  r.status = right ? Status::ok : Status::mismatch;
  if (!right) r.reason = "the copied data differs from the source";
}

// ---------------------------------------------------------------- launch and sync

void run_launch(Result& r, const BenchCtx& ctx, const std::string& kind) {
  const auto opts = at::TensorOptions().device(ctx.device).dtype(at::kFloat);
  at::Tensor x = at::zeros({1}, opts);
  const c10::Device host(c10::kCPU);
  if (kind == "launch") {
    // Back-to-back tiny ops: per-op time is the launch throughput.
    r.timing = time_op(
        ctx.device, [&] { x.add_(1.0); }, ctx.timer);
    r.shape = "1 element, x.add_(1) back to back";
  } else if (kind == "sync") {
    // The round trip of a synchronisation with an idle device.
    r.timing = time_op(
        host, [&] { synchronize(ctx.device); }, ctx.timer);
    r.shape = "device synchronisation, idle device";
  } else {
    // Host-side cost of one eager op (dispatch, allocation, launch), without
    // waiting for the device.
    r.timing = time_op(
        host, [&] { (void)at::add(x, 1.0); }, ctx.timer);
    synchronize(ctx.device);
    r.shape = "1 element, at::add(x, 1), host clock, no sync";
  }
  r.metrics["us_per_op"] = r.timing->median_us;
  r.status = Status::ok;
}

// ---------------------------------------------------------------- the table

struct Gemm {
  int64_t m, n, k;
  const char* label;
};

/// The catalog as it is built: each row with its key and the function that
/// measures it.
class RowList {
 public:
  void add(const std::string& dev_type, const std::string& group, const std::string& name,
           const std::string& dtype, const std::string& shape, const std::string& where,
           std::function<void(Result&, const BenchCtx&)> fn) {
    BenchRow row;
    row.info.key = BenchKey{dev_type, group, name, dtype, shape}.str();
    row.info.kind = ResultKind::bench;
    row.info.name = name;
    row.info.category = group;
    row.info.dtype = dtype;
    row.info.shape = shape;
    row.device = where;
    row.run = std::move(fn);
    rows.push_back(std::move(row));
  }
  void gemms(const std::string& dev_type, const std::string& where, const std::vector<std::string>& dtypes,
             const std::vector<Gemm>& shapes) {
    for (const auto& dt : dtypes) {
      for (const auto& s : shapes) {
        const std::string shape = fmt::format("{}x{}x{}", s.m, s.n, s.k);
        add(dev_type, "gemm", s.label, dt, shape, where, [dt, s](Result& r, const BenchCtx& c) {
          run_gemm(r, c, dt == "tf32" ? "fp32" : dt, dt == "tf32", s.m, s.n, s.k);
        });
      }
    }
  }
  void memory(const std::string& dev_type, const std::string& where) {
    for (const char* m : {"copy", "triad", "reduce"}) {
      add(dev_type, "memory", m, "fp32", "rotating", where,
          [m = std::string(m)](Result& r, const BenchCtx& c) { run_memory(r, c, m); });
    }
  }

  std::vector<BenchRow> rows;
};

std::vector<Gemm> squares(const std::vector<int64_t>& sizes) {
  std::vector<Gemm> out;
  for (int64_t n : sizes) out.push_back({n, n, n, "square"});
  return out;
}

/// The accelerator's rows: square and LLM-shaped GEMMs, memory, host<->device
/// transfers, launch and synchronisation.
void add_accelerator_rows(RowList& t, const std::string& type, bool quick) {
  // LLM-shaped products (Llama-3-8B: hidden 4096, MLP 14336): decode GEMV,
  // a small batch, and prefill of 2048 tokens.
  std::vector<Gemm> llm{{1, 4096, 4096, "llm_decode"}, {2048, 14336, 4096, "llm_prefill_mlp"}};
  if (!quick) {
    llm.push_back({16, 4096, 4096, "llm_decode_batch16"});
    llm.push_back({2048, 4096, 4096, "llm_prefill_attn_proj"});
  }
  t.gemms(type, "target", {"fp32", "tf32", "fp16", "bf16", "int8"},
          squares(quick ? std::vector<int64_t>{1024, 4096, 8192}
                        : std::vector<int64_t>{256, 512, 1024, 2048, 4096, 8192}));
  t.gemms(type, "target", {"fp32", "bf16"}, llm);
  t.memory(type, "target");
  const std::vector<double> sizes =
      quick ? std::vector<double>{kMiB, 256 * kMiB} : std::vector<double>{kMiB, 16 * kMiB, 256 * kMiB, kGiB};
  for (const bool h2d : {true, false}) {
    for (const bool pinned : {false, true}) {
      for (const double bytes : sizes) {
        const std::string name = fmt::format("{}_{}", h2d ? "h2d" : "d2h", pinned ? "pinned" : "pageable");
        const std::string shape =
            bytes >= kGiB ? fmt::format("{:.0f}GiB", bytes / kGiB) : fmt::format("{:.0f}MiB", bytes / kMiB);
        t.add(type, "transfer", name, "fp32", shape, "target",
              [h2d, pinned, bytes](Result& r, const BenchCtx& c) { run_transfer(r, c, h2d, pinned, bytes); });
      }
    }
  }
  for (const char* k : {"launch", "sync", "eager_overhead"}) {
    t.add(type, "launch", k, "fp32", "tiny", "target",
          [k = std::string(k)](Result& r, const BenchCtx& c) { run_launch(r, c, k); });
  }
}

/// The CPU's rows: the same GEMM and bandwidth rows, smaller (a reference
/// BLAS runs a 1024^3 fp32 product at a few GFLOP/s); the eager overhead
/// when the CPU is the target.
void add_cpu_rows(RowList& t, bool accel, bool quick) {
  std::vector<Gemm> cpu_shapes =
      squares(quick ? std::vector<int64_t>{512} : std::vector<int64_t>{256, 512, 1024});
  cpu_shapes.push_back({1, 4096, 4096, "llm_decode"});
  t.gemms("cpu", "cpu", {"fp32", "bf16"}, cpu_shapes);
  t.memory("cpu", "cpu");
  if (!accel) {
    t.add("cpu", "launch", "eager_overhead", "fp32", "tiny", "cpu",
          [](Result& r, const BenchCtx& c) { run_launch(r, c, "eager_overhead"); });
  }
}

std::vector<BenchRow> build_rows(const BenchOptions& options) {
  RowList t;
  const std::string type = device_type_of(options.device);
  const bool accel = type != "cpu";
  if (accel) add_accelerator_rows(t, type, options.quick);
  if (!accel || options.cpu_twin) add_cpu_rows(t, accel, options.quick);
  std::vector<BenchRow> selected;
  for (auto& row : t.rows) {
    CheckInfo probe;
    probe.key = row.info.key;
    probe.name = row.info.name;
    probe.category = row.info.category;
    probe.dtype = row.info.dtype;
    if (filters_match(options.filters, probe)) selected.push_back(std::move(row));
  }
  return selected;
}

class BenchSuite final : public WorkerSuite {
 public:
  explicit BenchSuite(const json& job) : options_(job.get<BenchOptions>()) {
    for (auto& row : build_rows(options_)) rows_.emplace(row.info.key, std::move(row));
    target_ = parse_device(options_.device);
  }

  json prepare() override {
    initialise_device(target_);
    return json::object();
  }

  Result run(const std::string& key) override {
    const auto wall0 = std::chrono::steady_clock::now();
    const auto it = rows_.find(key);
    Result r = start_result(key, ResultKind::bench, it == rows_.end() ? nullptr : &it->second.info,
                            "no such benchmark in this build");
    if (it == rows_.end()) return r;
    const BenchRow& row = it->second;
    BenchCtx ctx;
    ctx.device = row.device == "cpu" ? c10::Device(c10::kCPU) : target_;
    ctx.quick = options_.quick;
    ctx.timer = options_.quick ? TimerOptions::bench_quick() : TimerOptions::bench();
    return run_suite_item(
        std::move(r), ctx.device, wall0,
        [&](Result& res) {
          row.run(res, ctx);
          add_burst_figures(res);
        },
        [](Result& res, const std::exception&, const std::string& msg) {
          if (msg.find("not implemented for") != std::string::npos) res.status = Status::unavailable;
        });
  }

 private:
  BenchOptions options_;
  std::map<std::string, BenchRow> rows_;
  c10::Device target_ = c10::kCPU;
};

}  // namespace

std::unique_ptr<WorkerSuite> make_bench_suite(const json& job) { return std::make_unique<BenchSuite>(job); }

std::vector<ItemInfo> list_benchmarks(const BenchOptions& options) {
  std::vector<ItemInfo> out;
  for (const auto& row : build_rows(options)) out.push_back(row.info);
  return out;
}

std::vector<Result> run_bench(const BenchOptions& options, const RunCallbacks& callbacks) {
  return run_torch_items("bench", options, list_benchmarks(options), callbacks);
}

}  // namespace accel::engine
