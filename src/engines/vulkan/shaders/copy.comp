#version 450
// Device memory copy, 16 bytes per access, grid-stride: bytes = 2 x size.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Params { uint count; } p;  // uvec4 elements

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) dst[i] = src[i];
}
