// LayerNorm over the last axis of (rows, cols), one invocation per row: mean, biased variance,
// rstd saved for the backward; gamma and beta optional (0: the tutorial's fixed LayerNorm), or
// beta alone 0 (nanoGPT's LayerNorm(bias=False): y = xhat * gamma).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    Floats mean;
    Floats rstd;
    Floats in_;
    uint64_t gamma, beta;
    uint rows, cols;
    float eps;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

void main() {
    p = args.v;
    const uint r = gl_GlobalInvocationID.x;
    if (r >= p.rows) return;
    const uint base = r * p.cols;
    float s = 0.0;
    for (uint c = 0; c < p.cols; ++c) s += p.in_.v[base + c];
    const float m = s / float(p.cols);
    float v = 0.0;
    for (uint c = 0; c < p.cols; ++c) {
        const float t = p.in_.v[base + c] - m;
        v += t * t;
    }
    v /= float(p.cols);
    const float rs = 1.0 / sqrt(v + p.eps);
    for (uint c = 0; c < p.cols; ++c) {
        float y = (p.in_.v[base + c] - m) * rs;
        if (p.gamma != 0ul) y = y * Floats(p.gamma).v[c];
        if (p.beta != 0ul) y += Floats(p.beta).v[c];
        p.out_.v[base + c] = y;
    }
    p.mean.v[r] = m;
    p.rstd.v[r] = rs;
}
