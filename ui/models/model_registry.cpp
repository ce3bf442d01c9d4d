#include "models/model_registry.h"

#include <string_view>
#include <utility>

#include <QCoreApplication>

#include "models/model_words.h"
#include "stepformer/model_registry.h"
#include "steps/piece_builder.h"
#include "steps/step_tooltips.h"

namespace models {

QString Presentation::scalingSentence() const { return QCoreApplication::translate("models", scalingSentenceSource); }

QString Presentation::diagramFor(const stepformer::Config& c) const {
    return QString::fromLatin1(c.norm_first && diagramNormFirst ? diagramNormFirst : diagram);
}

const Presentation& presentation(stepformer::Naming naming) {
    static const Presentation tutorial{{}, QT_TRANSLATE_NOOP("models", "the tutorial's model (seed 001), which computes <b>B</b>")};
    // (the tutorial's source and target tips are the defaults: QT_TRANSLATE_NOOP marks them there)
    static const Presentation torch{
        {QStringLiteral("torch/")},
        QT_TRANSLATE_NOOP("models", "PyTorch's nn.Transformer layers (seeds 002 and 004), which compute <b>A</b>"),
        tensorviz::torchStepPieces, tensorviz::torchCellExtra, torch::blockWord, torch::label, torch::sublayerTitle,
        QT_TRANSLATE_NOOP("StepModel", "src: the source sentence's token ids, padded to src_len with the pad token "
                                       "(key_padding_mask is True there)"),
        QT_TRANSLATE_NOOP("StepModel", "tgt_input: the target sentence starting with the start symbol, padded to "
                                       "tgt_len; tgt_mask keeps each position from the later ones"),
        "torch_post_norm", "torch_pre_norm", torch::blockTip, torch::reference, 2};
    // Seed 004's layer lab: PyTorch's words; the main window's diagram stays the paper's (the
    // lab draws its layers in a window of its own).
    static const Presentation torchLayers = [] {
        Presentation p = torch;
        p.diagram = "paper";
        p.diagramNormFirst = nullptr;
        p.blockTip = nullptr;
        p.reference = torch::layerLabReference;
        p.referenceLayers = 1;
        return p;
    }();
    static const Presentation aiayn{
        {QStringLiteral("aiayn/")},
        QT_TRANSLATE_NOOP("models", "attention-is-all-you-need-pytorch (seed 003), which computes <b>A</b>"),
        tensorviz::aiaynStepPieces, tensorviz::aiaynCellExtra, aiayn::blockWord, aiayn::label, aiayn::sublayerTitle,
        QT_TRANSLATE_NOOP("StepModel", "src_seq: the source sentence's token ids, padded with pad id 0 (src_mask is 0 there)"),
        QT_TRANSLATE_NOOP("StepModel", "trg_seq: the target sentence starting with the start symbol, padded with pad id 0; "
                                       "trg_mask keeps (1) the earlier, non-pad positions"),
        "aiayn", nullptr, aiayn::blockTip, aiayn::reference, 2};
    // nanoGPT's decoder-only GPT: (q @ kᵀ) * (1.0 / math.sqrt(hs)) scales the product, B's order.
    static const Presentation gpt{
        {QStringLiteral("gpt/")},
        QT_TRANSLATE_NOOP("models", "nanoGPT's GPT, which computes <b>B</b> (the product times 1/√hs)"),
        tensorviz::gptStepPieces, tensorviz::gptCellExtra, gpt::blockWord, gpt::label, gpt::sublayerTitle,
        QT_TRANSLATE_NOOP("StepModel", "nanoGPT reads no source sentence: it is decoder-only"),
        QT_TRANSLATE_NOOP("StepModel", "idx: the sentence's token ids, starting with the start word; the model predicts "
                                       "each next word"),
        "gpt", nullptr, gpt::blockTip, gpt::reference, 2};
    // One line per model, under the key the core names its traces' naming by.
    static const std::pair<const char*, const Presentation*> kModels[] = {
        {"tutorial", &tutorial}, {"torch", &torch}, {"torch_layers", &torchLayers}, {"aiayn", &aiayn}, {"gpt", &gpt}};
    const std::string_view key = stepformer::naming_key(naming);
    for (const auto& [name, p] : kModels)
        if (key == name) return *p;
    return tutorial;
}

stepformer::Naming namingOf(const stepformer::Trace& tr) {
    return tr.blocks().empty() ? stepformer::Naming{} : tr.blocks().front().naming;  // none yet: the tutorial's
}

stepformer::Naming namingOf(const stepformer::Config& c) { return stepformer::model_naming(c); }

}  // namespace models
