#version 450
// Fills a buffer with pseudo-random words (a hash of the word index and a
// seed), so no cache or compression sees a pattern; the host recomputes the
// same words for the checksum.
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Dst { uint words[]; };
layout(push_constant) uniform Params { uint count; uint seed; } p;

uint hash(uint x) {  // lowbias32 (Chris Wellons)
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) words[i] = hash(i ^ p.seed);
}
