// rows.comp's kernels that reduce along a row, rows shared out to teams: softmax's backward,
// LayerNorm's input gradient, cross-entropy's logit gradient (its per-row loss reads one value a
// row and stays in rows.comp), the label-smoothed loss (a max and two sums a row) and its
// gradient. A team is the whole workgroup (per_subgroup 0: wide rows, its 128 invocations split
// the columns) or one subgroup (per_subgroup 1: short rows, a workgroup takes several); a team
// strides over the rows, so any dispatch size is correct. Reductions: subgroupAdd (subgroupMax)
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

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    uint64_t a, b, c, d, e;  // inputs, by op (as rows.comp)
    uint rows, cols;
    uint op;
    int ival;
    float value;
    uint per_subgroup;
    float q_target, scale;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

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

// The same for a maximum (lanes without a value pass -inf).
float team_max(float v, bool per_subgroup) {
    v = subgroupMax(v);
    if (per_subgroup) return v;
    if (subgroupElect()) partial[gl_SubgroupID] = vec2(v, 0.0);
    barrier();
    float m = partial[0].x;
    for (uint i = 1; i < gl_NumSubgroups; ++i) m = max(m, partial[i].x);
    barrier();
    return m;
}

void main() {
    p = args.v;
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
    } else if (p.op == 4u) {  // label-smoothed cross-entropy: losses (rows); a: logits, b: targets, value/q_target: q
        // losses[r] = Σ_c q_c (log s + (max - x_c)), s = Σ exp(x - max), as rows.comp (sums in float)
        for (uint r = team; r < p.rows; r += teams) {
            const int t = Ints(p.b).v[r];
            if (t == p.ival) {  // the same for the whole team: no barrier is skipped by part of it
                if (lane == 0u) p.out_.v[r] = 0.0;
                continue;
            }
            const uint base = r * p.cols;
            float m = uintBitsToFloat(0xff800000u);  // -inf
            for (uint c = lane; c < p.cols; c += lanes) m = max(m, Floats(p.a).v[base + c]);
            m = team_max(m, per_subgroup);
            float s = 0.0;
            for (uint c = lane; c < p.cols; c += lanes) s += exp(Floats(p.a).v[base + c] - m);
            const float log_s = log(team_sum(vec2(s, 0.0), per_subgroup).x);
            float acc = 0.0;
            for (uint c = lane; c < p.cols; c += lanes) {
                const float q = c == uint(t) ? p.q_target : p.value;
                if (q != 0.0) acc += q * (log_s + (m - Floats(p.a).v[base + c]));  // eps 0: a -inf logit adds 0
            }
            acc = team_sum(vec2(acc, 0.0), per_subgroup).x;
            if (lane == 0u) p.out_.v[r] = acc;
        }
    } else if (p.op == 5u) {  // its gradient: dlogits = (probs - q) * scale, 0 for ignored rows; a: probs, b: targets
        for (uint r = team; r < p.rows; r += teams) {
            const uint base = r * p.cols;
            const int t = Ints(p.b).v[r];
            for (uint c = lane; c < p.cols; c += lanes) {
                precise float d = (Floats(p.a).v[base + c] - (c == uint(t) ? p.q_target : p.value)) * p.scale;
                p.out_.v[base + c] = t == p.ival ? 0.0 : d;
            }
        }
    }
}
