#include "models/models.h"

namespace stepformer::build {

std::shared_ptr<const Graph> model_graph(const Config& c, const Batch& batch) {
    auto g = std::make_shared<Graph>();
    Builder b(*g);
    switch (c.architecture) {
        case Architecture::Tutorial: tutorial_graph(b, c, batch.B, batch.S, batch.T); break;
        case Architecture::Torch: torch_graph(b, c, batch); break;
        case Architecture::Aiayn: aiayn_graph(b, c, batch.B, batch.S, batch.T); break;
    }
    return g;
}

}  // namespace stepformer::build
