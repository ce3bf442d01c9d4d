// Optimizer updates, one invocation per element, in the CPU's arithmetic (torch.optim's single-
// tensor order; `precise`: no fused multiply-adds the CPU does not make). The updated weight goes
// to out_ (the weight itself, or the Trainer's second buffer); when apply_if points at a 0, the
// update writes nothing at all (WeightUpdate::apply_if).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };

layout(push_constant) uniform Args {
    Floats param;
    Floats out_;
    Floats buf1;
    uint64_t buf2;
    Floats grad;
    uint64_t apply_if;
    uint n, adam;
    float lr, momentum;  // SGD
    float beta1, beta2, eps, step_size, bc2_sqrt;  // Adam (vk_backend.cpp computes the last two as the CPU does)
} p;

void main() {
    if (p.apply_if != 0ul && Floats(p.apply_if).v[0] == 0.0) return;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
        const float g = p.grad.v[i];
        if (p.adam == 0u) {
            precise float b = p.momentum * p.buf1.v[i] + g;
            p.buf1.v[i] = b;
            precise float w = p.param.v[i] - p.lr * b;
            p.out_.v[i] = w;
        } else {
            precise float m = p.buf1.v[i] + (g - p.buf1.v[i]) * (1.0 - p.beta1);
            precise float v = Floats(p.buf2).v[i] * p.beta2 + (1.0 - p.beta2) * g * g;
            p.buf1.v[i] = m;
            Floats(p.buf2).v[i] = v;
            precise float denom = sqrt(v) / p.bc2_sqrt + p.eps;
            precise float w = p.param.v[i] - p.step_size * (m / denom);
            p.out_.v[i] = w;
        }
    }
}
