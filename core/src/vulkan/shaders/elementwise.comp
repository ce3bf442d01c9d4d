// The element-wise kernels, one shader: the op is a push constant. Arguments are buffer device
// addresses (GL_EXT_buffer_reference): the backend passes the addresses of its allocations.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    Floats a;
    Floats b;
    uint n;
    uint op;     // vk_backend.cpp's Elementwise
    float value;
    uint cols;   // add bias: b is one row of cols floats, b[i % cols]
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

// erf(x): GLSL has none. Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), odd in x.
float erf_(float x) {
    const float t = 1.0 / (1.0 + 0.3275911 * abs(x));
    const float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    const float y = 1.0 - poly * exp(-x * x);
    return x < 0.0 ? -y : y;
}

void main() {
    p = args.v;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (p.op == 11u) {  // copy the bits (an upload or download through staging: ids too, NaN payloads kept)
        for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) Words(uint64_t(p.out_)).v[i] = Words(uint64_t(p.a)).v[i];
        return;
    }
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
        float r;
        switch (p.op) {
            case 0u: r = p.value; break;                                  // fill
            case 1u: r = p.a.v[i]; break;                                 // copy
            case 2u: r = p.a.v[i] + p.b.v[i]; break;                      // add
            case 3u: r = p.a.v[i] * p.b.v[i]; break;                      // mul
            case 4u: r = p.a.v[i] <= 0.0 ? 0.0 : p.a.v[i]; break;         // relu (NaN passes, as torch.relu's)
            case 5u: r = p.b.v[i] <= 0.0 ? 0.0 : p.a.v[i]; break;         // relu backward (a: dout, b: out)
            case 7u: {                                                    // gelu: x/2 (1 + erf(x/√2))
                const float x = p.a.v[i];
                r = 0.5 * x * (1.0 + erf_(x * 0.70710678));
                break;
            }
            case 8u: {                                                    // gelu backward (a: dout, b: in)
                const float x = p.b.v[i];
                const float cdf = 0.5 * (1.0 + erf_(x * 0.70710678));
                r = p.a.v[i] * (cdf + x * 0.39894228 * exp(-0.5 * x * x));
                break;
            }
            case 9u: r = p.a.v[i] * p.value; break;                       // scale (a may be out_)
            case 10u: r = p.a.v[i] + p.b.v[i % p.cols]; break;            // add bias (a: y, b: bias)
            default: r = p.a.v[i] + p.b.v[i] > 0.0 ? 1.0 : 0.0; break;    // mask or (6)
        }
        p.out_.v[i] = r;
    }
}
