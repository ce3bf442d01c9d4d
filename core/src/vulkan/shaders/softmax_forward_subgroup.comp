// Softmax over the last axis of (rows, cols), max-subtracted as the CPU, rows shared out to teams:
// a team is the whole workgroup (per_subgroup 0: wide rows, its 128 invocations split the columns)
// or one subgroup (per_subgroup 1: short rows, a workgroup takes several). A team strides over the
// rows, so any dispatch size is correct. Reductions: subgroupMax/subgroupAdd inside a subgroup,
// then shared memory across the workgroup's subgroups. Nothing assumes a subgroup size: lanes are
// counted with subgroupAdd, not taken from gl_SubgroupSize (a subgroup need not be full).
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
    Floats in_;
    uint rows, cols;
    uint per_subgroup;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

// One slot per subgroup; a subgroup has at least one invocation, so 128 always suffice.
shared float partial[128];

// The team's max and sum. Called by every invocation of the team (for a workgroup team that is
// uniform control flow: the barriers need it).
float team_max(float v, bool per_subgroup) {
    v = subgroupMax(v);
    if (per_subgroup) return v;
    if (subgroupElect()) partial[gl_SubgroupID] = v;
    barrier();
    float m = partial[0];
    for (uint i = 1; i < gl_NumSubgroups; ++i) m = max(m, partial[i]);
    barrier();  // partial is written again by the next reduction
    return m;
}
float team_sum(float v, bool per_subgroup) {
    v = subgroupAdd(v);
    if (per_subgroup) return v;
    if (subgroupElect()) partial[gl_SubgroupID] = v;
    barrier();
    float s = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) s += partial[i];
    barrier();
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
    for (uint r = team; r < p.rows; r += teams) {
        const uint base = r * p.cols;
        // -inf for a lane without columns: it changes no max. A row of -inf gives -inf here and
        // NaN below (-inf - -inf), as the CPU's; a NaN anywhere makes the whole row NaN, as there.
        float m = uintBitsToFloat(0xff800000u);
        for (uint c = lane; c < p.cols; c += lanes) m = max(m, p.in_.v[base + c]);
        m = team_max(m, per_subgroup);
        float s = 0.0;
        for (uint c = lane; c < p.cols; c += lanes) {
            const float e = exp(p.in_.v[base + c] - m);
            p.out_.v[base + c] = e;
            s += e;
        }
        const float inv = 1.0 / team_sum(s, per_subgroup);
        // the columns this invocation wrote itself: no barrier needed to read them back
        for (uint c = lane; c < p.cols; c += lanes) p.out_.v[base + c] *= inv;
    }
}
