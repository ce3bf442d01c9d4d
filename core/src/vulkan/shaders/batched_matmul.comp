// C[g] (M, N) = scale * A[g] (M, K) B[g], B[g] given as (N, K) (transposed: Q K^T) or (K, N)
// (attn V); g over G slices. One invocation per output, a 16 x 16 tile per workgroup.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

layout(push_constant) uniform Args {
    Floats C;
    Floats A;
    Floats B;
    uint G, M, N, K;
    uint b_transposed;
    float scale;
} p;

void main() {
    const uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, g = gl_GlobalInvocationID.z;
    if (j >= p.N || i >= p.M || g >= p.G) return;
    const uint a0 = (g * p.M + i) * p.K, b0 = g * p.N * p.K;
    float s = 0.0;
    if (p.b_transposed != 0u)
        for (uint k = 0; k < p.K; ++k) s += p.A.v[a0 + k] * p.B.v[b0 + j * p.K + k];
    else
        for (uint k = 0; k < p.K; ++k) s += p.A.v[a0 + k] * p.B.v[b0 + k * p.N + j];
    p.C.v[(g * p.M + i) * p.N + j] = s * p.scale;
}
