// The forward passes a training run takes besides its steps: the attention snapshots of the
// replay sentence and the live traces of the app's sentences.
#include "training/training_traces.h"
#include "widgets/text_util.h"

#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/trace_graph.h"

using namespace stepformer;
using ui_text::qs;

const AttentionBlockMap* AttentionSnapshot::find(stepformer::BlockKind kind, int layer) const {
    for (const auto& b : blocks)
        if (b.kind == kind && b.layer == layer) return &b;
    return nullptr;
}

namespace training_traces {

// The replay batch: the chosen sentence, or the first example when it does not fit the vocabulary.
Batch replayBatch(const Config& c, const std::string& src, const std::string& tgt, const std::vector<Example>& data) {
    try {
        return make_sentence_batch(c, src, tgt);
    } catch (const std::exception&) {
        return make_sentence_batch(c, data.front().enc_input, data.front().dec_input);
    }
}

std::shared_ptr<const AttentionSnapshot> takeSnapshot(const Transformer& model, const Batch& batch, int epoch,
                                                      double meanLoss) {
    Trace trace;
    model.forward(batch, trace);  // eval mode: no dropout
    auto snap = std::make_shared<AttentionSnapshot>();
    snap->epoch = epoch;
    snap->meanLoss = meanLoss;
    const Config& c = model.config();
    snap->pad = qs(c.pad);
    if (!trace.src_tokens.empty())
        for (const auto& t : trace.src_tokens.front()) snap->srcTokens << qs(t);
    if (!trace.tgt_tokens.empty())
        for (const auto& t : trace.tgt_tokens.front()) snap->tgtTokens << qs(t);
    // Every attention block's weights: the output of its softmax.
    for (const Block& b : graph::attention_blocks(trace)) {
        const TraceEntry* e = graph::find(trace, b, Role::Softmax);
        if (!e || e->value.rank() != 4) continue;
        AttentionBlockMap m;
        m.kind = b.kind;
        m.layer = b.layer;
        m.heads = int(e->value.dim(1));
        m.rows = int(e->value.dim(2));
        m.cols = int(e->value.dim(3));
        const size_t n = size_t(m.heads) * size_t(m.rows) * size_t(m.cols);
        m.values.assign(e->value.data.begin(), e->value.data.begin() + long(n));  // batch entry 0
        snap->blocks.push_back(std::move(m));
    }
    return snap;
}

// The forward pass (and the loss, when the target gives an expected output) of one sentence
// pair, as the Session computes its trace, without the backward pass. Null when the sentences do
// not fit the run's vocabulary.
std::shared_ptr<const Trace> liveForward(const Transformer& model, const std::string& src, const std::string& tgt) {
    try {
        const Config& c = model.config();
        const std::string expected = c.eos_id() >= 0 ? dec_output_for(tgt, c) : std::string();
        const Batch batch = make_sentence_batch(c, src, tgt, expected);
        auto t = std::make_shared<Trace>();
        model.forward(batch, *t);  // eval mode: no dropout
        if (!expected.empty()) model.loss(batch, *t);
        t->release_staging();  // for the views only
        return t;
    } catch (const std::exception&) {
        return {};
    }
}

}  // namespace training_traces
