// C[g] (M, N) = scale * A[g] B[g] (+ C[g] when accumulating), as batched_matmul.comp, with four
// neighbouring outputs of a row per invocation: A's value is loaded once for four products, and a
// workgroup covers 128 columns of 4 rows, not 16 x 16 (the tutorial's linear layers have 10 rows
// and 512 or 2048 columns). Each output still sums over k in order, as the other shaders do.
// The backend runs it on CPU devices for products of at most 64 rows.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 32, local_size_y = 4) in;
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
    const uint j0 = gl_GlobalInvocationID.x * 4u, i = gl_GlobalInvocationID.y, g = gl_GlobalInvocationID.z;
    if (j0 >= p.N || i >= p.M || g >= p.G) return;
    const uint a0 = g * p.M * p.K, b0 = g * p.N * p.K;
    // element strides of A along k, of B along k and of B from one column to the next
    const uint ai = p.a_transposed != 0u ? i : i * p.K, ak = p.a_transposed != 0u ? p.M : 1u;
    const uint bk = p.b_transposed != 0u ? 1u : p.N, bc = p.b_transposed != 0u ? p.K : 1u;
    // Past the last column a lane reads the last column again (and writes nothing).
    const uint last = p.N - 1u;
    const uint c1 = min(j0 + 1u, last), c2 = min(j0 + 2u, last), c3 = min(j0 + 3u, last);
    const uint b_0 = b0 + j0 * bc, b_1 = b0 + c1 * bc, b_2 = b0 + c2 * bc, b_3 = b0 + c3 * bc;
    float s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (uint k = 0; k < p.K; ++k) {
        const float a = p.A.v[a0 + ai + k * ak];
        const uint o = k * bk;
        s0 += a * p.B.v[b_0 + o];
        s1 += a * p.B.v[b_1 + o];
        s2 += a * p.B.v[b_2 + o];
        s3 += a * p.B.v[b_3 + o];
    }
    const uint row = (g * p.M + i) * p.N;
    const float s[4] = float[4](s0, s1, s2, s3);
    for (uint t = 0; t < 4u && j0 + t < p.N; ++t) {
        const uint c = row + j0 + t;
        p.C.v[c] = p.accumulate != 0u ? p.C.v[c] + s[t] * p.scale : s[t] * p.scale;
    }
}
