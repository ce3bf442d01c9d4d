// `stepformer-cli info W.safetensors`: tensors, shapes, dtypes and the config a file carries.
#include <cstdio>

#include "cli_common.h"
#include "stepformer/safetensors.h"

namespace cli {

void add_info_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("info", "list the tensors, shapes and config of a safetensors file");
    auto path = std::make_shared<std::string>();
    cmd->add_option("file", *path, "safetensors file")->required()->check(CLI::ExistingFile);
    cmd->callback([&run, path] {
        run = [path] {
            const auto f = stepformer::read_safetensors(*path);
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
                    std::printf("config (%s):\n%s\n", k.c_str(), stepformer::config_to_json_text(c, 2).c_str());
                } else {
                    std::printf("metadata %s = %s\n", k.c_str(), v.size() > 200 ? (v.substr(0, 200) + "...").c_str() : v.c_str());
                }
            }
            return 0;
        };
    });
}

}  // namespace cli
