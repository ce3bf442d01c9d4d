#include "stepformer/graph.h"

#include <numeric>

#include "engine/model_context.h"

#include <stdexcept>

namespace stepformer {

const char* token_stream_name(TokenStream s) {
    switch (s) {
        case TokenStream::Src: return "src";
        case TokenStream::Tgt: return "tgt";
        case TokenStream::Out: return "out";
    }
    return "?";
}

const Step& Graph::add(Step s) {
    if (index_.count(s.name)) throw std::logic_error("graph: duplicate step '" + s.name + "'");
    if (s.axes.size() != s.shape.size())
        throw std::logic_error("graph: '" + s.name + "' has " + std::to_string(s.axes.size()) + " axes for shape " +
                               shape_to_string(s.shape));
    for (const std::string& h : s.hidden)
        if (!index_.count(h)) throw std::logic_error("graph: '" + s.name + "' reads '" + h + "', which is no earlier step");
    index_.emplace(s.name, steps_.size());
    steps_.push_back(std::move(s));
    return steps_.back();
}

const Step* Graph::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &steps_[it->second];
}

size_t Graph::index_of(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) throw std::out_of_range("graph has no step '" + name + "'");
    return it->second;
}

}  // namespace stepformer

namespace stepformer::detail {

const std::vector<int>& stream_ids(const Batch& b, int stream) {
    static const std::vector<int> positions = [] {
        std::vector<int> v(4096);  // Config::validate bounds block_size and the lengths by 4096
        std::iota(v.begin(), v.end(), 0);
        return v;
    }();
    if (stream == int(Stream::Position)) return positions;
    return stream == int(Stream::Tgt) ? b.tgt : b.src;
}

}  // namespace stepformer::detail
