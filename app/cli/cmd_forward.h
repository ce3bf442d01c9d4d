// `stepformer-cli forward` on seed 004's layer lab ("structure": "layers"): the layers' inputs,
// masks and output gradient as tensors, shaped and named as PyTorch's forward takes them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "stepformer/model_io.h"
#include "stepformer/trace.h"

namespace cli {

struct LayerLabArgs {
    std::string src, tgt;                           // --src-input, --tgt-input
    std::string src_mask, tgt_mask, memory_mask;    // attn_mask: float (added) or bool (True = masked)
    std::string src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask;  // [B, L], 1 = ignore
    bool grad = false;
    std::string dout;  // --dout: d(something)/d(output); default ones, as output.sum().backward()
    std::vector<std::string> show;  // --show NAME: print these traced tensors too

    void add_to(CLI::App& cmd);
    // The first layer-lab-only option given, as its flag ("--src-input"); "" when none.
    std::string first_given() const;
};

// The layer lab's forward (and, with --grad, backward); prints the output in PyTorch's layout.
int run_forward_layers(const LayerLabArgs& a, stepformer::LoadedModel& lm, stepformer::Backend* backend,
                       const std::string& dump, bool compare_cpu);

// Every traced tensor of `shown` against the same entry of `cpu` (--compare-cpu). Returns 1 when
// an entry is missing or NaN/inf on one side only.
int print_agreement(const stepformer::Trace& shown, const stepformer::Trace& cpu, const std::string& device);

}  // namespace cli
