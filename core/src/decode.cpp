#include "stepformer/decode.h"

#include "stepformer/trace_graph.h"

namespace stepformer {

DecodeResult greedy_decode(const Transformer& model, const std::string& src, bool keep_steps) {
    const Config& c = model.config();
    if (!c.has_vocabulary())
        throw ConfigError(Message(Msg::decode_no_vocabulary));
    Batch batch;
    batch.B = 1;
    batch.S = c.src_len;
    batch.src = encode_sentence(src, c.src_vocab, c.src_len, "source");
    const int bos = c.bos_id(), eos = c.eos_id(), V = c.tgt_vocab_size();
    DecodeResult result;
    std::vector<int> dec_input{bos};
    Trace trace;
    while (static_cast<int>(result.tokens.size()) < c.tgt_len) {
        batch.T = static_cast<int>(dec_input.size());
        batch.tgt = dec_input;
        model.forward(batch, trace);
        trace.release_staging();  // nothing follows this step's forward pass
        const float* p = graph::output_probs(trace)->value.ptr() + size_t(batch.T - 1) * V;
        int best = 0;
        for (int v = 1; v < V; ++v)
            if (p[v] > p[best]) best = v;
        if (keep_steps) {
            DecodeStep s;
            s.dec_input = dec_input;
            s.probs.assign(p, p + V);
            s.chosen = best;
            s.trace = std::move(trace);
            result.steps.push_back(std::move(s));
            trace = Trace{};
        }
        result.tokens.push_back(best);
        if (best == eos) {
            result.reached_eos = true;
            break;
        }
        dec_input.push_back(best);
    }
    for (int t : result.tokens) {
        if (t == eos || t == bos || t == 0) continue;
        result.text += (result.text.empty() ? "" : " ") + c.tgt_vocab[size_t(t)];
    }
    return result;
}

}  // namespace stepformer
