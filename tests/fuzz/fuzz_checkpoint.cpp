// libFuzzer target: a checkpoint file from outside (weights, config, optimizer state, as `train
// --resume` and the Train dock's "Resume from…" read it), through the loader's own path: the bytes
// go to a file first. It must load, and its optimizer state restore, or say why in an exception of
// the library's: a crash, a sanitizer report or a std::bad_alloc is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "stepformer/optimizer.h"

using namespace stepformer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/stepformer-fuzz-checkpoint-" + std::to_string(::getpid()) +
               ".safetensors";
    }();
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size) std::fwrite(data, 1, size, f);
        std::fclose(f);
    } else {
        return 0;
    }
    Checkpoint ck;
    try {
        ck = load_checkpoint(path);
    } catch (const std::bad_alloc&) {
        __builtin_trap();  // sizes are checked against the file before anything is allocated
    } catch (const std::runtime_error&) {  // SafetensorsError, WeightsError, ConfigError: all name the file
        std::remove(path.c_str());
        return 0;
    }
    std::remove(path.c_str());
    ck.config.validate();
    if (!ck.optimizer_json) return 0;
    for (OptimizerKind kind : {OptimizerKind::SGD, OptimizerKind::Adam, OptimizerKind::AdamW}) {
        Optimizer opt(optimizer_defaults(kind), ck.params);
        try {
            restore_optimizer(ck, opt);
        } catch (const std::bad_alloc&) {
            __builtin_trap();
        } catch (const std::runtime_error&) {
        }
    }
    return 0;
}
