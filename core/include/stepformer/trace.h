// The trace: every intermediate of a forward (and backward) pass, in the order it was
// computed, under a stable name, with the meaning of each axis so a viewer can label it —
// and as a graph: each entry carries the op that made it, its inputs, its block and its role
// there, so a viewer reads the model's structure from data (docs/architecture.md).
// Names are composed and split only by stepformer/trace_names.h.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepformer/tensor.h"
#include "stepformer/tensor_pool.h"

namespace stepformer {
class Backend;
class Graph;
class Staging;
}  // namespace stepformer

namespace stepformer {

enum class AxisKind {
    Batch,     // sentence in the batch
    Head,      // attention head
    SrcToken,  // a position of the source sentence (token labels from the source)
    TgtToken,  // a position of the target (decoder input) sentence
    Feature,   // d_model, d_k, d_v or d_ff index
    Vocab,     // target vocabulary entry
    Position,  // absolute position (positional-encoding table)
};

const char* axis_kind_name(AxisKind k);

struct Axis {
    AxisKind kind;
    std::string name;  // the tutorial's name for the axis: batch_size, n_heads, len_q, d_model, ...
};

// The step's role in its block (Q, K, V, scores, ..., residual sum, norm output); the GUI
// picks explanations and views by it. Gradient: a grad.* entry.
enum class Role {
    Embedding, PositionalTable, PositionalAdd, PadMask, SubsequenceMask, CombinedMask,
    Q, K, V, Scores, MaskedScores, Softmax, Context, OutProjection, Residual, LayerNorm,
    FfnHidden, Relu, FfnOut, Logits, Probs, LossPerToken, Loss, Gradient,
    // PyTorch's layers ("architecture": "torch"): a layer's given input (seed 004's layer lab),
    // the additive mask an attention block applies (0 or −inf, PyTorch's convention; not a 0/1
    // mask), the GELU activation.
    Input, AttnMask, Gelu,
    // attention-is-all-you-need-pytorch's: the query divided by the temperature √d_k before q·kᵀ.
    ScaledQ,
};

const char* role_name(Role r);  // "scores", "layer_norm": also the explanation's file name

// What a step computes, wherever it sits (ggml's op).
enum class Op {
    Embedding,        // rows of a table picked by token ids
    PositionalTable,  // the sinusoid table
    PositionalAdd,    // x + pe (then dropout, in training)
    TokenMask,        // a mask computed from token ids (pad, subsequence)
    MaskOr,           // two masks combined
    Linear,           // x W^T (split into heads when the output has a head axis)
    ScaledMatMul,     // Q K^T * scale
    MaskFill,         // masked_fill(mask, -1e9)
    Softmax,
    MatMul,           // attn V
    Add,              // residual sum
    LayerNorm,
    Relu,
    CrossEntropy,     // -log p(target), per token
    Mean,             // mean over the counted tokens
    Sum,              // sum over the counted tokens (attention-is-all-you-need-pytorch's cal_loss)
    Gradient,         // d loss / d its input
    Input,            // a tensor given by the user (the layer lab's src and tgt)
    AdditiveMask,     // PyTorch's attn_mask and key_padding_mask merged into 0 / −inf, per head
    MaskAdd,          // scores + additive mask (PyTorch's baddbmm)
    Gelu,
    Scale,            // x · s (s: the step's Attrs::scale)
};


// Where a step sits: which stack, which kind of block, which layer.
enum class Stack { None, Encoder, Decoder };
enum class BlockKind {
    None,
    Input,                // a stack's embedding, positional encoding and masks
    SelfAttention,        // encoder self-attention
    MaskedSelfAttention,  // decoder self-attention (subsequence mask)
    CrossAttention,       // decoder-encoder attention
    FeedForward,
    Projection,           // logits and probabilities
    Loss,
    FinalNorm,            // nn.Transformer's encoder.norm / decoder.norm after a stack's last layer
};

// Which model's names a block's entries and parameters take (trace_names.h): the tutorial's
// (seed 001), PyTorch's layers on their own (seed 004's layer lab: encoder_layer.*,
// decoder_layer.*) or a translation model around nn.Transformer (transformer.encoder.layers.*).
// attention-is-all-you-need-pytorch's model (seed 003) has its own module paths (Aiayn), and so
// has nanoGPT's GPT (Gpt: transformer.h.{i}.attn.*, one stack, the decoder's).
enum class Naming : uint8_t { Tutorial, TorchLayers, TorchSeq2Seq, Aiayn, Gpt };


struct Block {
    Stack stack = Stack::None;
    BlockKind kind = BlockKind::None;
    int layer = -1;  // -1 outside the layers
    Naming naming = Naming::Tutorial;
    bool torch() const { return naming == Naming::TorchLayers || naming == Naming::TorchSeq2Seq; }
    bool is_attention() const {
        return kind == BlockKind::SelfAttention || kind == BlockKind::MaskedSelfAttention ||
               kind == BlockKind::CrossAttention;
    }
    bool decoder() const { return stack == Stack::Decoder; }
    bool operator==(const Block&) const = default;
};

// The numbers an op takes besides its inputs (ggml's op_params): the forward pass computes by
// them and the backward pass reads them from the step, never from the model.
struct Attrs {
    // Linear, Embedding, Scale: y · scale; ScaledMatMul: Q·Kᵀ · scale (with scale_query the
    // forward scales the query first, PyTorch's order; the derivative is the same).
    float scale = 1.0f;
    bool scale_query = false;
    // Embedding: the row that gets no gradient (nn.Embedding's padding_idx); CrossEntropy: the
    // target id that is ignored (ignore_index); TokenMask: the pad id.
    int padding_idx = -1;
    float label_smoothing = 0.0f;  // CrossEntropy: ε (attention-is-all-you-need-pytorch's cal_loss)
    int sublayer = -1;  // Add (a residual): the input that is the sub-layer's output, where a dropout acts
    float eps = 0.0f;   // LayerNorm
    float fill = 0.0f;  // MaskFill: the value a masked score takes (−1e9)
    // Dropout at this step in training (p = dropout; 0: none): where it acts is the op's (see
    // Saved::keep). Its Philox stream is (seed, step · sites_per_step + site); site −1: the pass's
    // next site in order.
    float dropout = 0.0f;
    int site = -1;
    int sites_per_step = 4096;
    int stream = -1;  // Embedding, TokenMask, Input, AdditiveMask: the batch's stream it reads (Stream)
    int slice = -1;   // a Q, K or V Linear of a packed in-projection: its third of the weight (0, 1, 2)
    // TokenMask: 1 = keep (attention-is-all-you-need-pytorch's masks, made on the host) instead of
    // the kernels' 1 = masked.
    bool keep_ones = false;
    bool precise = false;  // PositionalTable: made in float64 (then stored as float32)
};

// What a step's backward needs besides its inputs, its output and its Attrs: typed slots, filled
// by the forward pass where the step has them. Internals, never dumped or shown.
struct Saved {
    Tensor mean, rstd;  // LayerNorm: each row's statistics (rows)
    // Dropout at this step (0 or 1/(1 − p) per element). With `dropped` empty it acted inside
    // the step (PositionalAdd: on the sum; Add: on the input Attrs::sublayer names); with
    // `dropped` it acted on the output, and the steps that read this one read `dropped`.
    Tensor keep, dropped;
    Tensor merged;  // an attention context with its heads side by side (B, Lq, H·dv): the out projection's input
    // MaskFill: the 0/1 mask (1 = fill) the scores were filled by, when it is not the mask input
    // itself (a model whose masks are 1 = keep). Shared by the blocks that use it; never written.
    std::shared_ptr<const Tensor> fill;
    Tensor finite;  // the loss: 1 when every per-token loss is finite (WeightUpdate::apply_if)

    size_t bytes() const {
        return (mean.data.size() + rstd.data.size() + keep.data.size() + dropped.data.size() + merged.data.size() +
                finite.data.size()) * sizeof(float);
    }
};

// An entry's place in the graph.
struct Node {
    Role role;
    Op op;
    Block block;
    std::vector<std::string> inputs;  // trace entries or parameters, in argument order (ggml's src[])
    Attrs attrs = {};
};

struct TraceEntry {
    std::string name;
    Role role;
    std::vector<Axis> axes;  // one per dimension of value
    bool is_mask = false;    // 1 = masked; written as U8 in dumps
    Tensor value;
    Op op = Op::Gradient;
    Block block;
    std::vector<std::string> inputs;  // see Node
    Attrs attrs;
    Saved saved;
};

class Trace {
public:
    // Appends; throws std::logic_error on a duplicate name or an axes/shape mismatch.
    TraceEntry& add(std::string name, Node node, std::vector<Axis> axes, Tensor value, bool is_mask = false);
    // The same with the block read from the name (names::parse), the op implied by the role
    // and no inputs: for entries made outside a model (tests, partial traces).
    TraceEntry& add(std::string name, Role role, std::vector<Axis> axes, Tensor value, bool is_mask = false);

    const TraceEntry* find(const std::string& name) const;
    const TraceEntry& at(const std::string& name) const;  // throws std::out_of_range naming it
    // For an edit before re-running the pass from a later step (Transformer::recompute_from).
    TraceEntry& mutable_at(const std::string& name) { return const_cast<TraceEntry&>(at(name)); }
    bool contains(const std::string& name) const { return index_.count(name) != 0; }

    // The graph's indexes, kept as entries are added (viewers ask on every step switch; see
    // stepformer/trace_graph.h for the queries built on them).
    const TraceEntry* find_role(const Block& b, Role role) const;   // first forward entry
    const std::vector<Block>& blocks() const { return blocks_; }    // forward entries' blocks, in order
    int layer_count(Stack s) const { return layer_count_[static_cast<int>(s)]; }
    const std::vector<size_t>& consumers_of(const std::string& name) const;  // entry indices, in order

    // A deque: entries never move, so references stay valid while the trace grows.
    const std::deque<TraceEntry>& entries() const { return entries_; }
    size_t size() const { return entries_.size(); }
    // Drops every entry (their buffers go to the pool, which the next forward on this trace lends
    // from: a trace cleared and not reused keeps that memory until it is destroyed or its pool
    // emptied) and the internals.
    void clear();
    // Keeps the first n entries (and their graph indexes); the internals stay. The others' buffers
    // go to the pool.
    void truncate(size_t n);
    // An entry's values (and its Saved tensors) go to the pool; it keeps its shape (a lean pass's
    // freed entry).
    void give_to_pool(TraceEntry& e);

    // Token strings of the batch, for axis labels: tokens[b][pos].
    std::vector<std::vector<std::string>> src_tokens;
    std::vector<std::vector<std::string>> tgt_tokens;

    // The graph whose steps made the entries (graph.h), and the outputs of its internal steps
    // (indexed as its steps; null for traced ones). Shared by copies: a pass never writes them
    // after they are made.
    std::shared_ptr<const Graph> graph;
    std::vector<std::shared_ptr<Tensor>> internals;
    // The pass freed what its backward pass does not read (ForwardOptions::keep_all = false):
    // such entries keep their shape, not their values, and the backward frees the rest as it goes.
    bool lean = false;
    // The buffers of entries cleared, truncated or freed by a lean pass, for the next pass's
    // tensors of the same sizes (tensor_pool.h; on a backend that computes in host memory).
    // A copy of the trace starts with none.
    TensorPool pool;

    // Where the backend that computed this trace keeps its tensors (staging.h): made by the
    // forward pass, used again by loss() and backward() so that they read the forward's tensors
    // where they already are. Cleared with the trace; a copy of the trace starts without one
    // (its tensors live elsewhere), and the host values are complete either way.
    Staging& staging(Backend& be);
    // The pass is over and no later pass reads its tensors where they are (no loss() or backward()
    // follows): the backend's copies go now, not with the trace. A trace kept for viewing (the
    // app's, a decoding's steps) holds no device memory then; its host values are complete.
    void release_staging() { staging_.p.reset(); }

private:
    // Copies as empty: a staging is found by host addresses, and a copy's are not the original's.
    struct StagingSlot {
        std::shared_ptr<Staging> p;
        StagingSlot() = default;
        StagingSlot(const StagingSlot&) {}
        StagingSlot& operator=(const StagingSlot&) {
            p.reset();
            return *this;
        }
        StagingSlot(StagingSlot&&) = default;
        StagingSlot& operator=(StagingSlot&&) = default;
    };

    void index_graph(size_t i);

    std::deque<TraceEntry> entries_;
    std::unordered_map<std::string, size_t> index_;
    std::unordered_map<uint64_t, size_t> role_index_;  // (block, role) -> first forward entry
    std::vector<Block> blocks_;
    int layer_count_[3] = {0, 0, 0};
    std::unordered_map<std::string, std::vector<size_t>> consumers_;  // input name -> forward entries
    StagingSlot staging_;
};

}  // namespace stepformer
