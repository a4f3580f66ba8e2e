// Recurrent layers: LSTM and GRU (one direction, the Y output).
#include "engines/onnxruntime/checks/check.hpp"

#include <cmath>

#include <fmt/format.h>

namespace accel::ort {

namespace {
/// gates: 4 (LSTM) or 3 (GRU).
void recurrent(Build& b, const char* op, int gates) {
  const std::int64_t seq = b.size(64, 16), batch = 8, in = b.size(256, 64), hidden = b.size(256, 64);
  const auto x = b.input("x", {seq, batch, in});
  const double s = 1.0 / std::sqrt(double(hidden));
  const auto w = b.weight("W", {1, gates * hidden, in}, s);
  const auto r = b.weight("R", {1, gates * hidden, hidden}, s);
  const auto bias = b.weight("B", {1, 2 * gates * hidden}, 0.05);
  b.output(b.node(op, {x, w, r, bias}, {Attribute::of("hidden_size", hidden)}), {seq, 1, batch, hidden});
  b.flops = 2.0 * seq * batch * gates * hidden * (in + hidden);
  b.bytes = b.elem_bytes(double(seq) * batch * (in + hidden) + double(gates) * hidden * (in + hidden + 2));
  b.shape = fmt::format("seq {} x batch {} x input {}, hidden {}", seq, batch, in, hidden);
  b.accumulation_length = in + hidden;
}
}  // namespace

void add_rnn_checks(std::vector<CheckDef>& out) {
  CheckDef lstm{
      "lstm", "rnn", float_dtypes(), "2*T*B*4*H*(I+H)", "(T*B*(I+H) + 4*H*(I+H+2))*elem", [](Build& b) {
        recurrent(b, "LSTM", 4);
      }};
  lstm.tolerance_scale = 4;  // T steps of the recurrence compound the rounding
  out.push_back(std::move(lstm));
  CheckDef gru{
      "gru", "rnn", float_dtypes(), "2*T*B*3*H*(I+H)", "(T*B*(I+H) + 3*H*(I+H+2))*elem", [](Build& b) {
        recurrent(b, "GRU", 3);
      }};
  gru.tolerance_scale = 4;
  out.push_back(std::move(gru));
}

}  // namespace accel::ort
