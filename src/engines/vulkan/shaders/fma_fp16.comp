#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// fp16 FMA peak (shaderFloat16): 8 independent f16vec4 chains per
// lane (32 scalar FMAs per step), x = fma(x, b, c), a contraction (|b| < 1) so the values stay finite
// and the host can recompute any lane in double. Each lane writes the sum of
// its chains: the checksum the host verifies on sampled lanes.
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Out { float sums[]; };
layout(push_constant) uniform Params {
  uint iterations;  // loop trips; 4 unrolled steps each
  float b;
  float c;
  float seed;
} p;

void main() {
  const uint lane = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const float x0 = p.seed + float(lane & 1023u) * 0.0009765625;
  f16vec4 a0 = f16vec4(vec4(x0, x0 + 0.1, x0 + 0.2, x0 + 0.3));
  f16vec4 a1 = a0 + float16_t(0.4), a2 = a0 + float16_t(0.8), a3 = a0 + float16_t(1.2);
  f16vec4 a4 = a0 + float16_t(1.6), a5 = a0 + float16_t(2.0), a6 = a0 + float16_t(2.4), a7 = a0 + float16_t(2.8);
  const f16vec4 b = f16vec4(float16_t(p.b)), c = f16vec4(float16_t(p.c));
  for (uint i = 0u; i < p.iterations; ++i) {
    for (int u = 0; u < 4; ++u) {
      a0 = fma(a0, b, c); a1 = fma(a1, b, c); a2 = fma(a2, b, c); a3 = fma(a3, b, c);
      a4 = fma(a4, b, c); a5 = fma(a5, b, c); a6 = fma(a6, b, c); a7 = fma(a7, b, c);
    }
  }
  const vec4 s = vec4(((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)));
  sums[lane] = (s.x + s.y) + (s.z + s.w);
}
