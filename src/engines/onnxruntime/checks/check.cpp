#include "engines/onnxruntime/checks/check.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/result_keys.hpp"

namespace accel::ort {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double unit(std::uint64_t& state) {  // (0, 1)
  return (static_cast<double>(splitmix64(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/// Rounds a double to what `t` can hold (so model and reference see one value).
double round_to(DType t, double v) {
  switch (t) {
    case DType::fp32:
      return static_cast<double>(static_cast<float>(v));
    case DType::fp16:
      return half_to_float(float_to_half(static_cast<float>(v)));
    default:
      return v;
  }
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t n) {
  std::uint64_t s = seed ^ (n * 0x2545f4914f6cdd1dull);
  return splitmix64(s);
}

}  // namespace

std::vector<double> draw_values(const InputFill& fill, std::int64_t n, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (fill.kind) {
      case InputFill::Kind::normal: {
        const double u1 = unit(state), u2 = unit(state);
        v[i] = fill.lo + fill.scale * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
        break;
      }
      case InputFill::Kind::uniform:
        v[i] = fill.lo + (fill.hi - fill.lo) * unit(state);
        break;
      case InputFill::Kind::integers: {
        const auto span = static_cast<std::uint64_t>(std::max(1.0, fill.hi - fill.lo));
        v[i] = fill.lo + static_cast<double>(splitmix64(state) % span);
        break;
      }
    }
  }
  return v;
}

Build::Build(DType compute, DType graph, bool quick, std::uint64_t seed)
    : compute_(compute), graph_dtype_(graph), quick_(quick), seed_(seed) {}

const std::string& Build::input(const std::string& name, std::vector<std::int64_t> dims, InputFill fill) {
  g_.inputs.push_back({name, graph_dtype_, std::move(dims)});
  fills_.push_back(fill);
  return g_.inputs.back().name;
}

const std::string& Build::typed_input(const std::string& name, DType dtype, std::vector<std::int64_t> dims,
                                      InputFill fill) {
  g_.inputs.push_back({name, dtype, std::move(dims)});
  fills_.push_back(fill);
  return g_.inputs.back().name;
}

const std::string& Build::index_input(const std::string& name, std::vector<std::int64_t> dims,
                                      std::int64_t lo, std::int64_t hi) {
  g_.inputs.push_back({name, DType::int64, std::move(dims)});
  InputFill f;
  f.kind = InputFill::Kind::integers;
  f.lo = static_cast<double>(lo);
  f.hi = static_cast<double>(hi);
  fills_.push_back(f);
  return g_.inputs.back().name;
}

std::string Build::weight(const std::string& name, std::vector<std::int64_t> dims, double scale,
                          double mean) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  InputFill f;
  f.scale = scale;
  f.lo = mean;
  auto values = draw_values(f, n, mix(seed_, ++draws_));
  for (auto& v : values) v = round_to(compute_, v);
  return g_.add_floats(name, graph_dtype_, values, std::move(dims));
}

std::string Build::constant(const std::string& name, std::vector<std::int64_t> dims,
                            const std::vector<double>& values) {
  std::vector<double> v = values;
  for (auto& x : v) x = round_to(compute_, x);
  return g_.add_floats(name, graph_dtype_, v, std::move(dims));
}

std::string Build::ints(const std::string& name, const std::vector<std::int64_t>& values,
                        std::vector<std::int64_t> dims) {
  return g_.add_int64s(name, values, std::move(dims));
}

std::string Build::scalar_int(const std::string& name, std::int64_t value) {
  Initializer init;
  init.spec = {name, DType::int64, {}};
  init.data = encode(DType::int64, {static_cast<double>(value)});
  g_.initializers.push_back(std::move(init));
  return name;
}

std::string Build::node(const std::string& op, std::vector<std::string> inputs, std::vector<Attribute> attrs,
                        std::string domain, std::vector<std::string> outputs) {
  Node n;
  n.op = op;
  n.domain = std::move(domain);
  n.inputs = std::move(inputs);
  n.attributes = std::move(attrs);
  if (outputs.empty()) outputs.push_back(fmt::format("t{}", g_.nodes.size()));
  n.outputs = std::move(outputs);
  return g_.add(std::move(n));
}

void Build::output(const std::string& name, std::vector<std::int64_t> dims, Compare compare) {
  output(name, std::move(dims), graph_dtype_, compare);
}

void Build::output(const std::string& name, std::vector<std::int64_t> dims, DType dtype, Compare compare) {
  g_.outputs.push_back({name, dtype, std::move(dims)});
  compares_.push_back(compare);
}

std::string check_key(const CheckDef& def, DType dtype) {
  return fmt::format("ort/{}/{}/{}", def.category, def.name, to_string(dtype));
}

std::string workload_key(const CheckDef& def, DType dtype, const std::string& device_type,
                         const std::string& tag) {
  return BenchKey{"ort-" + device_type, "workload", def.name, std::string(to_string(dtype)),
                  tag.empty() ? "-" : tag}
      .str();
}

const std::vector<CheckDef>& catalog() {
  static const std::vector<CheckDef> rows = [] {
    std::vector<CheckDef> out;
    add_linalg_checks(out);
    add_conv_checks(out);
    add_norm_checks(out);
    add_activation_checks(out);
    add_attention_checks(out);
    add_data_checks(out);
    add_rnn_checks(out);
    return out;
  }();
  return rows;
}

}  // namespace accel::ort
