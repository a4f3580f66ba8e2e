// Data movement and reductions: Gather (embedding lookup), GatherElements,
// ScatterND, TopK, Transpose, Concat, Slice, Pad; ReduceSum/Mean/Max/L2,
// ArgMax, CumSum; Resize (nearest, linear); Cast to and from fp16.
#include "engines/onnxruntime/checks/check.hpp"

#include <fmt/format.h>

namespace accel::ort {

namespace {

void reduce(Build& b, const char* op, bool axes_as_input) {
  const std::int64_t r = b.size(4096, 512), c = b.size(1024, 256);
  const auto x = b.input("x", {r, c});
  std::string y;
  if (axes_as_input) {
    y = b.node(op, {x, b.ints("axes", {1})}, {Attribute::of("keepdims", 0)});
  } else {  // opset 17: ReduceMean/Max/L2 take axes as an attribute (an input from opset 18)
    y = b.node(op, {x}, {Attribute::of("axes", std::vector<std::int64_t>{1}), Attribute::of("keepdims", 0)});
  }
  b.output(y, {r});
  b.flops = 1.0 * r * c;
  b.bytes = b.elem_bytes(1.0 * r * c + r);
  b.shape = fmt::format("{}x{}, axis 1", r, c);
  b.accumulation_length = c;
}

void resize(Build& b, const char* mode) {
  const std::int64_t n = 2, c = b.size(32, 8), h = b.size(64, 32), w = h;
  const auto x = b.input("x", {n, c, h, w});
  // scales is float32 whatever X's type (ai.onnx Resize-13).
  const auto scales = b.graph().add_floats("scales", DType::fp32, {1, 1, 2, 2}, {4});
  std::vector<Attribute> attrs = {Attribute::of("mode", mode)};
  if (std::string(mode) == "linear")
    attrs.push_back(Attribute::of("coordinate_transformation_mode", "half_pixel"));
  b.output(b.node("Resize", {x, "", scales}, attrs), {n, c, 2 * h, 2 * w});
  b.flops = std::string(mode) == "linear" ? 8.0 * n * c * 4 * h * w : 0;
  b.bytes = b.elem_bytes(double(n) * c * h * w * 5);
  b.shape = fmt::format("{}x{}x{}x{} x2, {}", n, c, h, w, mode);
}

}  // namespace

void add_data_checks(std::vector<CheckDef>& out) {
  // ---- indexing
  out.push_back(
      {"gather_embedding", "indexing", float_dtypes(), "0 (a copy)", "(2*B*S*D)*elem + B*S*8", [](Build& b) {
         const std::int64_t vocab = b.size(32000, 4096), d = b.size(512, 128), bs = 8, s = b.size(256, 64);
         const auto table = b.weight("table", {vocab, d}, 0.02);
         const auto ids = b.index_input("ids", {bs, s}, 0, vocab);
         b.output(b.node("Gather", {table, ids}, {Attribute::of("axis", 0)}), {bs, s, d});
         b.bytes = b.elem_bytes(2.0 * bs * s * d) + 8.0 * bs * s;
         b.shape = fmt::format("table {}x{}, ids {}x{}", vocab, d, bs, s);
       }});
  out.push_back({"gather_elements", "indexing", float_dtypes(), "0 (a copy)", "(R*C + 2*R*K)*elem + R*K*8",
                 [](Build& b) {
                   const std::int64_t r = b.size(1024, 256), c = b.size(1024, 256), k = b.size(256, 64);
                   const auto x = b.input("x", {r, c});
                   const auto idx = b.index_input("idx", {r, k}, 0, c);
                   b.output(b.node("GatherElements", {x, idx}, {Attribute::of("axis", 1)}), {r, k});
                   b.bytes = b.elem_bytes(double(r) * k * 2) + 8.0 * r * k;
                   b.shape = fmt::format("{}x{}, indices {}x{} along axis 1", r, c, r, k);
                 }});
  out.push_back(
      {"scatter_nd", "indexing", float_dtypes(), "0 (a copy)", "(2*N*D + 2*M*D)*elem + M*8", [](Build& b) {
         const std::int64_t n = b.size(4096, 512), d = b.size(256, 64), m = n / 4;
         const auto data = b.input("data", {n, d});
         std::vector<std::int64_t> rows(static_cast<std::size_t>(m));
         for (std::int64_t i = 0; i < m; ++i)
           rows[static_cast<std::size_t>(i)] = (i * 7) % n;  // distinct: 7 and n coprime
         const auto idx = b.ints("indices", rows, {m, 1});
         const auto upd = b.input("updates", {m, d});
         b.output(b.node("ScatterND", {data, idx, upd}), {n, d});
         b.bytes = b.elem_bytes(2.0 * n * d + 2.0 * m * d) + 8.0 * m;
         b.shape = fmt::format("data {}x{}, {} rows updated", n, d, m);
       }});
  out.push_back({"topk", "indexing", float_dtypes(), "R*C*log2(K) (compares, about)",
                 "(R*C + R*K)*elem + R*K*8", [](Build& b) {
                   const std::int64_t r = b.size(512, 128), c = b.size(1024, 256), k = 16;
                   const auto x = b.input("x", {r, c});
                   const auto kk = b.ints("k", {k});
                   b.node("TopK", {x, kk}, {Attribute::of("axis", -1)}, "", {"values", "indices"});
                   b.output("values", {r, k});
                   b.output("indices", {r, k}, DType::int64,
                            b.compute() == DType::fp16 ? Compare::mostly : Compare::exact);
                   b.flops = double(r) * c * 4;
                   b.bytes = b.elem_bytes(double(r) * c + double(r) * k) + 8.0 * r * k;
                   b.shape = fmt::format("{}x{}, k={}", r, c, k);
                 }});
  out.push_back(
      {"transpose", "indexing", float_dtypes(), "0 (a copy)", "2*N*C*H*W*elem", [](Build& b) {
         const std::int64_t n = 4, c = b.size(64, 16), h = b.size(56, 28), w = h;
         const auto x = b.input("x", {n, c, h, w});
         b.output(b.node("Transpose", {x}, {Attribute::of("perm", std::vector<std::int64_t>{0, 2, 3, 1})}),
                  {n, h, w, c});
         b.bytes = b.elem_bytes(2.0 * n * c * h * w);
         b.shape = fmt::format("{}x{}x{}x{} -> NHWC", n, c, h, w);
       }});
  out.push_back({"concat", "indexing", float_dtypes(), "0 (a copy)", "4*R*C*elem", [](Build& b) {
                   const std::int64_t r = b.size(2048, 256), c = b.size(512, 128);
                   const auto x = b.input("a", {r, c});
                   const auto y = b.input("b", {r, c});
                   b.output(b.node("Concat", {x, y}, {Attribute::of("axis", 1)}), {r, 2 * c});
                   b.bytes = b.elem_bytes(4.0 * r * c);
                   b.shape = fmt::format("2 x {}x{} along axis 1", r, c);
                 }});
  out.push_back(
      {"slice_strided", "indexing", float_dtypes(), "0 (a copy)", "(R*C + R*C/4)*elem", [](Build& b) {
         const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
         const auto x = b.input("x", {r, c});
         const auto y = b.node("Slice", {x, b.ints("starts", {0, 1}), b.ints("ends", {r, c}),
                                         b.ints("axes", {0, 1}), b.ints("steps", {2, 2})});
         b.output(y, {r / 2, c / 2});
         b.bytes = b.elem_bytes(double(r) * c + double(r) * c / 4);
         b.shape = fmt::format("{}x{}[::2, 1::2]", r, c);
       }});
  out.push_back(
      {"pad_reflect", "indexing", float_dtypes(), "0 (a copy)", "(N*C*H*W + N*C*(H+2)*(W+2))*elem",
       [](Build& b) {
         const std::int64_t n = 2, c = b.size(64, 16), h = b.size(64, 32), w = h;
         const auto x = b.input("x", {n, c, h, w});
         const auto pads = b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1});
         b.output(b.node("Pad", {x, pads}, {Attribute::of("mode", "reflect")}), {n, c, h + 2, w + 2});
         b.bytes = b.elem_bytes(double(n) * c * h * w + double(n) * c * (h + 2) * (w + 2));
         b.shape = fmt::format("{}x{}x{}x{}, reflect 1", n, c, h, w);
       }});
  // ---- reductions
  out.push_back({"reduce_sum", "reduction", float_dtypes(), "R*C", "(R*C + R)*elem",
                 [](Build& b) { reduce(b, "ReduceSum", true); }});
  out.push_back({"reduce_mean", "reduction", float_dtypes(), "R*C", "(R*C + R)*elem",
                 [](Build& b) { reduce(b, "ReduceMean", false); }});
  out.push_back({"reduce_max", "reduction", float_dtypes(), "R*C (compares)", "(R*C + R)*elem",
                 [](Build& b) { reduce(b, "ReduceMax", false); }});
  out.push_back({"reduce_l2", "reduction", float_dtypes(), "2*R*C", "(R*C + R)*elem",
                 [](Build& b) { reduce(b, "ReduceL2", false); }});
  out.push_back({"argmax", "reduction", float_dtypes(), "R*C (compares)", "R*C*elem + R*8", [](Build& b) {
                   const std::int64_t r = b.size(4096, 512), c = b.size(1000, 1000);
                   const auto x = b.input("x", {r, c});
                   b.output(b.node("ArgMax", {x}, {Attribute::of("axis", 1), Attribute::of("keepdims", 0)}),
                            {r}, DType::int64, b.compute() == DType::fp16 ? Compare::mostly : Compare::exact);
                   b.flops = 1.0 * r * c;
                   b.bytes = b.elem_bytes(1.0 * r * c) + 8.0 * r;
                   b.shape = fmt::format("{}x{}, axis 1", r, c);
                 }});
  out.push_back({"cumsum", "reduction", float_dtypes(), "R*C", "2*R*C*elem", [](Build& b) {
                   const std::int64_t r = b.size(1024, 256), c = b.size(1024, 256);
                   const auto x = b.input("x", {r, c});
                   b.output(b.node("CumSum", {x, b.scalar_int("axis", 1)}), {r, c});
                   b.flops = 1.0 * r * c;
                   b.bytes = b.elem_bytes(2.0 * r * c);
                   b.shape = fmt::format("{}x{}, axis 1", r, c);
                   b.accumulation_length = c;
                 }});
  // ---- resize
  out.push_back({"resize_nearest", "resize", float_dtypes(), "0 (a copy)", "5*N*C*H*W*elem",
                 [](Build& b) { resize(b, "nearest"); }});
  out.push_back({"resize_linear", "resize", float_dtypes(), "8*N*C*OH*OW", "5*N*C*H*W*elem",
                 [](Build& b) { resize(b, "linear"); }});
  // ---- casts (the model's types are fixed: fp32 -> fp16 and back)
  out.push_back(
      {"cast_to_fp16", "cast", {DType::fp16}, "0 (a conversion)", "R*C*(4+2)", [](Build& b) {
         const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
         const auto x =
             b.typed_input("x", DType::fp32, {r, c}, InputFill{InputFill::Kind::normal, 0, 1, 100.0});
         b.output(b.node("Cast", {x}, {Attribute::of("to", static_cast<std::int64_t>(DType::fp16))}), {r, c},
                  DType::fp16, Compare::relative);
         b.bytes = 6.0 * r * c;
         b.shape = fmt::format("{}x{} fp32 -> fp16", r, c);
       }});
  out.push_back(
      {"cast_to_fp32", "cast", {DType::fp16}, "0 (a conversion)", "R*C*(2+4)", [](Build& b) {
         const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
         const auto x =
             b.typed_input("x", DType::fp16, {r, c}, InputFill{InputFill::Kind::normal, 0, 1, 100.0});
         b.output(b.node("Cast", {x}, {Attribute::of("to", static_cast<std::int64_t>(DType::fp32))}), {r, c},
                  DType::fp32, Compare::relative);
         b.bytes = 6.0 * r * c;
         b.shape = fmt::format("{}x{} fp16 -> fp32", r, c);
       }});
}

}  // namespace accel::ort
