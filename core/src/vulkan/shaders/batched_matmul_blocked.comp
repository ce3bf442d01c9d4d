// C[g] (M, N) = scale * A[g] B[g] (+ C[g] when accumulating), as batched_matmul.comp: a 64 x 64
// tile of C per workgroup of 16 x 16 invocations, each computing 4 x 4 outputs in registers. A
// value read from shared memory serves four products instead of one (batched_matmul_tiled.comp's
// one output an invocation reads two shared values per product), and each K-slice of 16 costs a
// workgroup two barriers for 4096 outputs instead of 256. For large products on GPUs (batch 32 x
// 64: 2048 rows); each output still sums k = 0, 1, ..., K-1 in order, as the other shaders do.
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

const uint TILE = 64u, KS = 16u;
// A K-slice of A's 64 rows and of B's 64 columns, k-major. An invocation's outputs are 16 rows and
// 16 columns apart (rows ly + 16 r, columns lx + 16 c), so neighbouring invocations read
// neighbouring words and write neighbouring outputs.
shared float As[KS][TILE];
shared float Bs[KS][TILE];

void main() {
    p = args.v;
    const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y, tid = ly * 16u + lx;
    const uint g = gl_WorkGroupID.z;
    const uint m0 = gl_WorkGroupID.y * TILE, n0 = gl_WorkGroupID.x * TILE;
    const uint a0 = g * p.M * p.K, b0 = g * p.N * p.K;
    const bool at = p.a_transposed != 0u, bt = p.b_transposed != 0u;
    float acc[4][4];
    for (uint r = 0u; r < 4u; ++r)
        for (uint c = 0u; c < 4u; ++c) acc[r][c] = 0.0;
    for (uint t = 0u; t < p.K; t += KS) {
        // 1024 values of each slice, four an invocation, read along the matrix's contiguous axis:
        // k for A (M, K) and B (N, K), the row for A (K, M), the column for B (K, N).
        for (uint q = 0u; q < 4u; ++q) {
            const uint l = tid + 256u * q;
            const uint am = at ? l % TILE : l / KS, ak = at ? l / TILE : l % KS;
            const uint gm = m0 + am, gk = t + ak;
            As[ak][am] = gm < p.M && gk < p.K ? p.A.v[a0 + (at ? gk * p.M + gm : gm * p.K + gk)] : 0.0;
            const uint bn = bt ? l / KS : l % TILE, bk = bt ? l % KS : l / TILE;
            const uint gn = n0 + bn, gkb = t + bk;
            Bs[bk][bn] = gn < p.N && gkb < p.K ? p.B.v[b0 + (bt ? gn * p.K + gkb : gkb * p.N + gn)] : 0.0;
        }
        barrier();
        const uint kk_end = min(KS, p.K - t);
        for (uint kk = 0u; kk < kk_end; ++kk) {
            float a[4], b[4];
            for (uint r = 0u; r < 4u; ++r) a[r] = As[kk][ly + 16u * r];
            for (uint c = 0u; c < 4u; ++c) b[c] = Bs[kk][lx + 16u * c];
            for (uint r = 0u; r < 4u; ++r)
                for (uint c = 0u; c < 4u; ++c) acc[r][c] += a[r] * b[c];
        }
        barrier();
    }
    if (g >= p.G) return;
    for (uint r = 0u; r < 4u; ++r) {
        const uint i = m0 + ly + 16u * r;
        if (i >= p.M) break;
        for (uint c = 0u; c < 4u; ++c) {
            const uint j = n0 + lx + 16u * c;
            if (j >= p.N) break;
            const uint o = (g * p.M + i) * p.N + j;
            p.C.v[o] = p.accumulate != 0u ? p.C.v[o] + acc[r][c] * p.scale : acc[r][c] * p.scale;
        }
    }
}
