// Dropout's kept mask from Philox4x32-10, the lines of core/src/philox.h: block j of the stream
// (seed, offset) is Philox of the counter (j, offset) under the key seed, element i is word i % 4
// of block i / 4, kept (as `scale`) unless its top 24 bits as a float in [0, 1) are below p. One
// invocation per block; the same bits as the CPU's.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats keep;
    uint64_t seed, offset;
    uint n;
    float p, scale;  // scale = 1 / (1 - p), computed by the CPU
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

uvec4 philox(uvec4 ctr, uvec2 key) {
    const uint M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        uint hi0, lo0, hi1, lo1;
        umulExtended(M0, ctr.x, hi0, lo0);
        umulExtended(M1, ctr.z, hi1, lo1);
        ctr = uvec4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
        key += uvec2(W0, W1);
    }
    return ctr;
}

void main() {
    p = args.v;
    const uint blocks = (p.n + 3u) / 4u;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint j = gl_GlobalInvocationID.x; j < blocks; j += stride) {
        const uvec4 r = philox(uvec4(j, 0u, uint(p.offset), uint(p.offset >> 32)),
                               uvec2(uint(p.seed), uint(p.seed >> 32)));
        for (uint w = 0u; w < 4u; ++w) {
            const uint i = j * 4u + w;
            if (i < p.n) p.keep.v[i] = float(r[w] >> 8) * (1.0 / 16777216.0) < p.p ? 0.0 : p.scale;
        }
    }
}
