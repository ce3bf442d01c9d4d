// Private: the layer builders every model's graph is made of. Each adds steps to a graph (it
// computes nothing: the engine does) and returns the name of the step it added last. What differs
// between the models is data: their names, their axes' names and the options of each layer.
#pragma once

#include <string>
#include <vector>

#include "stepformer/config.h"
#include "stepformer/graph.h"
#include "stepformer/trace_names.h"

namespace stepformer::build {

inline Axis ax(AxisKind k, const char* name) { return Axis{k, name}; }

class Builder {
public:
    explicit Builder(Graph& g) : g_(g) {}
    Graph& graph() { return g_; }
    const Shape& shape(const std::string& step) const { return g_.steps()[g_.index_of(step)].shape; }
    // Adds a traced step.
    std::string add(const std::string& name, Node node, Shape shape, std::vector<Axis> axes, bool is_mask = false);
    // Adds a step the trace does not show (a mask in the form a kernel takes).
    std::string internal(const std::string& name, Node node, Shape shape, std::vector<Axis> axes);
    // Adds a step that reads internal steps besides its inputs.
    std::string add_reading(const std::string& name, Node node, Shape shape, std::vector<Axis> axes,
                            std::vector<std::string> hidden);

private:
    Graph& g_;
};

// How a model's multi-head attention is made and named.
struct AttentionSpec {
    int H = 0, dk = 0, dv = 0, D = 0;
    const char* heads_axis = "n_heads";
    const char* dk_axis = "d_k";
    const char* dv_axis = "d_v";
    const char* d_axis = "d_model";
    const char* batch_axis = "batch_size";
    const char* q_axis = "len_q";
    const char* k_axis = "len_k";
    // Parameters: three projections and the output (W_Q.weight, ...), or PyTorch's packed
    // in_proj_weight (Q | K | V rows) with out_proj; biases on all of them or on none.
    bool packed = false;
    bool bias = false;
    std::string wq, wk, wv, wo;  // parameter leaves (packed: wq is in_proj_weight, wo out_proj.weight)
    std::string bq, bo;          // packed with bias: in_proj_bias, out_proj.bias
    // Where 1/√d_k acts: on the product (the tutorial), on the query first (PyTorch's order), or
    // as a step of its own (q / temperature, attention-is-all-you-need-pytorch).
    enum class Scaling { Product, QueryFirst, QueryStep } scaling = Scaling::Product;
    float scale = 1.0f;
    // The mask: masked_fill(mask, −1e9) by a 0/1 mask entry (1 = fill; or, when the call names a
    // fill, by that internal step), or an additive 0 / −inf mask step of its own (PyTorch).
    bool additive = false;
    float fill = -1e9f;  // what masked_fill writes (nanoGPT's: −inf)
    float attn_dropout = 0.0f;
    // The leaves its entries are named by (nanoGPT's: attn.q, ..., attn.y, attn.c_proj).
    const char* q_leaf = "Q";
    const char* k_leaf = "K";
    const char* v_leaf = "V";
    const char* scores_leaf = "scores";
    const char* masked_leaf = "masked_scores";
    const char* attn_leaf = "attn";
    const char* context_leaf = "context";
    const char* out_leaf = "fc_out";
};

// The mask an attention block reads: a traced mask entry, an internal 0/1 step (1 = fill), and
// for an additive mask the batch's stream whose given masks it merges when there is no step.
struct MaskIn {
    std::string entry = {};
    std::string fill = {};
    Stream stream = Stream::Src;
};

// Q, K, V from xq (B, Lq, D) and xkv (B, Lk, D), the scores, the mask, softmax, context and the
// out projection; returns the out projection's name (B, Lq, D).
std::string attention(Builder& b, const AttentionSpec& s, const Block& blk, const std::string& xq,
                      const std::string& xkv, const MaskIn& mask, AxisKind qk, AxisKind kk);

// in0 + in1, the sub-layer's output (input `sublayer`) through a dropout of p.
std::string residual(Builder& b, const Block& blk, const std::string& name, const std::string& in0,
                     const std::string& in1, int sublayer, float p, std::vector<Axis> axes);

// LayerNorm of `in`, with γ and β the parameters named (none: the tutorial's fixed γ = 1, β = 0;
// γ without β: nanoGPT's LayerNorm with bias=False).
std::string layer_norm(Builder& b, const Block& blk, const std::string& name, const std::string& in, float eps,
                       const std::string& gamma, const std::string& beta, std::vector<Axis> axes);

}  // namespace stepformer::build
