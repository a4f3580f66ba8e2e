#version 450
// Read-only device bandwidth: each lane sums its uvec4 elements weighted by
// their position (v * (i + 1), wrapping 32-bit arithmetic), the workgroup
// adds its lanes' sums in shared memory and writes one word. The sum of the
// words is position-sensitive and independent of the lane layout, so the
// host checks it against the data it knows (and, run on a copy's
// destination, checks the copy).
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Sums { uint sums[]; };
layout(push_constant) uniform Params { uint count; } p;  // uvec4 elements

shared uint partial[256];

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uvec4 acc = uvec4(0u);
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) acc += src[i] * (i + 1u);
  const uint lid = gl_LocalInvocationID.x;
  partial[lid] = (acc.x + acc.y) + (acc.z + acc.w);
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier();
  }
  if (lid == 0u) sums[gl_WorkGroupID.x] = partial[0];
}
