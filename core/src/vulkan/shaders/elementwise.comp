// The element-wise kernels, one shader: the op is a push constant. Arguments are buffer device
// addresses (GL_EXT_buffer_reference): the backend passes the addresses of its allocations.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

layout(push_constant) uniform Args {
    Floats out_;
    Floats a;
    Floats b;
    uint n;
    uint op;     // vk_backend.cpp's Elementwise
    float value;
} p;

void main() {
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
        float r;
        switch (p.op) {
            case 0u: r = p.value; break;                                  // fill
            case 1u: r = p.a.v[i]; break;                                 // copy
            case 2u: r = p.a.v[i] + p.b.v[i]; break;                      // add
            case 3u: r = p.a.v[i] * p.b.v[i]; break;                      // mul
            case 4u: r = p.a.v[i] > 0.0 ? p.a.v[i] : 0.0; break;          // relu
            case 5u: r = p.b.v[i] > 0.0 ? p.a.v[i] : 0.0; break;          // relu backward (a: dout, b: out)
            default: r = p.a.v[i] + p.b.v[i] > 0.0 ? 1.0 : 0.0; break;    // mask or
        }
        p.out_.v[i] = r;
    }
}
