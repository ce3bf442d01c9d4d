// C[g] (M, N) = scale * A[g] B[g] (+ C[g] when accumulating), g over G slices. A[g] is (M, K), or
// (K, M) when a_transposed (dW = dy^T x); B[g] is (K, N), or (N, K) when b_transposed (Q K^T).
// One invocation per output, a 16 x 16 tile per workgroup. batched_matmul.comp's arguments and
// results; the backend takes this one on GPUs (on lavapipe, a CPU, its barriers cost more than
// the memory reads they save: a traced forward pass measured 2.5–2.6 s tiled, 1.1–1.2 s without).
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

// Tiles of A and B in shared memory: each value is read from memory once per tile instead of
// once per output. Every invocation takes part in the barriers (out-of-range ones load zeros),
// and each output still sums k = 0, 1, ..., K-1 in order: the same sums as without tiles.
shared float As[16][17];
shared float Bs[16][17];

void main() {
    p = args.v;
    const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    const uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, g = gl_GlobalInvocationID.z;
    const uint a0 = g * p.M * p.K, b0 = g * p.N * p.K;
    const uint ak = p.a_transposed != 0u ? p.M : 1u;  // A's element stride along k
    const uint arow = gl_WorkGroupID.y * 16u + ly;  // the A row this invocation loads
    const uint aload = p.a_transposed != 0u ? arow : arow * p.K;
    const uint bcol = gl_WorkGroupID.x * 16u + lx;  // the B column it loads
    const uint bload = p.b_transposed != 0u ? bcol * p.K : bcol, bk = p.b_transposed != 0u ? 1u : p.N;
    float s = 0.0;
    for (uint t = 0u; t < p.K; t += 16u) {
        As[ly][lx] = arow < p.M && t + lx < p.K ? p.A.v[a0 + aload + (t + lx) * ak] : 0.0;
        Bs[ly][lx] = bcol < p.N && t + ly < p.K ? p.B.v[b0 + bload + (t + ly) * bk] : 0.0;
        barrier();
        const uint kk_end = min(16u, p.K - t);
        for (uint kk = 0u; kk < kk_end; ++kk) s += As[ly][kk] * Bs[kk][lx];
        barrier();
    }
    if (j >= p.N || i >= p.M || g >= p.G) return;
    const uint c = (g * p.M + i) * p.N + j;
    p.C.v[c] = p.accumulate != 0u ? p.C.v[c] + s * p.scale : s * p.scale;
}
