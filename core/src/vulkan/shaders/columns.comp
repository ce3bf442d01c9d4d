// Per-column sums over rows, one invocation per column, accumulated into the output: LayerNorm's
// dgamma and dbeta, a linear layer's dbias, and the embedding table's gradient (a scatter-add
// without atomics: each table entry sums the rows whose id is its own, so the result does not
// depend on timing).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out1;
    uint64_t out2, a, b, c, d;
    uint rows, cols, n;
    uint op;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

void main() {
    p = args.v;
    const uint i = gl_GlobalInvocationID.x;
    if (i >= p.n) return;
    if (p.op == 0u) {  // LayerNorm: dgamma[c] += sum dy xhat, dbeta[c] += sum dy; a: dout, b: in, c: mean, d: rstd
        // Added row by row into the running value, in the CPU's order (the same rounding). out2
        // (dbeta) is 0 for a LayerNorm without beta (nanoGPT's bias=False).
        const bool shifted = p.out2 != 0ul;
        float sg = p.out1.v[i], sb = shifted ? Floats(p.out2).v[i] : 0.0;
        for (uint r = 0; r < p.rows; ++r) {
            const float dy = Floats(p.a).v[r * p.cols + i];
            sg += dy * ((Floats(p.b).v[r * p.cols + i] - Floats(p.c).v[r]) * Floats(p.d).v[r]);
            sb += dy;
        }
        p.out1.v[i] = sg;
        if (shifted) Floats(p.out2).v[i] = sb;
    } else if (p.op == 2u) {  // linear bias: dbias[c] += sum dy[r, c], rows added in order as above; a: dy
        float s = p.out1.v[i];
        for (uint r = 0; r < p.rows; ++r) s += Floats(p.a).v[r * p.cols + i];
        p.out1.v[i] = s;
    } else {  // embedding: dtable[v, k] += sum over rows with ids == v of dout[row, k]; a: dout, b: ids; cols = D
        const uint v = i / p.cols, k = i % p.cols;
        float s = p.out1.v[i];
        for (uint r = 0; r < p.rows; ++r)
            if (uint(Ints(p.b).v[r]) == v) s += Floats(p.a).v[r * p.cols + k];
        p.out1.v[i] = s;
    }
}
