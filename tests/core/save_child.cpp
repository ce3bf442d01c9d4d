// A child process for the killed-save tests (test_killed_saves.cpp): it saves a tutorial-size file
// the way the app does and is killed with SIGKILL somewhere in the middle.
//   save_child checkpoint SEED TARGET   save_checkpoint of a tutorial-size model whose weights SEED
//                                       sets (what `train --save` and the app's model cache write)
//   save_child npz SEED TARGET          the same weights as a NumPy archive (File › Export, .npz)
// It prints "ready" once the model is made, just before the save starts, and "saved" after.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "stepformer/model.h"
#include "stepformer/npy.h"
#include "stepformer/params.h"

using namespace stepformer;

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: save_child checkpoint|npz SEED TARGET\n");
        return 2;
    }
    const std::string kind = argv[1], target = argv[3];
    const uint64_t seed = std::strtoull(argv[2], nullptr, 10);
    const Config config = Config::tutorial();
    // Weights that differ by seed, made quickly (PyTorch's initialisation takes seconds here).
    ParamSet params(param_specs(config));
    for (size_t i = 0; i < params.size(); ++i) {
        Tensor& t = params[i];
        for (size_t j = 0; j < t.data.size(); ++j) t.data[j] = float(seed) * 1e-3f + float((j * 2654435761u + i) % 1000) * 1e-4f;
    }
    const Transformer model(config, std::move(params));
    std::printf("ready\n");
    std::fflush(stdout);
    if (kind == "checkpoint") {
        save_checkpoint(target, model);
    } else if (kind == "npz") {
        std::vector<std::pair<std::string, const Tensor*>> arrays;
        const ParamSet& params = model.params();
        for (size_t i = 0; i < params.size(); ++i) arrays.emplace_back(params.name(i), &params[i]);
        write_npz(target, arrays);
    } else {
        return 2;
    }
    std::printf("saved\n");
    return 0;
}
