// Per-row kernels, one invocation per row: softmax's backward, LayerNorm's input gradient,
// cross-entropy's per-row loss and its logit gradient, the label-smoothed loss and its gradient.
// The op is a push constant (vk_backend.cpp's Rows).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats out_;
    uint64_t a, b, c, d, e;  // inputs, by op
    uint rows, cols;
    uint op;
    int ival;
    float value;
    uint per_subgroup;  // rows_subgroup.comp's; unused here
    float q_target, scale;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

void main() {
    p = args.v;
    const uint r = gl_GlobalInvocationID.x;
    if (r >= p.rows) return;
    const uint base = r * p.cols;
    if (p.op == 0u) {  // softmax backward: din = y (dy - sum(dy y)); a: dout, b: out
        float s = 0.0;
        for (uint c = 0; c < p.cols; ++c) s += Floats(p.a).v[base + c] * Floats(p.b).v[base + c];
        for (uint c = 0; c < p.cols; ++c)
            p.out_.v[base + c] = Floats(p.b).v[base + c] * (Floats(p.a).v[base + c] - s);
    } else if (p.op == 1u) {  // LayerNorm: din = rstd (g - mean(g) - xhat mean(g xhat)); a: dout, b: in, c: mean, d: rstd, e: gamma or 0
        const float m = Floats(p.c).v[r], rs = Floats(p.d).v[r];
        float sg = 0.0, sgx = 0.0;
        for (uint c = 0; c < p.cols; ++c) {
            const float xhat = (Floats(p.b).v[base + c] - m) * rs;
            const float g = p.e != 0ul ? Floats(p.a).v[base + c] * Floats(p.e).v[c] : Floats(p.a).v[base + c];
            sg += g;
            sgx += g * xhat;
        }
        const float mg = sg / float(p.cols), mgx = sgx / float(p.cols);
        for (uint c = 0; c < p.cols; ++c) {
            const float xhat = (Floats(p.b).v[base + c] - m) * rs;
            const float g = p.e != 0ul ? Floats(p.a).v[base + c] * Floats(p.e).v[c] : Floats(p.a).v[base + c];
            p.out_.v[base + c] = rs * (g - mg - xhat * mgx);
        }
    } else if (p.op == 3u) {  // cross-entropy forward: losses (rows) = -log probs[target], 0 where ignored
        const int t = Ints(p.b).v[r];
        // token_loss's clamp: below the smallest normal float (which a GPU may flush to 0) the loss
        // of the clamp, `value`, computed by the CPU's code
        const float q = Floats(p.a).v[base + uint(t)];
        p.out_.v[r] = t == p.ival ? 0.0 : (q >= 1.17549435e-38 ? -log(q) : p.value);
    } else if (p.op == 4u) {  // label-smoothed cross-entropy: losses (rows); a: logits, b: targets, value/q_target: q
        // losses[r] = Σ_c q_c (log s + (max - x_c)), s = Σ exp(x - max) (the CPU's formula, in float);
        // three passes over the row, so lavapipe's 65535 iterations allow rows of up to 21845.
        const int t = Ints(p.b).v[r];
        if (t == p.ival) {
            p.out_.v[r] = 0.0;
            return;
        }
        float m = uintBitsToFloat(0xff800000u);  // -inf
        for (uint c = 0; c < p.cols; ++c) m = max(m, Floats(p.a).v[base + c]);
        float s = 0.0;
        for (uint c = 0; c < p.cols; ++c) s += exp(Floats(p.a).v[base + c] - m);
        const float log_s = log(s);
        float acc = 0.0;
        for (uint c = 0; c < p.cols; ++c) {
            const float q = c == uint(t) ? p.q_target : p.value;
            if (q != 0.0) acc += q * (log_s + (m - Floats(p.a).v[base + c]));  // eps 0: a -inf logit adds 0
        }
        p.out_.v[r] = acc;
    } else if (p.op == 5u) {  // its gradient: dlogits = (probs - q) * scale, 0 for ignored rows; a: probs, b: targets
        const int t = Ints(p.b).v[r];
        for (uint c = 0; c < p.cols; ++c) {
            precise float d = (Floats(p.a).v[base + c] - (c == uint(t) ? p.q_target : p.value)) * p.scale;
            p.out_.v[base + c] = t == p.ival ? 0.0 : d;
        }
    } else {  // cross-entropy: dlogits = (probs - onehot) / counted, 0 for ignored rows; a: probs, b: targets, c: counted
        const int t = Ints(p.b).v[r];
        if (t == p.ival) {
            for (uint c = 0; c < p.cols; ++c) p.out_.v[base + c] = 0.0;
            return;
        }
        // c: the count, made by reduce.comp beforehand (a loop over every row here would be O(rows²),
        // and lavapipe ends any invocation's loops after 65535 iterations).
        const uint counted = uint(Floats(p.c).v[0]);
        const float scale = 1.0 / float(counted);
        for (uint c = 0; c < p.cols; ++c) p.out_.v[base + c] = Floats(p.a).v[base + c] * scale;
        p.out_.v[base + uint(t)] -= scale;
    }
}
