#include "engines/onnxruntime/graph.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <set>

namespace accel::ort {

namespace {
struct DTypeName {
  DType type;
  const char* name;
  std::size_t size;
};
constexpr DTypeName kDTypes[] = {
    {DType::fp32, "fp32", 4},   {DType::fp16, "fp16", 2},    {DType::fp64, "fp64", 8},
    {DType::int64, "int64", 8}, {DType::int32, "int32", 4},  {DType::int8, "int8", 1},
    {DType::uint8, "uint8", 1}, {DType::boolean, "bool", 1},
};
}  // namespace

std::string_view to_string(DType t) {
  for (const auto& d : kDTypes) {
    if (d.type == t) return d.name;
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& d : kDTypes) {
    if (name == d.name) return d.type;
  }
  return std::nullopt;
}

std::size_t element_size(DType t) {
  for (const auto& d : kDTypes) {
    if (d.type == t) return d.size;
  }
  return 0;
}

bool is_float(DType t) { return t == DType::fp32 || t == DType::fp16 || t == DType::fp64; }

std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));  // inf / NaN
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: inf
  if (e <= 0) {                                                    // subnormal or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t half = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = sign | (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: right
  return static_cast<std::uint16_t>(half);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::int64_t TensorSpec::elements() const {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

Attribute Attribute::of(std::string name, std::int64_t v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Kind::integer;
  a.i = v;
  return a;
}
Attribute Attribute::of(std::string name, float v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Kind::real;
  a.f = v;
  return a;
}
Attribute Attribute::of(std::string name, std::string v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Kind::text;
  a.s = std::move(v);
  return a;
}
Attribute Attribute::of(std::string name, std::vector<std::int64_t> v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Kind::integers;
  a.ints = std::move(v);
  return a;
}
Attribute Attribute::of(std::string name, std::vector<float> v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Kind::reals;
  a.floats = std::move(v);
  return a;
}

const std::string& Graph::add(Node node) {
  if (node.name.empty()) node.name = fmt::format("{}_{}", node.op, nodes.size());
  nodes.push_back(std::move(node));
  return nodes.back().outputs.front();
}

std::string Graph::add_int64s(const std::string& name, const std::vector<std::int64_t>& values,
                              std::vector<std::int64_t> dims) {
  if (dims.empty()) dims = {static_cast<std::int64_t>(values.size())};
  Initializer init;
  init.spec = {name, DType::int64, std::move(dims)};
  init.data.resize(values.size() * 8);
  std::memcpy(init.data.data(), values.data(), init.data.size());
  initializers.push_back(std::move(init));
  return name;
}

std::string Graph::add_floats(const std::string& name, DType dtype, const std::vector<double>& values,
                              std::vector<std::int64_t> dims) {
  Initializer init;
  init.spec = {name, dtype, std::move(dims)};
  init.data = encode(dtype, values);
  initializers.push_back(std::move(init));
  return name;
}

void Graph::use_opset(const std::string& domain, int version) {
  for (auto& [d, v] : opsets) {
    if (d == domain) {
      v = std::max(v, version);
      return;
    }
  }
  opsets.emplace_back(domain, version);
}

std::vector<std::uint8_t> encode(DType dtype, const std::vector<double>& values) {
  std::vector<std::uint8_t> out(values.size() * element_size(dtype));
  std::uint8_t* p = out.data();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (dtype) {
      case DType::fp32: {
        const float f = static_cast<float>(v);
        std::memcpy(p + 4 * i, &f, 4);
        break;
      }
      case DType::fp16: {
        const std::uint16_t h = float_to_half(static_cast<float>(v));
        std::memcpy(p + 2 * i, &h, 2);
        break;
      }
      case DType::fp64:
        std::memcpy(p + 8 * i, &v, 8);
        break;
      case DType::int64: {
        const auto x = static_cast<std::int64_t>(v);
        std::memcpy(p + 8 * i, &x, 8);
        break;
      }
      case DType::int32: {
        const auto x = static_cast<std::int32_t>(v);
        std::memcpy(p + 4 * i, &x, 4);
        break;
      }
      case DType::int8:
        p[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
        break;
      case DType::uint8:
        p[i] = static_cast<std::uint8_t>(v);
        break;
      case DType::boolean:
        p[i] = v != 0 ? 1 : 0;
        break;
    }
  }
  return out;
}

std::vector<double> decode(DType dtype, const std::uint8_t* data, std::size_t elements) {
  std::vector<double> out(elements);
  for (std::size_t i = 0; i < elements; ++i) {
    switch (dtype) {
      case DType::fp32: {
        float f;
        std::memcpy(&f, data + 4 * i, 4);
        out[i] = f;
        break;
      }
      case DType::fp16: {
        std::uint16_t h;
        std::memcpy(&h, data + 2 * i, 2);
        out[i] = half_to_float(h);
        break;
      }
      case DType::fp64:
        std::memcpy(&out[i], data + 8 * i, 8);
        break;
      case DType::int64: {
        std::int64_t x;
        std::memcpy(&x, data + 8 * i, 8);
        out[i] = static_cast<double>(x);
        break;
      }
      case DType::int32: {
        std::int32_t x;
        std::memcpy(&x, data + 4 * i, 4);
        out[i] = x;
        break;
      }
      case DType::int8:
        out[i] = static_cast<std::int8_t>(data[i]);
        break;
      case DType::uint8:
      case DType::boolean:
        out[i] = data[i];
        break;
    }
  }
  return out;
}

std::string validate(const Graph& g) {
  std::vector<std::string> problems;
  std::set<std::string> values, node_names;
  auto define = [&](const std::string& name, const char* what) {
    if (name.empty()) return;
    if (!values.insert(name).second) problems.push_back(fmt::format("{} '{}' defined twice", what, name));
  };
  for (const auto& in : g.inputs) define(in.name, "input");
  for (const auto& init : g.initializers) {
    define(init.spec.name, "initializer");
    if (init.data.size() != init.spec.bytes()) {
      problems.push_back(fmt::format("initializer '{}' has {} bytes, its shape needs {}", init.spec.name,
                                     init.data.size(), init.spec.bytes()));
    }
  }
  for (const auto& n : g.nodes) {
    if (!node_names.insert(n.name).second)
      problems.push_back(fmt::format("node name '{}' used twice", n.name));
    for (const auto& in : n.inputs) {
      if (!in.empty() && !values.count(in))
        problems.push_back(fmt::format("node '{}' reads '{}', which nothing before it produces", n.name, in));
    }
    for (const auto& out : n.outputs) define(out, "node output");
  }
  for (const auto& out : g.outputs) {
    if (!values.count(out.name))
      problems.push_back(fmt::format("graph output '{}' is never produced", out.name));
  }
  std::string s;
  for (const auto& p : problems) s += (s.empty() ? "" : "; ") + p;
  return s;
}

}  // namespace accel::ort
