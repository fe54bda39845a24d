// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The compute shader of tests/clients/vulkan_compute.c: each invocation
// scales its element by the specialization constant and mixes in its
// neighbours, with a loop and a branch, so the shader LLVM compiles has
// control flow of its own.
#version 450
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint FACTOR = 3u;
layout(std430, binding = 0) buffer Data { uint v[]; } data;

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = data.v[i] * FACTOR + 1u;
  for (uint k = 0u; k < (i & 7u); ++k) {
    if ((x & 1u) == 0u)
      x = x / 2u + k;
    else
      x = x * 3u + FACTOR;
  }
  data.v[i] = x ^ (i << 3);
}
