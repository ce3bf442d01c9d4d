// LayerNorm over the last axis of (rows, cols), rows shared out to teams: a team is the whole
// workgroup (per_subgroup 0: wide rows, its 128 invocations split the columns) or one subgroup
// (per_subgroup 1: short rows, a workgroup takes several). A team strides over the rows, so any
// dispatch size is correct. Mean, then the biased variance about it (two passes, as the CPU),
// each a subgroupAdd inside a subgroup and shared memory across the workgroup's subgroups; rstd
// saved for the backward; gamma and beta optional (0: the tutorial's fixed LayerNorm), or beta
// alone 0 (nanoGPT's LayerNorm(bias=False): y = xhat * gamma). Nothing
// assumes a subgroup size: lanes are counted with subgroupAdd (a subgroup need not be full).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 128) in;
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
    uint per_subgroup;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

// One slot per subgroup; a subgroup has at least one invocation, so 128 always suffice.
shared float partial[128];

// Called by every invocation of the team (for a workgroup team, uniform control flow).
float team_sum(float v, bool per_subgroup) {
    v = subgroupAdd(v);
    if (per_subgroup) return v;
    if (subgroupElect()) partial[gl_SubgroupID] = v;
    barrier();
    float s = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) s += partial[i];
    barrier();  // partial is written again by the next reduction
    return s;
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
    const bool scaled = p.gamma != 0ul, shifted = p.beta != 0ul;
    for (uint r = team; r < p.rows; r += teams) {
        const uint base = r * p.cols;
        float s = 0.0;
        for (uint c = lane; c < p.cols; c += lanes) s += p.in_.v[base + c];
        const float m = team_sum(s, per_subgroup) / float(p.cols);
        float v = 0.0;
        for (uint c = lane; c < p.cols; c += lanes) {
            const float t = p.in_.v[base + c] - m;
            v += t * t;
        }
        const float rs = 1.0 / sqrt(team_sum(v, per_subgroup) / float(p.cols) + p.eps);
        for (uint c = lane; c < p.cols; c += lanes) {
            float y = (p.in_.v[base + c] - m) * rs;
            if (scaled) y = y * Floats(p.gamma).v[c];
            if (shifted) y += Floats(p.beta).v[c];
            p.out_.v[base + c] = y;
        }
        if (lane == 0u) {
            p.mean.v[r] = m;
            p.rstd.v[r] = rs;
        }
    }
}
