// y (N, O) = x (N, I) W^T, W (O, I): one invocation per output, a 16 x 16 tile per workgroup.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

layout(push_constant) uniform Args {
    Floats y;
    Floats x;
    Floats W;
    uint N, I, O;
} p;

void main() {
    const uint o = gl_GlobalInvocationID.x, n = gl_GlobalInvocationID.y;
    if (o >= p.O || n >= p.N) return;
    float s = 0.0;
    for (uint i = 0; i < p.I; ++i) s += p.x.v[n * p.I + i] * p.W.v[o * p.I + i];
    p.y.v[n * p.O + o] = s;
}
