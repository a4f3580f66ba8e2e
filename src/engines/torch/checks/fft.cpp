// FFTs: cuFFT / hipFFT / pocketfft (CPU) do the work. Sizes are powers of
// two, the only sizes cuFFT accepts in half precision; bf16 FFTs do not
// exist in most builds, and those gaps surface as `unavailable`.
// FLOPs use the usual estimate 5*N*log2(N) per complex transform of size N
// (2.5*N*log2(N) for real-input transforms).
#include <cmath>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
CheckDef make(std::string name, std::string shape) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "fft";
  c.dtypes = float_dtypes();
  c.shape = std::move(shape);
  return c;
}

/// `batch` transforms of `n` points; complex (c2c) or real (r2c / c2r).
void fft_work(CheckDef& c, double batch, double n, bool real, double in_per_elem, double out_per_elem) {
  const double per = (real ? 2.5 : 5.0) * n * std::log2(n);
  c.flops = batch * per;
  c.flops_formula = real ? "2.5*B*N*log2(N)" : "5*B*N*log2(N)";
  // Element sizes in units of the real dtype: a complex element is 2.
  c.bytes = [=](double e) { return batch * n * (in_per_elem + out_per_elem) * e; };
  c.bytes_formula = "B*N*(in + out)*elem (complex counts twice)";
}

constexpr int64_t kB = 64, kN = 4096;
const std::string kShape = "64x4096, dim=-1";
}  // namespace

void add_fft_checks(std::vector<CheckDef>& out) {
  {
    CheckDef c = make("fft", kShape + ", real -> complex");
    c.inputs = [] { return Tensors{randn64({kB, kN})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::fft_fft(in[0]); };
    fft_work(c, kB, kN, false, 1, 2);
    out.push_back(c);
  }
  {
    // Real input (the runner builds real tensors of the dtype under test),
    // transformed as complex: a c2c inverse transform.
    CheckDef c = make("ifft", kShape + ", real -> complex");
    c.inputs = [] { return Tensors{randn64({kB, kN})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::fft_ifft(in[0]); };
    fft_work(c, kB, kN, false, 1, 2);
    out.push_back(c);
  }
  {
    CheckDef c = make("rfft", kShape);
    c.inputs = [] { return Tensors{randn64({kB, kN})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::fft_rfft(in[0]); };
    fft_work(c, kB, kN, true, 1, 1);
    out.push_back(c);
  }
  {
    // Half spectrum (2049 bins, real-valued here) back to 4096 real points.
    CheckDef c = make("irfft", "64x2049 -> 64x4096");
    c.inputs = [] { return Tensors{randn64({kB, kN / 2 + 1})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::fft_irfft(in[0], kN); };
    fft_work(c, kB, kN, true, 1, 1);
    out.push_back(c);
  }
  {
    CheckDef c = make("fft2", "8x256x256, last two dims");
    c.inputs = [] { return Tensors{randn64({8, 256, 256})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::fft_fft2(in[0]); };
    fft_work(c, 8, 256.0 * 256, false, 1, 2);
    out.push_back(c);
  }
  {
    CheckDef c = make("rfft2", "16x256x256, last two dims");
    c.inputs = [] { return Tensors{randn64({16, 256, 256})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::fft_rfft2(in[0]); };
    fft_work(c, 16, 256.0 * 256, true, 1, 1);
    out.push_back(c);
  }
  {
    CheckDef c = make("fftn", "2x64x64x64, last three dims");
    c.inputs = [] { return Tensors{randn64({2, 64, 64, 64})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> dims{1, 2, 3};
      return at::fft_fftn(in[0], c10::nullopt, dims);
    };
    fft_work(c, 2, 64.0 * 64 * 64, false, 1, 2);
    out.push_back(c);
  }
  {
    // Spectrogram: 512-point Hann windows, hop 128, over 8 signals of 2^16.
    static constexpr int64_t B = 8, L = 1 << 16, n_fft = 512, hop = 128;
    CheckDef c = make("stft", "8x65536, n_fft 512, hop 128, Hann");
    c.inputs = [] {
      return Tensors{randn64({B, L}), at::hann_window(n_fft, at::TensorOptions().dtype(at::kDouble))};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::stft(in[0], n_fft, hop, n_fft, in[1], /*normalized=*/false, /*onesided=*/true,
                      /*return_complex=*/true);
    };
    const double frames = (L - n_fft) / hop + 1;
    fft_work(c, B * frames, n_fft, true, 1, 1);
    c.flops += B * frames * n_fft;  // windowing
    c.flops_formula = "B*frames*(2.5*n*log2(n) + n)";
    c.bytes = [=](double e) { return (B * L + B * frames * (n_fft / 2 + 1) * 2.0) * e; };
    c.bytes_formula = "(B*L + B*frames*(n/2+1)*2)*elem";
    out.push_back(c);
  }
}

}  // namespace accel::engine
