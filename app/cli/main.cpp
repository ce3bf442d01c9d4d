// stepformer-cli: the headless face of the compute core. Every number the GUI shows can be
// produced here and checked against PyTorch (tests/reference/check_dump.py).
#include <iostream>

#include "cli_common.h"
#include "stepformer/devices.h"
#include "stepformer/version.h"

int main(int argc, char** argv) {
    CLI::App app{"Stepformer command line: run, inspect, train and translate the tutorial's Transformer and PyTorch's own layers"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("stepformer-cli ") + STEPFORMER_VERSION);
    cli::Action run;
    cli::add_forward_command(app, run);
    cli::add_info_command(app, run);
#ifdef STEPFORMER_CLI_LEARNING
    cli::add_grad_command(app, run);
    cli::add_train_command(app, run);
    cli::add_translate_command(app, run);
    cli::add_generate_command(app, run);
    cli::add_bench_command(app, run);
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::cerr << "error: " << e.what() << "\n(run with --help for the options)\n";
        return 1;
    }
    try {
        return run ? run() : 0;
    } catch (const stepformer::BackendUnavailable& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
