// Shape and memory: concatenation, layout changes that copy (permute,
// transpose, expand, ... followed by contiguous), padding, triangular masks,
// device-to-device, host-to-device and device-to-host copies, and casts.
// All of it is data movement: 0 FLOPs, exact results.
#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
constexpr int64_t kR = 1024, kC = 1024;
constexpr double kN = static_cast<double>(kR) * kC;
const std::string kShape = "1024x1024";

/// A data-movement row: reads and writes `elems` elements, exact result.
CheckDef move(std::string name, std::string shape, double elems, std::function<Tensors()> inputs,
              std::function<at::Tensor(const Tensors&)> fn,
              std::vector<at::ScalarType> dtypes = float_dtypes()) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "shape";
  c.dtypes = std::move(dtypes);
  c.shape = std::move(shape);
  c.inputs = std::move(inputs);
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in); };
  c.verify = Verify::exact;
  movement(
      c, [elems](double e) { return 2.0 * elems * e; }, "2*N*elem (read + write)");
  return c;
}

std::function<Tensors()> one(std::vector<int64_t> shape) {
  return [shape] { return Tensors{randn64(shape)}; };
}

/// Keeps a pinned (page-locked) copy of a host input, made on the first call
/// outside the timed region, so that timed calls measure the transfer only.
/// Pinning needs an accelerator: on the CPU the pageable tensor is used.
struct PinnedCache {
  at::Tensor source;
  at::Tensor pinned;
  const at::Tensor& get(const at::Tensor& host, const c10::Device& device) {
    if (device.is_cpu()) return host;
    if (!source.defined() || !source.is_same(host)) {
      source = host;
      pinned = host.pin_memory();
    }
    return pinned;
  }
};

/// Host <-> device copy rows: what a data loader and a `.to(device)` do.
CheckDef transfer(std::string name, bool to_device, bool pinned) {
  static constexpr int64_t kElems = 1 << 22;  // 4M elements: 16 MB in fp32
  CheckDef c;
  c.name = std::move(name);
  c.category = "shape";
  c.dtypes = float_dtypes();
  c.shape = pinned ? "4194304, pinned host memory" : "4194304, pageable host memory";
  c.inputs = [] { return Tensors{randn64({kElems})}; };
  c.verify = Verify::exact;
  c.flops = 0;
  c.flops_formula = "0 (transfer)";
  c.bytes = [](double e) { return kElems * e; };
  c.bytes_formula = "N*elem (over the host link)";
  c.transfer = true;
  c.compare_cpu = false;  // the CPU twin of a host<->device copy is a memcpy
  if (to_device) {
    c.inputs_on_host = true;
    auto cache = std::make_shared<PinnedCache>();
    c.op = [cache, pinned](const Tensors& in, const OpEnv& env) {
      const at::Tensor& src = pinned ? cache->get(in[0], env.device) : in[0];
      const bool async = pinned && !env.device.is_cpu();
      return at::empty(src.sizes(), src.options().device(env.device)).copy_(src, async);
    };
  } else {
    c.output_on_host = true;
    c.op = [pinned](const Tensors& in, const OpEnv& env) {
      const bool pin = pinned && !env.device.is_cpu();
      at::Tensor dst = at::empty(in[0].sizes(), in[0].options().device(c10::kCPU).pinned_memory(pin));
      // Asynchronous into pinned memory: the runner synchronises before use.
      return dst.copy_(in[0], /*non_blocking=*/pin);
    };
  }
  return c;
}
}  // namespace

void add_shape_checks(std::vector<CheckDef>& out) {
  using T = const Tensors&;
  // ---- concatenation and splitting
  out.push_back(move(
      "cat", "2 x 1024x512 -> 1024x1024 (dim=1)", kN,
      [] {
        return Tensors{randn64({kR, 512}), randn64({kR, 512})};
      },
      [](T in) {
        return at::cat({in[0], in[1]}, 1);
      }));
  {
    // Dynamic KV cache append (HF DynamicCache): past keys + one new token.
    CheckDef c = move(
        "cat_kv_append", "1x32x512x128 + 1x32x1x128 (dim=2)", 32.0 * 513 * 128,
        [] {
          return Tensors{randn64({1, 32, 512, 128}), randn64({1, 32, 1, 128})};
        },
        [](T in) {
          return at::cat({in[0], in[1]}, 2);
        });
    out.push_back(c);
  }
  out.push_back(move(
      "stack", "4 x 512x512 -> 4x512x512", 4.0 * 512 * 512,
      [] {
        return Tensors{randn64({512, 512}), randn64({512, 512}), randn64({512, 512}), randn64({512, 512})};
      },
      [](T in) {
        return at::stack({in[0], in[1], in[2], in[3]});
      }));
  out.push_back(move("split_qkv", "1024x3072 -> 3 x 1024x1024 (stacked)", 1024.0 * 3072, one({1024, 3072}),
                     [](T in) { return at::stack(in[0].split(1024, -1)); }));
  out.push_back(move("chunk_contiguous", kShape + " -> chunk 1 of 4 along dim 1", kN / 4, one({kR, kC}),
                     [](T in) { return in[0].chunk(4, 1)[1].contiguous(); }));
  out.push_back(move("narrow_clone", kShape + " -> 1024x512 (dim 1, from 128)", kN / 2, one({kR, kC}),
                     [](T in) { return in[0].narrow(1, 128, 512).clone(); }));

  // ---- layout changes
  out.push_back(
      move("permute_nhwc", "8x64x56x56 -> 8x56x56x64", 8.0 * 64 * 56 * 56, one({8, 64, 56, 56}), [](T in) {
        return in[0].permute({0, 2, 3, 1}).contiguous();
      }));
  out.push_back(move("transpose", kShape + " -> transposed, contiguous", kN, one({kR, kC}),
                     [](T in) { return in[0].t().contiguous(); }));
  out.push_back(move("reshape_copy", kShape + " transposed -> flat (copies)", kN, one({kR, kC}),
                     [](T in) { return in[0].t().reshape({-1}); }));
  out.push_back(move("expand_contiguous", "1x1024 -> 1024x1024", kN, one({1, kC}), [](T in) {
    return in[0].expand({kR, kC}).contiguous();
  }));
  out.push_back(move("repeat", "256x256 -> repeat(4,4)", kN, one({256, 256}), [](T in) {
    return in[0].repeat({4, 4});
  }));
  out.push_back(move("flip", kShape + ", dim=-1", kN, one({kR, kC}), [](T in) { return in[0].flip({-1}); }));
  out.push_back(move("roll", kShape + ", shift 17 along dim 1", kN, one({kR, kC}),
                     [](T in) { return in[0].roll({17}, {1}); }));

  // ---- padding and triangles
  out.push_back(
      move("pad_constant", "8x64x56x56 -> 58x58", 8.0 * 64 * 58 * 58, one({8, 64, 56, 56}), [](T in) {
        return at::constant_pad_nd(in[0], {1, 1, 1, 1}, 0.0);
      }));
  out.push_back(
      move("pad_reflect", "8x64x56x56 -> 60x60", 8.0 * 64 * 60 * 60, one({8, 64, 56, 56}), [](T in) {
        return at::reflection_pad2d(in[0], {2, 2, 2, 2});
      }));
  out.push_back(move("tril", kShape, kN, one({kR, kC}), [](T in) { return at::tril(in[0]); }));
  out.push_back(
      move("triu", kShape + ", diagonal 1", kN, one({kR, kC}), [](T in) { return at::triu(in[0], 1); }));

  // ---- casts (to(dtype)): truncation toward zero is exact
  {
    CheckDef c = move(
        "to_int32", kShape, kN,
        [] {
          return Tensors{randn64({kR, kC}) * 1000};
        },
        [](T in) { return in[0].to(at::kInt); });
    c.bytes = [](double e) { return kN * (e + 4); };
    c.bytes_formula = "N*(elem + 4)";
    out.push_back(c);
  }

  // ---- host <-> device
  out.push_back(transfer("copy_h2d", /*to_device=*/true, /*pinned=*/false));
  out.push_back(transfer("copy_h2d_pinned", /*to_device=*/true, /*pinned=*/true));
  out.push_back(transfer("copy_d2h", /*to_device=*/false, /*pinned=*/false));
  out.push_back(transfer("copy_d2h_pinned", /*to_device=*/false, /*pinned=*/true));
}

}  // namespace accel::engine
