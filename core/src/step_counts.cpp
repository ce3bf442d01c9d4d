#include "stepformer/step_counts.h"

#include <stdexcept>
#include <string>

#include "stepformer/train.h"

namespace stepformer {

std::vector<Example> examples_of(const Config& c, const Batch& batch) {
    const auto words = [](const std::vector<std::string>& vocab, const std::vector<int>& ids, int row, int len) {
        std::string s;
        for (int t = 0; t < len; ++t) {
            if (t) s += ' ';
            s += vocab.at(size_t(ids.at(size_t(row) * size_t(len) + size_t(t))));
        }
        return s;
    };
    std::vector<Example> out;
    for (int b = 0; b < batch.B; ++b) {
        Example e;
        if (!batch.src.empty()) e.enc_input = words(c.src_vocab, batch.src, b, batch.S);
        e.dec_input = words(c.tgt_vocab, batch.tgt, b, batch.T);
        if (!batch.out.empty()) e.dec_output = words(c.tgt_vocab, batch.out, b, batch.T);
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<BackendCounters> trainer_step_counts(Transformer& model, std::vector<Example> data, int batch_size,
                                                 int steps) {
    Backend& be = model.backend();
    if (!be.counters()) return {};
    if (steps < 1 || data.size() < size_t(steps) * size_t(batch_size))
        throw std::invalid_argument("trainer_step_counts: " + std::to_string(steps) + " steps of " +
                                    std::to_string(batch_size) + " need more than " + std::to_string(data.size()) +
                                    " examples");
    data.resize(size_t(steps) * size_t(batch_size));
    TrainOptions o;
    o.epochs = 1;  // no settling of the host's copies between the steps (that comes after an epoch)
    o.batch_size = batch_size;
    o.shuffle = false;
    Trainer trainer(model, std::move(data), o);
    std::vector<BackendCounters> per_step;
    be.sync();
    BackendCounters last = *be.counters();
    trainer.run([&](const StepReport&) {
        const BackendCounters now = *be.counters();  // the step has synchronised: its loss is read
        per_step.push_back(now.since(last));
        last = now;
    });
    return per_step;
}

}  // namespace stepformer
