// `stepformer-cli info W.safetensors`: tensors, shapes, dtypes and the config a file carries;
// `stepformer-cli info --devices`: the GPUs the Vulkan backend can use.
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "stepformer/cpu_kernels.h"
#include "stepformer/devices.h"
#include "stepformer/safetensors.h"

namespace cli {

namespace {

int print_devices() {
    // The CPU's kernel set first: which instructions the CPU backend computes with.
    std::string sets;
    for (const std::string& s : stepformer::cpu_kernel_sets()) sets += (sets.empty() ? "" : ", ") + s;
    std::printf("CPU kernels: %s (this CPU runs: %s; STEPFORMER_CPU_KERNELS chooses)\n",
                stepformer::cpu_kernel_set().c_str(), sets.c_str());
    std::printf("CPU large products (linear layers over 256 or more tokens): %s; OpenBLAS %s "
                "(STEPFORMER_CPU_GEMM=eigen|openblas|auto chooses)\n",
                stepformer::cpu_large_gemm() == "undecided" ? "the faster of Eigen and OpenBLAS, measured at the first"
                                                             : stepformer::cpu_large_gemm().c_str(),
                stepformer::cpu_openblas_installed() ? "installed" : "not installed (libopenblas0-openmp)");
    if (!stepformer::gpu_backend_built()) {
        std::printf("this build has no GPU backend (it needs libvulkan-dev and glslc when built); the CPU computes\n");
        return 0;
    }
    const auto devs = stepformer::gpu_devices();
    if (devs.empty()) {
        std::printf("no Vulkan devices (no Vulkan driver on this machine); the CPU computes\n");
        return 0;
    }
    const int gpu = stepformer::gpu_device_for(devs), autos = stepformer::gpu_device_for(devs, true);
    std::printf("Vulkan devices:\n");
    for (size_t i = 0; i < devs.size(); ++i) {
        std::string note;
        if (!devs[i].usable) note = ", cannot be used: " + devs[i].why;
        if (int(i) == gpu) note += autos == gpu ? "  <- --backend gpu and auto" : "  <- --backend gpu";
        std::printf("  %zu: %s (%s)%s\n", i, devs[i].name.c_str(), devs[i].type.c_str(), note.c_str());
    }
    if (autos < 0) std::printf("--backend auto computes on the CPU (no GPU)\n");
    return 0;
}

// One line saying which model a config describes: the architecture and structure keys first.
std::string model_line(const stepformer::Config& c) {
    using stepformer::architecture_name;
    std::string s = std::string("\"architecture\": \"") + architecture_name(c.architecture) + "\"";
    if (!c.torch()) return s + ": the tutorial's Transformer, " + std::to_string(c.n_layers) + " layers per stack";
    s += std::string(", \"structure\": \"") + stepformer::structure_name(c.structure) + "\"";
    if (c.layers())
        return s + ": the layer lab, nn.TransformerEncoderLayer" +
               (c.decoder_layer ? " then nn.TransformerDecoderLayer" : "") + " (inputs as tensors: forward --src-input)";
    return s + ": a translation model around nn.Transformer, " + std::to_string(c.encoder_layers()) + " encoder and " +
           std::to_string(c.decoder_layers()) + " decoder layers";
}

int print_file(const std::string& file) {
    const auto f = stepformer::read_safetensors(file);
    const std::string* path = &file;
    int64_t total = 0;
    std::printf("%s: %zu tensors\n", path->c_str(), f.tensors.size());
    for (const auto& t : f.tensors) {
        std::printf("  %-55s %-5s %s\n", t.name.c_str(), stepformer::dtype_name(t.dtype).c_str(),
                    stepformer::shape_to_string(t.shape).c_str());
        total += stepformer::numel(t.shape);
    }
    std::printf("total elements: %lld\n", static_cast<long long>(total));
    for (const auto& [k, v] : f.metadata) {
        if (k == "stepformer.config") {
            const auto c = stepformer::config_from_json_text(v, "config in the metadata");
            std::printf("model: %s\n", model_line(c).c_str());
            std::printf("config (%s):\n%s\n", k.c_str(), stepformer::config_to_json_text(c, 2).c_str());
        } else {
            std::printf("metadata %s = %s\n", k.c_str(), v.size() > 200 ? (v.substr(0, 200) + "...").c_str() : v.c_str());
        }
    }
    return 0;
}

}  // namespace


void add_info_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("info", "list the tensors, shapes and config of a safetensors file, or the GPUs");
    auto path = std::make_shared<std::string>();
    auto devices = std::make_shared<bool>(false);
    cmd->add_option("file", *path, "safetensors file")->check(CLI::ExistingFile);
    cmd->add_flag("--devices", *devices, "list the GPUs (Vulkan devices) --backend gpu can use");
    cmd->callback([&run, path, devices] {
        if (*devices) {
            run = [] { return print_devices(); };
            return;
        }
        if (path->empty()) throw CLI::ValidationError("info", "give a safetensors file, or --devices");
        run = [path] { return print_file(*path); };
    });
}

}  // namespace cli
