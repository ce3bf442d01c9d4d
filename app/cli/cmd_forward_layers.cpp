// `stepformer-cli forward --src-input x.npy` on seed 004's layer lab: nn.TransformerEncoderLayer
// (and optionally nn.TransformerDecoderLayer) fed tensors, with the masks under the argument
// names of their forward(), and the output printed as print(out) prints it in PyTorch.
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>

#include "cli_common.h"
#include "cmd_forward.h"
#include "stepformer/safetensors.h"
#include "tensor_input.h"

namespace cli {

namespace {

using namespace stepformer;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

[[noreturn]] void usage(const std::string& msg) { throw ConfigError(msg); }

const char* py_bool(bool b) { return b ? "True" : "False"; }

// A float as Python prints it: 0.0, 0.1, 1e-05.
std::string py_float(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    std::string s = buf;
    return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
}

// PyTorch's layout from the trace's batch-first one.
Tensor pytorch_layout(const Config& c, const Tensor& batch_first) {
    return c.batch_first || batch_first.rank() != 3 ? batch_first : swap_leading_axes(batch_first);
}

const char* layout_axes(const Config& c) {
    return c.batch_first ? "(batch, length, d_model)" : "(length, batch, d_model)";
}

// As print(t) shows a tensor in PyTorch: 4 decimals, one width, nested brackets, a blank line
// between the slices of a 3-D tensor.
std::string torch_repr(const Tensor& t) {
    std::vector<std::string> cells(t.data.size());
    size_t w = 0;
    for (size_t i = 0; i < cells.size(); ++i) {
        const float v = t.data[i];
        char buf[48];
        if (std::isnan(v)) std::snprintf(buf, sizeof buf, "nan");
        else if (std::isinf(v)) std::snprintf(buf, sizeof buf, v < 0 ? "-inf" : "inf");
        else std::snprintf(buf, sizeof buf, "%.4f", double(v));
        cells[i] = buf;
        w = std::max(w, cells[i].size());
    }
    const auto cell = [&](size_t i) { return std::string(w - cells[i].size(), ' ') + cells[i]; };
    const std::string head = "tensor(";
    if (t.rank() == 0) return head + (cells.empty() ? "" : cells[0]) + ")";
    // The slice at `dim` starting at element `at`, its '[' in column `col`.
    std::function<std::string(int, size_t, size_t)> slice = [&](int dim, size_t at, size_t col) {
        const int64_t n = t.dim(dim);
        std::string s = "[";
        if (dim == t.rank() - 1) {
            for (int64_t i = 0; i < n; ++i) s += (i ? ", " : "") + cell(at + size_t(i));
            return s + "]";
        }
        const size_t stride = size_t(numel(Shape(t.shape.begin() + dim + 1, t.shape.end())));
        const std::string sep = "," + std::string(size_t(t.rank() - dim - 1), '\n') + std::string(col + 1, ' ');
        for (int64_t i = 0; i < n; ++i) s += (i ? sep : "") + slice(dim + 1, at + size_t(i) * stride, col + 1);
        return s + "]";
    };
    return head + slice(0, 0, head.size()) + ")";
}

void check_finite(const Tensor& t, const std::string& what, bool allow_neg_inf = false) {
    for (size_t i = 0; i < t.data.size(); ++i) {
        const float v = t.data[i];
        if (std::isnan(v) || (std::isinf(v) && !(allow_neg_inf && v < 0)))
            usage(what + " contains " + (std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf") + " (element " +
                  std::to_string(i) + ")" + (allow_neg_inf ? "; an additive mask holds finite numbers and -inf" : ""));
    }
}

// The file behind an option; its errors name the option.
InputTensor read_option(const std::string& spec, const std::string& flag) {
    try {
        return read_input_tensor(spec);
    } catch (const std::exception& e) {
        usage(flag + " " + e.what());
    }
}

// --src-input / --tgt-input / --dout: float numbers in PyTorch's layout.
Tensor read_layer_tensor(const std::string& spec, const std::string& flag, const Config& c) {
    const InputTensor in = read_option(spec, flag);
    const std::string what = flag + " " + spec;
    if (in.value.rank() != 3 || in.value.dim(2) != c.d_model)
        usage(what + " has shape " + shape_to_string(in.value.shape) + "; the layer takes " +
              (c.batch_first ? "[batch, length, d_model]" : "[length, batch, d_model]") + " with d_model = " +
              std::to_string(c.d_model) + (c.batch_first ? " (\"batch_first\": true)" : " (\"batch_first\": false)"));
    check_finite(in.value, what);
    return in.value;
}

// An attn_mask as PyTorch takes it: float, added to the scores; bool (or uint8) True = masked,
// which arrives as -inf; "causal" = nn.Transformer.generate_square_subsequent_mask.
Tensor read_attn_mask(const std::string& spec, const std::string& flag, int Lq, int Lk, const char* dims) {
    const std::string need = "[" + std::to_string(Lq) + ", " + std::to_string(Lk) + "] (" + dims + ")";
    if (spec == "causal") {
        if (Lq != Lk) usage(flag + " causal needs a square mask; this one is " + need);
        Tensor m({Lq, Lk});
        for (int q = 0; q < Lq; ++q)
            for (int k = q + 1; k < Lk; ++k) m.data[size_t(q) * Lk + k] = kNegInf;
        return m;
    }
    InputTensor in = read_option(spec, flag);
    const std::string what = flag + " " + spec;
    if (in.value.shape != Shape{Lq, Lk})
        usage(what + " has shape " + shape_to_string(in.value.shape) + "; the layer needs " + need);
    const bool byte = in.dtype == "|u1" || in.dtype == "U8";
    if (in.kind == StoredKind::Int && !byte)
        usage(what + " is " + in.dtype + "; an attn mask is float (added to the scores) or bool (True = masked), "
                     "as PyTorch takes it");
    if (in.kind == StoredKind::Float) {
        check_finite(in.value, what, true);
        return in.value;
    }
    for (float& v : in.value.data) v = v != 0.0f ? kNegInf : 0.0f;
    return in.value;
}

// A key_padding_mask: [batch, length], bool or int, 1 (True) = this key is padding, ignore it.
std::vector<int> read_padding_mask(const std::string& spec, const std::string& flag, int B, int L, const char* len) {
    const InputTensor in = read_option(spec, flag);
    const std::string what = flag + " " + spec;
    if (in.kind == StoredKind::Float)
        usage(what + " is float (" + in.dtype + "); a key padding mask is bool or int, 1 = ignore that key");
    if (in.value.shape != Shape{B, L})
        usage(what + " has shape " + shape_to_string(in.value.shape) + "; the layer needs [" + std::to_string(B) +
              ", " + std::to_string(L) + "] (batch, " + len + ")");
    std::vector<int> out;
    out.reserve(in.value.data.size());
    for (float v : in.value.data) out.push_back(v != 0.0f ? 1 : 0);
    return out;
}

void print_module(const char* cls, const Config& c) {
    std::printf("nn.%s(d_model=%d, nhead=%d, dim_feedforward=%d, dropout=%s, activation=%s, layer_norm_eps=%s, "
                "batch_first=%s, norm_first=%s)\n",
                cls, c.d_model, c.n_heads, c.d_ff, py_float(c.dropout).c_str(), c.activation.c_str(),
                py_float(c.layer_norm_eps).c_str(),
                py_bool(c.batch_first), py_bool(c.norm_first));
}

// The dump: every traced tensor (grad.<name> after a backward pass), the parameters' gradients.
void write_dump(const std::string& path, const Trace& trace, const Config& c, const ParamSet* grads) {
    if (!grads) {
        write_trace(path, trace, c);
        return;
    }
    std::vector<TensorToWrite> items;
    for (const auto& e : trace.entries()) items.push_back({e.name, &e.value, e.is_mask ? DType::U8 : DType::F32});
    for (size_t i = 0; i < grads->size(); ++i) items.push_back({"grad." + grads->name(i), &(*grads)[i], DType::F32});
    write_safetensors(path, items, {{"stepformer.config", config_to_json_text(c, -1)}});
}

}  // namespace

void LayerLabArgs::add_to(CLI::App& cmd) {
    cmd.add_option("--src-input", src,
                   "layer lab: the encoder layer's input, .npy or FILE.safetensors:NAME, [length, batch, d_model] "
                   "([batch, length, d_model] with batch_first)");
    cmd.add_option("--tgt-input", tgt, "layer lab: the decoder layer's input (its memory is the encoder layer's output)");
    cmd.add_option("--src-mask", src_mask,
                   "layer lab: attn_mask of the encoder layer [S, S]: float (added) or bool (True = masked), or causal");
    cmd.add_option("--tgt-mask", tgt_mask, "layer lab: the decoder's self-attention mask [T, T], or causal "
                                           "(generate_square_subsequent_mask)");
    cmd.add_option("--memory-mask", memory_mask, "layer lab: the cross-attention's mask [T, S]");
    cmd.add_option("--src-key-padding-mask", src_key_padding_mask,
                   "layer lab: [batch, S] bool or int, 1 = ignore that key");
    cmd.add_option("--tgt-key-padding-mask", tgt_key_padding_mask, "layer lab: [batch, T] bool or int, 1 = ignore");
    cmd.add_option("--memory-key-padding-mask", memory_key_padding_mask,
                   "layer lab: [batch, S] bool or int, 1 = ignore (for the cross-attention)");
    cmd.add_flag("--grad", grad, "layer lab: backward from the output too (grad.<name> in the dump, src.grad printed)");
    cmd.add_option("--dout", dout,
                   "layer lab: the gradient of the output to start from, in the output's layout (implies --grad; "
                   "default all ones, as output.sum().backward())");
    cmd.add_option("--show", show, "layer lab: also print this traced tensor (repeatable)");
}

std::string LayerLabArgs::first_given() const {
    const std::pair<const std::string*, const char*> opts[] = {
        {&src, "--src-input"},
        {&tgt, "--tgt-input"},
        {&src_mask, "--src-mask"},
        {&tgt_mask, "--tgt-mask"},
        {&memory_mask, "--memory-mask"},
        {&src_key_padding_mask, "--src-key-padding-mask"},
        {&tgt_key_padding_mask, "--tgt-key-padding-mask"},
        {&memory_key_padding_mask, "--memory-key-padding-mask"},
        {&dout, "--dout"},
    };
    for (const auto& [value, flag] : opts)
        if (!value->empty()) return flag;
    if (grad) return "--grad";
    if (!show.empty()) return "--show";
    return "";
}

int run_forward_layers(const LayerLabArgs& a, LoadedModel& lm, Backend* backend, const std::string& dump,
                       bool compare_cpu) {
    const Config& c = lm.config;
    const std::string shape_hint = c.batch_first ? "[batch, length, d_model]" : "[length, batch, d_model]";
    if (a.src.empty())
        usage("this model is the layer lab (\"structure\": \"layers\"): give the encoder layer's input as a tensor, "
              "--src-input x.npy, " + shape_hint + " with d_model = " + std::to_string(c.d_model));
    if (!c.decoder_layer) {
        const std::pair<const std::string*, const char*> decoder_only[] = {
            {&a.tgt, "--tgt-input"},
            {&a.tgt_mask, "--tgt-mask"},
            {&a.memory_mask, "--memory-mask"},
            {&a.tgt_key_padding_mask, "--tgt-key-padding-mask"},
            {&a.memory_key_padding_mask, "--memory-key-padding-mask"}};
        for (const auto& [value, flag] : decoder_only)
            if (!value->empty())
                usage(std::string(flag) + " was given, but this layer lab has no decoder layer (\"decoder_layer\": false)");
    } else if (a.tgt.empty()) {
        usage("this layer lab has a decoder layer (\"decoder_layer\": true): give its input too, --tgt-input y.npy, " +
              shape_hint);
    }
    const Tensor src = read_layer_tensor(a.src, "--src-input", c);
    const Tensor tgt = c.decoder_layer ? read_layer_tensor(a.tgt, "--tgt-input", c) : Tensor{};
    Batch batch = make_layer_batch(c, src, tgt);
    const int B = batch.B, S = batch.S, T = batch.T;
    if (!a.src_mask.empty()) batch.src_mask = read_attn_mask(a.src_mask, "--src-mask", S, S, "src length, src length");
    if (!a.src_key_padding_mask.empty())
        batch.src_key_padding_mask = read_padding_mask(a.src_key_padding_mask, "--src-key-padding-mask", B, S, "src length");
    if (c.decoder_layer) {
        if (!a.tgt_mask.empty()) batch.tgt_mask = read_attn_mask(a.tgt_mask, "--tgt-mask", T, T, "tgt length, tgt length");
        if (!a.memory_mask.empty())
            batch.memory_mask = read_attn_mask(a.memory_mask, "--memory-mask", T, S, "tgt length, src length");
        if (!a.tgt_key_padding_mask.empty())
            batch.tgt_key_padding_mask =
                read_padding_mask(a.tgt_key_padding_mask, "--tgt-key-padding-mask", B, T, "tgt length");
        if (!a.memory_key_padding_mask.empty())
            batch.memory_key_padding_mask =
                read_padding_mask(a.memory_key_padding_mask, "--memory-key-padding-mask", B, S, "src length");
    }

    const auto weights = std::make_shared<const ParamSet>(std::move(lm.params));
    const Transformer model(c, weights, backend);
    Trace trace;
    model.forward(batch, trace);
    if (trace.size() == 0) throw std::runtime_error("forward: the layer lab traced nothing");
    const TraceEntry& last = trace.entries().back();
    const std::string out_name = last.name;
    const Tensor output = pytorch_layout(c, last.value);
    const size_t n_forward = trace.size();

    const bool grad = a.grad || !a.dout.empty();
    ParamSet grads;
    Tensor dout_batch_first;
    if (grad) {
        Tensor dout(output.shape, 1.0f);
        if (!a.dout.empty()) {
            dout = read_layer_tensor(a.dout, "--dout", c);
            if (dout.shape != output.shape)
                usage("--dout " + a.dout + " has shape " + shape_to_string(dout.shape) + "; the output " + out_name +
                      " is " + shape_to_string(output.shape) + " " + layout_axes(c));
        }
        dout_batch_first = pytorch_layout(c, dout);
        model.backward_from_output(batch, trace, dout_batch_first, grads);
    }
    for (const std::string& name : a.show)
        if (!trace.find(name)) usage("--show " + name + ": no such traced tensor (forward without --show lists them)");

    if (compare_cpu) {
        const Transformer on_cpu(c, weights, &default_backend());
        Trace reference;
        on_cpu.forward(batch, reference);
        if (grad) {
            ParamSet g;
            on_cpu.backward_from_output(batch, reference, dout_batch_first, g);
        }
        if (!dump.empty()) write_dump(dump, trace, c, grad ? &grads : nullptr);
        return print_agreement(trace, reference, model.backend().describe());
    }

    std::printf("model: %s\n", lm.description.c_str());
    for (const auto& n : lm.notes) std::printf("note: %s\n", n.c_str());
    print_module("TransformerEncoderLayer", c);
    if (c.decoder_layer) print_module("TransformerDecoderLayer", c);
    std::printf("src: %s %s", shape_to_string(src.shape).c_str(), layout_axes(c));
    if (c.decoder_layer) std::printf(", tgt: %s", shape_to_string(tgt.shape).c_str());
    std::printf("\n%zu traced tensors (batch-first):\n", n_forward);
    for (size_t i = 0; i < n_forward; ++i) {
        const TraceEntry& e = trace.entries()[i];
        std::printf("  %-40s %s\n", e.name.c_str(), shape_to_string(e.value.shape).c_str());
    }
    for (const std::string& name : a.show) {
        const TraceEntry* e = trace.find(name);
        std::printf("\n%s %s:\n%s\n", name.c_str(), shape_to_string(e->value.shape).c_str(),
                    torch_repr(e->value).c_str());
    }
    std::printf("\noutput %s in PyTorch's layout %s %s:\n%s\n", out_name.c_str(), shape_to_string(output.shape).c_str(),
                layout_axes(c), torch_repr(output).c_str());
    if (grad) {
        std::printf("\n%s\n", a.dout.empty() ? "backward from all ones (output.sum().backward())"
                                             : ("backward from --dout " + a.dout).c_str());
        for (const char* input : {"src", "tgt"}) {
            const TraceEntry* g = trace.find(std::string("grad.") + input);
            if (!g) continue;
            std::printf("%s.grad %s:\n%s\n", input, shape_to_string(pytorch_layout(c, g->value).shape).c_str(),
                        torch_repr(pytorch_layout(c, g->value)).c_str());
        }
    }
    if (!dump.empty()) {
        write_dump(dump, trace, c, grad ? &grads : nullptr);
        std::printf("\nwrote %zu tensors to %s\n", trace.size() + (grad ? grads.size() : 0), dump.c_str());
    }
    return 0;
}

}  // namespace cli
