// Optimizer updates, one invocation per element, in the CPU's arithmetic (torch.optim's single-
// tensor order; `precise`: no fused multiply-adds the CPU does not make; AdamW's fma() where
// torch's CPU kernels fuse, as cpu_adamw.cpp). The updated weight goes
// to out_ (the weight itself, or the Trainer's second buffer); when apply_if points at a 0, the
// update writes nothing at all (WeightUpdate::apply_if).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

// The arguments: a record in the backend's argument buffer, whose address is the one push
// constant (a recorded command buffer is replayed with new arguments written there).
struct Args {
    Floats param;
    Floats out_;
    Floats buf1;
    uint64_t buf2;
    Floats grad;
    uint64_t apply_if;
    uint n, kind;  // 0 SGD, 1 Adam, 2 AdamW
    float lr, momentum;  // SGD
    // Adam, AdamW (the host computes the last two as the CPU does; AdamW's step_size is negative)
    float beta1, beta2, eps, step_size, bc2_sqrt;
    float decay, one_minus_beta1, one_minus_beta2;  // AdamW: 1 - lr * weight_decay, 1 - beta rounded from double
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ArgsRef { Args v; };
layout(push_constant) uniform Push { ArgsRef args; };
Args p;  // read once, at the start of main()

void main() {
    p = args.v;
    if (p.apply_if != 0ul && Floats(p.apply_if).v[0] == 0.0) return;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
        const float g = p.grad.v[i];
        if (p.kind == 0u) {
            precise float b = p.momentum * p.buf1.v[i] + g;
            p.buf1.v[i] = b;
            precise float w = p.param.v[i] - p.lr * b;
            p.out_.v[i] = w;
        } else if (p.kind == 1u) {
            precise float m = p.buf1.v[i] + (g - p.buf1.v[i]) * (1.0 - p.beta1);
            precise float v = Floats(p.buf2).v[i] * p.beta2 + (1.0 - p.beta2) * g * g;
            p.buf1.v[i] = m;
            Floats(p.buf2).v[i] = v;
            precise float denom = sqrt(v) / p.bc2_sqrt + p.eps;
            precise float w = p.param.v[i] - p.step_size * (m / denom);
            p.out_.v[i] = w;
        } else {
            // torch 1.13's AdamW: param.mul_(decay); exp_avg.mul_(b1).add_(g, alpha=1-b1);
            // exp_avg_sq.mul_(b2).addcmul_(g, g, value=1-b2); param.addcdiv_(exp_avg, denom, value=-step_size)
            precise float w0 = p.param.v[i] * p.decay;
            precise float m = fma(g, p.one_minus_beta1, p.buf1.v[i] * p.beta1);
            precise float v = fma(p.one_minus_beta2 * g, g, Floats(p.buf2).v[i] * p.beta2);
            p.buf1.v[i] = m;
            Floats(p.buf2).v[i] = v;
            precise float denom = sqrt(v) / p.bc2_sqrt + p.eps;
            precise float w = w0 + (p.step_size * m) / denom;
            p.out_.v[i] = w;
        }
    }
}
