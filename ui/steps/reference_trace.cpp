#include "steps/reference_trace.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "models/model_registry.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/trace_names.h"

using namespace stepformer;

namespace tensorviz {

std::unique_ptr<Trace> translationReference(Config c, int layers) {
    // Only the structure matters: a small model with the layers asked for, one token each way.
    c.n_layers = layers;
    c.n_decoder_layers = layers;
    const Transformer model(c, init_params(c, 1));
    // A decoder-only model (nanoGPT) reads no source: its batch is the start word alone.
    const std::vector<std::string> src =
        c.reads_source() ? std::vector<std::string>{c.src_vocab.back()} : std::vector<std::string>{};
    const Batch batch = make_batch(c, src, {c.bos}, {c.eos});
    auto tr = std::make_unique<Trace>();
    model.forward(batch, *tr);
    model.loss(batch, *tr);
    return tr;
}

const Trace& referenceTrace(Naming naming, int layers) {
    const models::Presentation& p = models::presentation(naming);
    // Enough layers that most names resolve in the first one made (the tutorial's six).
    layers = std::max(layers, p.referenceLayers);
    static std::mutex mu;
    static std::map<std::pair<int, int>, std::unique_ptr<Trace>> made;
    const std::lock_guard<std::mutex> lock(mu);
    // One with more layers than asked serves too.
    const auto it = made.lower_bound({int(naming), layers});
    if (it != made.end() && it->first.first == int(naming)) return *it->second;
    auto tr = p.reference ? p.reference(layers) : translationReference(Config::small(), layers);
    return *made.emplace(std::make_pair(int(naming), layers), std::move(tr)).first->second;
}

const Trace& referenceTrace(int layers) { return referenceTrace(Naming{}, layers); }

const TraceEntry* referenceEntry(const std::string& name, const Trace** graph) {
    const names::Parsed p = names::parse(name);
    // A layer beyond any model's (the configuration allows 64) is a typo, not a reason to build one.
    if (p.block.kind == BlockKind::None || p.block.layer >= 64) return nullptr;
    const Trace& tr = referenceTrace(p.block.naming, p.block.layer + 1);
    if (graph) *graph = &tr;
    return tr.find(p.base);
}

}  // namespace tensorviz
