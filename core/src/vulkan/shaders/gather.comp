// The kernels that move or pick values, one invocation per output element: embedding lookup,
// head split and merge, positional add (with dropout's kept mask), mask fill, and the pad and
// subsequence masks, and mask fill's backward. The op is a push constant (vk_backend.cpp's Gather).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    uint64_t a, b, c;  // inputs, by op
    uint d0, d1, d2, d3;
    uint n, op;
    float value;
    int ival;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

float gather(uint i) {
    switch (p.op) {
        case 0u: {  // embedding: out (N, D) = table[ids]; a: ids, b: table; d0 = D
            const uint n = i / p.d0, d = i % p.d0;
            return Floats(p.b).v[uint(Ints(p.a).v[n]) * p.d0 + d];
        }
        case 1u: {  // split heads: out (B, H, L, d) from a (B, L, H*d); d0..d3 = B, L, H, d
            const uint k = i % p.d3, l = (i / p.d3) % p.d1, h = (i / (p.d3 * p.d1)) % p.d2,
                       bb = i / (p.d3 * p.d1 * p.d2);
            return Floats(p.a).v[((bb * p.d1 + l) * p.d2 + h) * p.d3 + k];
        }
        case 2u: {  // merge heads: out (B, L, H*d) from a (B, H, L, d)
            const uint k = i % p.d3, h = (i / p.d3) % p.d2, l = (i / (p.d3 * p.d2)) % p.d1,
                       bb = i / (p.d3 * p.d2 * p.d1);
            return Floats(p.a).v[((bb * p.d2 + h) * p.d1 + l) * p.d3 + k];
        }
        case 3u: {  // positional: out (B, L, D) = (a + pe[l]) * keep; b: pe, c: keep or 0; d0 = L, d1 = D
            const uint d = i % p.d1, l = (i / p.d1) % p.d0;
            const float v = Floats(p.a).v[i] + Floats(p.b).v[l * p.d1 + d];
            return p.c != 0ul ? v * Floats(p.c).v[i] : v;
        }
        case 4u: {  // mask fill: out (B, H, Lq, Lk) = mask (B, Lq, Lk) != 0 ? value : a; b: mask; d0..d3 = B, H, Lq, Lk
            const uint k = i % p.d3, q = (i / p.d3) % p.d2, bb = i / (p.d3 * p.d2 * p.d1);
            return Floats(p.b).v[(bb * p.d2 + q) * p.d3 + k] != 0.0 ? p.value : Floats(p.a).v[i];
        }
        case 7u: {  // mask fill backward: out = mask != 0 ? 0 : a; as case 4
            const uint k = i % p.d3, q = (i / p.d3) % p.d2, bb = i / (p.d3 * p.d2 * p.d1);
            return Floats(p.b).v[(bb * p.d2 + q) * p.d3 + k] != 0.0 ? 0.0 : Floats(p.a).v[i];
        }
        case 5u: {  // pad mask: out (B, Lq, Lk) = ids_k (B, Lk) == pad; a: ids; d0..d2 = B, Lq, Lk
            const uint k = i % p.d2, bb = i / (p.d2 * p.d1);
            return Ints(p.a).v[bb * p.d2 + k] == p.ival ? 1.0 : 0.0;
        }
        default: {  // subsequence mask: out (B, T, T) = key after query; d0 = T
            const uint k = i % p.d0, q = (i / p.d0) % p.d0;
            return k > q ? 1.0 : 0.0;
        }
    }
}

void main() {
    p = args.v;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) p.out_.v[i] = gather(i);
}
