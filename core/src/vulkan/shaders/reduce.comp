// Reductions to one value, one workgroup: the sum of squares of x (compensated, so that float
// gives what the CPU's double sum gives to about 1e-7) into a scalar slot the backend reads after
// the queue, whether every x is finite (all_finite's flag), or how many of x's ints are not ival
// (the loss's counted rows, exact as a float up to 2^24).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    Floats x;
    uint n, op;  // 0: sum of squares, 1: all finite, 2: count of ints != ival
    int ival;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

shared float partial[256];

void main() {
    p = args.v;
    const uint t = gl_LocalInvocationID.x;
    float s = 0.0, c = 0.0;  // Kahan
    bool finite = true;
    for (uint i = t; i < p.n; i += 256u) {
        const float v = p.x.v[i];
        if (p.op == 0u) {
            precise float y = v * v - c;
            precise float u = s + y;
            c = (u - s) - y;
            s = u;
        } else if (p.op == 2u) {
            s += floatBitsToInt(v) != p.ival ? 1.0 : 0.0;
        } else if (isnan(v) || isinf(v)) {
            finite = false;
        }
    }
    const bool sums = p.op != 1u;
    partial[t] = sums ? s : (finite ? 1.0 : 0.0);
    barrier();
    for (uint half_ = 128u; half_ > 0u; half_ >>= 1) {
        if (t < half_) partial[t] = sums ? partial[t] + partial[t + half_] : min(partial[t], partial[t + half_]);
        barrier();
    }
    if (t == 0u) p.out_.v[0] = partial[0];
}
