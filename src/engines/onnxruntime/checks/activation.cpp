// Element-wise activations and arithmetic: Relu, Gelu (ai.onnx opset 20 and
// the com.microsoft contrib op), SiLU as Sigmoid x Mul, Erf, Tanh, Sigmoid,
// LeakyRelu, Add with broadcast, Mul, Div, Pow, Sqrt, Exp, Where.
#include "engines/onnxruntime/checks/check.hpp"

#include <fmt/format.h>

namespace accel::ort {

namespace {

struct Unary {
  const char* name;
  const char* op;
  double flops_per_element;
  InputFill fill;
  const char* domain;
  int opset;
  std::vector<Attribute> attrs;
};

void unary(Build& b, const Unary& u) {
  if (u.opset) b.opset(u.domain, u.opset);
  const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
  const auto x = b.input("x", {r, c}, u.fill);
  b.output(b.node(u.op, {x}, u.attrs, u.domain), {r, c});
  b.flops = u.flops_per_element * r * c;
  b.bytes = b.elem_bytes(2.0 * r * c);
  b.shape = fmt::format("{}x{}", r, c);
}

void binary(Build& b, const char* op, InputFill fill_b, bool broadcast) {
  const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
  const auto x = b.input("a", {r, c});
  const auto y = broadcast ? b.input("b", {c}, fill_b) : b.input("b", {r, c}, fill_b);
  b.output(b.node(op, {x, y}), {r, c});
  b.flops = 1.0 * r * c;
  b.bytes = b.elem_bytes(2.0 * r * c + (broadcast ? c : r * c));
  b.shape = broadcast ? fmt::format("{}x{} and {}", r, c, c) : fmt::format("{}x{} and {}x{}", r, c, r, c);
}

}  // namespace

void add_activation_checks(std::vector<CheckDef>& out) {
  const InputFill normal{};
  const InputFill positive{InputFill::Kind::uniform, 0.1, 4.0};
  const std::vector<Unary> unaries = {
      {"relu", "Relu", 1, normal, "", 0, {}},
      {"gelu", "Gelu", 8, normal, "", 20, {}},
      {"gelu_contrib", "Gelu", 8, normal, "com.microsoft", 1, {}},
      {"erf", "Erf", 8, normal, "", 0, {}},
      {"tanh", "Tanh", 4, normal, "", 0, {}},
      {"sigmoid", "Sigmoid", 4, normal, "", 0, {}},
      {"leaky_relu", "LeakyRelu", 2, normal, "", 0, {Attribute::of("alpha", 0.01f)}},
      {"sqrt", "Sqrt", 1, positive, "", 0, {}},
      {"exp", "Exp", 4, InputFill{InputFill::Kind::uniform, -4.0, 4.0}, "", 0, {}},
      {"log", "Log", 4, positive, "", 0, {}},
  };
  for (const auto& u : unaries) {
    CheckDef def{u.name,         "activation",
                 float_dtypes(), fmt::format("{}*R*C", u.flops_per_element),
                 "2*R*C*elem",   [u](Build& b) { unary(b, u); }};
    def.contrib = std::string(u.domain) == "com.microsoft";
    out.push_back(std::move(def));
  }
  out.push_back(
      {"silu", "activation", float_dtypes(), "5*R*C", "2*R*C*elem (one Sigmoid, one Mul)", [](Build& b) {
         const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
         const auto x = b.input("x", {r, c});
         const auto s = b.node("Sigmoid", {x});
         b.output(b.node("Mul", {x, s}), {r, c});
         b.flops = 5.0 * r * c;
         b.bytes = b.elem_bytes(2.0 * r * c);
         b.shape = fmt::format("{}x{}, x*sigmoid(x)", r, c);
       }});
  out.push_back({"add_broadcast", "activation", float_dtypes(), "R*C", "(2*R*C + C)*elem",
                 [](Build& b) { binary(b, "Add", InputFill{}, true); }});
  out.push_back({"mul", "activation", float_dtypes(), "R*C", "3*R*C*elem",
                 [](Build& b) { binary(b, "Mul", InputFill{}, false); }});
  out.push_back({"div", "activation", float_dtypes(), "R*C", "3*R*C*elem", [](Build& b) {
                   binary(b, "Div", InputFill{InputFill::Kind::uniform, 0.5, 2.0}, false);
                 }});
  out.push_back({"pow", "activation", float_dtypes(), "R*C", "(2*R*C + C)*elem", [](Build& b) {
                   const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
                   const auto x = b.input("a", {r, c}, InputFill{InputFill::Kind::uniform, 0.1, 2.0});
                   const auto e = b.input("b", {c}, InputFill{InputFill::Kind::uniform, 0.5, 2.0});
                   b.output(b.node("Pow", {x, e}), {r, c});
                   b.flops = 1.0 * r * c;
                   b.bytes = b.elem_bytes(2.0 * r * c + c);
                   b.shape = fmt::format("{}x{} ^ {}", r, c, c);
                 }});
  out.push_back({"where", "activation", float_dtypes(), "R*C", "(3*R*C)*elem + R*C (bool)", [](Build& b) {
                   const std::int64_t r = b.size(2048, 256), c = b.size(1024, 256);
                   const auto x = b.input("a", {r, c});
                   const auto y = b.input("b", {r, c});
                   const auto zero = b.constant("zero", {}, {0.0});
                   const auto cond = b.node("Greater", {x, zero});
                   b.output(b.node("Where", {cond, x, y}), {r, c});
                   b.flops = 1.0 * r * c;
                   b.bytes = b.elem_bytes(3.0 * r * c) + double(r) * c;
                   b.shape = fmt::format("{}x{}, where(a > 0, a, b)", r, c);
                 }});
}

}  // namespace accel::ort
