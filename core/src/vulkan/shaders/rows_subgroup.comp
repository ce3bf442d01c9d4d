// rows.comp's kernels that reduce along a row, rows shared out to teams: softmax's backward,
// LayerNorm's input gradient, cross-entropy's logit gradient (its per-row loss reads one value a
// row and stays in rows.comp). A team is the whole workgroup (per_subgroup 0: wide rows, its 128
// invocations split the columns) or one subgroup (per_subgroup 1: short rows, a workgroup takes
// several); a team strides over the rows, so any dispatch size is correct. Reductions: subgroupAdd
// inside a subgroup, then shared memory across the workgroup's subgroups. Nothing assumes a
// subgroup size: lanes are counted with subgroupAdd (a subgroup need not be full).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 128) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int v[]; };

layout(push_constant) uniform Args {
    Floats out_;
    uint64_t a, b, c, d, e;  // inputs, by op (as rows.comp)
    uint rows, cols;
    uint op;
    int ival;
    float value;
    uint per_subgroup;
} p;

// One slot per subgroup; a subgroup has at least one invocation, so 128 always suffice.
shared vec2 partial[128];

// Called by every invocation of the team (for a workgroup team, uniform control flow). Two sums
// at once: LayerNorm's backward needs both of its sums over the same pass.
vec2 team_sum(vec2 v, bool per_subgroup) {
    v = subgroupAdd(v);
    if (per_subgroup) return v;
    if (subgroupElect()) partial[gl_SubgroupID] = v;
    barrier();
    vec2 s = vec2(0.0);
    for (uint i = 0; i < gl_NumSubgroups; ++i) s += partial[i];
    barrier();  // partial is written again by the next reduction
    return s;
}

void main() {
    const bool per_subgroup = p.per_subgroup != 0u;
    uint lane, lanes, team, teams;
    if (per_subgroup) {
        lanes = subgroupAdd(1u);
        lane = subgroupExclusiveAdd(1u);
        team = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
        teams = gl_NumWorkGroups.x * gl_NumSubgroups;
    } else {
        lanes = gl_WorkGroupSize.x;
        lane = gl_LocalInvocationIndex;
        team = gl_WorkGroupID.x;
        teams = gl_NumWorkGroups.x;
    }
    if (team >= p.rows) return;  // the whole team leaves: no barrier is left waiting

    if (p.op == 0u) {  // softmax backward: din = y (dy - sum(dy y)); a: dout, b: out
        for (uint r = team; r < p.rows; r += teams) {
            const uint base = r * p.cols;
            float s = 0.0;
            for (uint c = lane; c < p.cols; c += lanes) s += Floats(p.a).v[base + c] * Floats(p.b).v[base + c];
            s = team_sum(vec2(s, 0.0), per_subgroup).x;
            for (uint c = lane; c < p.cols; c += lanes)
                p.out_.v[base + c] = Floats(p.b).v[base + c] * (Floats(p.a).v[base + c] - s);
        }
    } else if (p.op == 1u) {  // LayerNorm: din = rstd (g - mean(g) - xhat mean(g xhat)); a: dout, b: in, c: mean, d: rstd, e: gamma or 0
        const bool affine = p.e != 0ul;
        for (uint r = team; r < p.rows; r += teams) {
            const uint base = r * p.cols;
            const float m = Floats(p.c).v[r], rs = Floats(p.d).v[r];
            vec2 s = vec2(0.0);  // sum g, sum g xhat
            for (uint c = lane; c < p.cols; c += lanes) {
                const float xhat = (Floats(p.b).v[base + c] - m) * rs;
                const float g = affine ? Floats(p.a).v[base + c] * Floats(p.e).v[c] : Floats(p.a).v[base + c];
                s += vec2(g, g * xhat);
            }
            s = team_sum(s, per_subgroup);
            const float mg = s.x / float(p.cols), mgx = s.y / float(p.cols);
            for (uint c = lane; c < p.cols; c += lanes) {
                const float xhat = (Floats(p.b).v[base + c] - m) * rs;
                const float g = affine ? Floats(p.a).v[base + c] * Floats(p.e).v[c] : Floats(p.a).v[base + c];
                p.out_.v[base + c] = rs * (g - mg - xhat * mgx);
            }
        }
    } else if (p.op == 2u) {  // cross-entropy: dlogits = (probs - onehot) / counted, 0 for ignored rows; a: probs, b: targets
        // The count over every row, once per team (rows.comp counted it once per row).
        // c: the count, made by reduce.comp beforehand (see rows.comp).
        const uint counted = uint(Floats(p.c).v[0]);
        const float scale = 1.0 / float(counted);
        for (uint r = team; r < p.rows; r += teams) {
            const uint base = r * p.cols;
            const int t = Ints(p.b).v[r];
            if (t == p.ival) {
                for (uint c = lane; c < p.cols; c += lanes) p.out_.v[base + c] = 0.0;
                continue;
            }
            // p * scale, then minus scale at the target, rounded twice as the CPU's d[t] -= scale
            for (uint c = lane; c < p.cols; c += lanes) {
                precise float d = Floats(p.a).v[base + c] * scale;
                if (c == uint(t)) d -= scale;
                p.out_.v[base + c] = d;
            }
        }
    }
}
