// Softmax over the last axis of (rows, cols): one invocation per row, max-subtracted as the CPU.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    Floats in_;
    uint rows, cols;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

void main() {
    p = args.v;
    const uint r = gl_GlobalInvocationID.x;
    if (r >= p.rows) return;
    const uint base = r * p.cols;
    float m = p.in_.v[base];
    for (uint c = 1; c < p.cols; ++c) m = max(m, p.in_.v[base + c]);
    float sum = 0.0;
    for (uint c = 0; c < p.cols; ++c) {
        const float e = exp(p.in_.v[base + c] - m);
        p.out_.v[base + c] = e;
        sum += e;
    }
    const float inv = 1.0 / sum;
    for (uint c = 0; c < p.cols; ++c) p.out_.v[base + c] *= inv;
}
