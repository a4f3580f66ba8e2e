// What the summary reporters (Markdown, HTML) put first: the verdict, the
// findings in rank order, the failing items, and the key figures of a report
// (GEMM and bandwidth against their ceilings, LLM tokens/s, speed-up vs CPU).
// Pure functions over the evidence; no formatting for a particular medium.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

/// One headline figure with what it is measured against.
struct KeyFigure {
  std::string group;   ///< "checks", "gemm", "memory", "transfer", "launch", "llm prefill", "llm decode"
  std::string label;   ///< "bf16 GEMM on cuda:0 (8192x8192x8192)"
  std::string value;   ///< "712 TFLOP/s"
  std::string versus;  ///< "72% of 989 TFLOP/s (datasheet)", empty when no ceiling is known
  std::string key;     ///< the result key the figure comes from (empty for aggregates)
};

/// The device the report measured: the device selection, else the first
/// result's device, else "cpu".
std::string report_device(const Report& report);

/// The results of one kind, in report order.
std::vector<Result> results_of_kind(const Report& report, ResultKind kind);

/// The report's verdict, or when the rules left it empty a sentence built
/// from the check counts ("no verdict recorded: 390/512 checks ok on cpu").
std::string verdict_or_summary(const Report& report);

/// True for a result a reader must look at: a failing status, or work that
/// ran on the CPU although a device was the target (cpu_fallback).
bool needs_attention(const Result& r);

/// The basis of a figure's source text ("datasheet", "estimated",
/// "measured", "unknown"): the part before the first ':'.
std::string source_basis(const std::string& source);

/// Key figures in a fixed order: checks summary and median speed-up, best
/// GEMM per device and dtype, memory bandwidth, host<->device transfers,
/// launch latency, and per LLM device, model, dtype and phase the first row
/// of the sweep and the fastest.
std::vector<KeyFigure> key_figures(const Report& report);

/// Batch, prompt (or context depth) and generated tokens of an LLM row, from
/// metrics "batch", "prompt_tokens", "new_tokens" when the engine records
/// them, else from the stable key (".../b4/pp512", ".../b1/tg128@d512[/graph]").
struct LlmShape {
  std::string phase;  ///< "prefill", "decode", "graph" (decode by graph replay), "" when not a sweep row
  int batch = 0;
  int prompt = 0;  ///< prompt length (prefill) or context depth (decode)
  int gen = 0;
};
LlmShape llm_shape(const Result& r);

/// "712 TFLOP/s", "185 GFLOP/s", "760 MFLOP/s".
std::string format_tflops(double tflops);
/// "4.02 TB/s", "25.1 GB/s", "512 MB/s" (decimal units, as bandwidth is quoted).
std::string format_gbps(double gbps);

/// A metric, or nullopt.
std::optional<double> metric(const Result& r, const std::string& name);

}  // namespace accel
