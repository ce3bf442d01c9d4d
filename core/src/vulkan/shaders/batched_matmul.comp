// C[g] (M, N) = scale * A[g] B[g] (+ C[g] when accumulating), g over G slices. A[g] is (M, K), or
// (K, M) when a_transposed (dW = dy^T x); B[g] is (K, N), or (N, K) when b_transposed (Q K^T).
// One invocation per output, a 16 x 16 tile per workgroup; linear_forward is one too (B = W,
// transposed). batched_matmul_tiled.comp is the same with tiles in shared memory.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats C;
    Floats A;
    Floats B;
    uint G, M, N, K;
    uint a_transposed, b_transposed, accumulate;
    float scale;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

void main() {
    p = args.v;
    const uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, g = gl_GlobalInvocationID.z;
    if (j >= p.N || i >= p.M || g >= p.G) return;
    const uint a0 = g * p.M * p.K, b0 = g * p.N * p.K;
    // element strides of A along k and of B along k
    const uint ai = p.a_transposed != 0u ? i : i * p.K, ak = p.a_transposed != 0u ? p.M : 1u;
    const uint bj = p.b_transposed != 0u ? j * p.K : j, bk = p.b_transposed != 0u ? 1u : p.N;
    float s = 0.0;
    for (uint k = 0; k < p.K; ++k) s += p.A.v[a0 + ai + k * ak] * p.B.v[b0 + bj + k * bk];
    const uint c = (g * p.M + i) * p.N + j;
    p.C.v[c] = p.accumulate != 0u ? p.C.v[c] + s * p.scale : s * p.scale;
}
