// The models: one line each, its architecture, its graph builder, and the batch's token streams
// it reads (the tests check these against the streams its graph's steps read).
#include <algorithm>
#include <iterator>

#include "models/models.h"

namespace stepformer {

namespace {

struct ModelEntry {
    Architecture architecture;
    void (*graph)(build::Builder& b, const Config& c, const Batch& batch);
    std::vector<TokenStream> reads;
};

const std::vector<ModelEntry>& models() {
    using enum TokenStream;
    static const std::vector<ModelEntry> m = {
        {Architecture::Tutorial, build::tutorial_graph, {Src, Tgt, Out}},
        {Architecture::Torch, build::torch_graph, {Src, Tgt, Out}},
        {Architecture::Aiayn, build::aiayn_graph, {Src, Tgt, Out}},
    };
    return m;
}

const ModelEntry& entry(const Config& c) {
    const auto& m = models();
    const auto it = std::find_if(m.begin(), m.end(), [&](const ModelEntry& e) { return e.architecture == c.architecture; });
    if (it == m.end()) throw std::logic_error("no model is registered for this architecture");
    return *it;
}

}  // namespace

std::vector<TokenStream> model_streams(const Config& c) {
    if (c.layers()) return {};  // the layer lab reads tensors, not tokens
    return entry(c).reads;
}

namespace build {

std::shared_ptr<const Graph> model_graph(const Config& c, const Batch& batch) {
    auto g = std::make_shared<Graph>();
    Builder b(*g);
    entry(c).graph(b, c, batch);
    return g;
}

}  // namespace build

}  // namespace stepformer
