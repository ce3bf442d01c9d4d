#include "steps/reference_trace.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/trace_names.h"

using namespace stepformer;

namespace tensorviz {

namespace {

std::unique_ptr<Trace> makeReference(int layers) {
    // Only the structure matters: a small model with the layers asked for.
    Config c = Config::small();
    c.n_layers = layers;
    const Transformer model(c, init_params(c, 1));
    const Batch batch = make_batch(c, {c.src_vocab.back()}, {c.bos}, {c.eos});
    auto tr = std::make_unique<Trace>();
    model.forward(batch, *tr);
    model.loss(batch, *tr);
    return tr;
}

// The same for PyTorch's layers: a translation model around nn.Transformer, or seed 004's layer
// lab with its decoder layer (its names have no layer number).
std::unique_ptr<Trace> makeTorchReference(Naming naming, int layers) {
    auto tr = std::make_unique<Trace>();
    if (naming == Naming::TorchLayers) {
        Config c = Config::seed004();
        c.decoder_layer = true;
        const Transformer model(c, init_params(c, 1));
        Tensor src({1, 1, c.d_model}), tgt({1, 1, c.d_model});
        model.forward(make_layer_batch(c, src, tgt), *tr);
        return tr;
    }
    Config c = Config::torch_small();
    c.n_layers = c.n_decoder_layers = layers;
    const Transformer model(c, init_params(c, 1));
    const Batch batch = make_batch(c, {c.src_vocab.back()}, {c.bos}, {c.eos});
    model.forward(batch, *tr);
    model.loss(batch, *tr);
    return tr;
}

}  // namespace

const Trace& torchReferenceTrace(Naming naming, int layers) {
    layers = std::max(layers, 2);
    static std::mutex mu;
    static std::map<std::pair<int, int>, std::unique_ptr<Trace>> made;
    const std::lock_guard<std::mutex> lock(mu);
    const int n = naming == Naming::TorchLayers ? 1 : layers;
    const auto key = std::make_pair(int(naming), n);
    if (const auto it = made.find(key); it != made.end()) return *it->second;
    return *made.emplace(key, makeTorchReference(naming, n)).first->second;
}

const Trace& referenceTrace(int layers) {
    // The tutorial's six layers at least, so most names resolve in the first one made.
    layers = std::max(layers, 6);
    static std::mutex mu;
    static std::map<int, std::unique_ptr<Trace>> made;
    const std::lock_guard<std::mutex> lock(mu);
    const auto it = made.lower_bound(layers);
    if (it != made.end()) return *it->second;
    return *made.emplace(layers, makeReference(layers)).first->second;
}

const TraceEntry* referenceEntry(const std::string& name, const Trace** graph) {
    const names::Parsed p = names::parse(name);
    // A layer beyond any model's (the configuration allows 64) is a typo, not a reason to build one.
    if (p.block.kind == BlockKind::None || p.block.layer >= 64) return nullptr;
    const Trace& tr = p.block.torch() ? torchReferenceTrace(p.block.naming, p.block.layer + 1)
                                      : referenceTrace(p.block.layer + 1);
    if (graph) *graph = &tr;
    return tr.find(p.base);
}

}  // namespace tensorviz
