#!/usr/bin/env python3
"""Writes dot_int8.spvasm (the int8 dot product ceiling, see its header):
    python3 dot_int8_gen.py > dot_int8.spvasm
The chains and steps are regular, so they are written by this script rather
than by hand; the .spvasm is the source the build assembles (spirv-as)."""
import sys
CHAINS, UNROLL = 32, 4
out = []
w = out.append
w("""; int8 dot product peak (VK_KHR_shader_integer_dot_product; core in Vulkan 1.3),
; written in SPIR-V assembly because Debian 12's glslc rejects
; GL_EXT_integer_dot_product. Assembled by spirv-as at build time
; (cmake/VulkanEngine.cmake); written by dot_int8_gen.py beside it
; (32 chains, 4 steps unrolled: edit the script, not this file).
;
; What it computes, as GLSL would say it:
;   layout(local_size_x = 256) in;
;   buffer Out { int sums[]; };            // binding 0
;   push_constant { uint iterations; int b; int c; int seed; } p;
;   lane = gl_GlobalInvocationID.x;
;   int x[32]; x[k] = p.seed + int(lane) * 0x9E3779B1 + k * 0x01010101;
;   for (uint i = 0; i < p.iterations; ++i)
;     4 times, for each k: x[k] = dot4_i8packed_i32(x[k], p.b) + p.c;   // OpSDotKHR + OpIAdd (one dp4a)
;   sums[lane] = x[0] + ... + x[31];       // wrapping int32, the host recomputes sampled lanes
; Each step depends on the last (its result is the next step's packed bytes),
; so nothing folds; 32 independent chains per lane hide the latency.
; Work: 8 integer operations (4 multiplies, 4 adds) per dot product.
""")
w("""; SPIR-V
; Version: 1.3
               OpCapability Shader
               OpCapability DotProductKHR
               OpCapability DotProductInput4x8BitPackedKHR
               OpExtension "SPV_KHR_integer_dot_product"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 256 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpMemberDecorate %Params 0 Offset 0
               OpMemberDecorate %Params 1 Offset 4
               OpMemberDecorate %Params 2 Offset 8
               OpMemberDecorate %Params 3 Offset 12
               OpDecorate %Params Block
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Out 0 NonReadable
               OpMemberDecorate %Out 0 Offset 0
               OpDecorate %Out Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
   %ptr_in_v3 = OpTypePointer Input %v3uint
  %ptr_in_uint = OpTypePointer Input %uint
        %gid = OpVariable %ptr_in_v3 Input
     %Params = OpTypeStruct %uint %int %int %int
  %ptr_pc_Params = OpTypePointer PushConstant %Params
  %ptr_pc_uint = OpTypePointer PushConstant %uint
  %ptr_pc_int = OpTypePointer PushConstant %int
          %p = OpVariable %ptr_pc_Params PushConstant
        %arr = OpTypeRuntimeArray %int
        %Out = OpTypeStruct %arr
  %ptr_sb_Out = OpTypePointer StorageBuffer %Out
  %ptr_sb_int = OpTypePointer StorageBuffer %int
        %out = OpVariable %ptr_sb_Out StorageBuffer
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
      %int_2 = OpConstant %int 2
      %int_3 = OpConstant %int 3
     %golden = OpConstant %int -1640531535
       %bytes = OpConstant %int 16843009""")
w("""       %main = OpFunction %void None %fnvoid
      %entry = OpLabel
    %lane_ptr = OpAccessChain %ptr_in_uint %gid %uint_0
       %lane = OpLoad %uint %lane_ptr
      %ilane = OpBitcast %int %lane
     %b_ptr = OpAccessChain %ptr_pc_int %p %int_1
          %b = OpLoad %int %b_ptr
     %c_ptr = OpAccessChain %ptr_pc_int %p %int_2
          %c = OpLoad %int %c_ptr
  %seed_ptr = OpAccessChain %ptr_pc_int %p %int_3
       %seed = OpLoad %int %seed_ptr
  %lane_mix = OpIMul %int %ilane %golden
        %x0_0 = OpIAdd %int %seed %lane_mix""")
for k in range(1, CHAINS):
    w(f"       %x0_{k} = OpIAdd %int %x0_{k-1} %bytes")
w("""               OpBranch %head
       %head = OpLabel
          %i = OpPhi %uint %uint_0 %entry %inext %body""")
for k in range(CHAINS):
    w(f"       %xh_{k} = OpPhi %int %x0_{k} %entry %xs{UNROLL}_{k} %body")
w("""      %n_ptr = OpAccessChain %ptr_pc_uint %p %int_0
          %n = OpLoad %uint %n_ptr
       %more = OpULessThan %bool %i %n
               OpLoopMerge %exit %body None
               OpBranchConditional %more %body %exit
       %body = OpLabel""")
for s in range(1, UNROLL + 1):
    for k in range(CHAINS):
        prev = f"%xh_{k}" if s == 1 else f"%xs{s-1}_{k}"
        w(f"     %d{s}_{k} = OpSDotKHR %int {prev} %b PackedVectorFormat4x8BitKHR")
        w(f"     %xs{s}_{k} = OpIAdd %int %d{s}_{k} %c")
w("""      %inext = OpIAdd %uint %i %uint_1
               OpBranch %head
       %exit = OpLabel""")
w("       %sum_0 = OpCopyObject %int %xh_0")
for k in range(1, CHAINS):
    w(f"       %sum_{k} = OpIAdd %int %sum_{k-1} %xh_{k}")
w(f"""    %dst = OpAccessChain %ptr_sb_int %out %int_0 %lane
               OpStore %dst %sum_{CHAINS-1}
               OpReturn
               OpFunctionEnd""")
sys.stdout.write("\n".join(out) + "\n")
