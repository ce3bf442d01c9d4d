#include "models/model_registry.h"

#include <QCoreApplication>

#include "steps/piece_builder.h"
#include "steps/step_tooltips.h"

namespace models {

QString Presentation::scalingSentence() const { return QCoreApplication::translate("models", scalingSentenceSource); }

const Presentation& presentation(stepformer::Naming naming) {
    using stepformer::Naming;
    static const Presentation tutorial{{}, QT_TRANSLATE_NOOP("models", "the tutorial's model (seed 001), which computes <b>B</b>")};
    static const Presentation torch{
        {QStringLiteral("torch_")},
        QT_TRANSLATE_NOOP("models", "PyTorch's nn.Transformer layers (seeds 002 and 004), which compute <b>A</b>"),
        tensorviz::torchStepPieces, tensorviz::torchCellExtra};
    static const Presentation aiayn{
        {QStringLiteral("aiayn_")},
        QT_TRANSLATE_NOOP("models", "attention-is-all-you-need-pytorch (seed 003), which computes <b>A</b>"),
        tensorviz::aiaynStepPieces, tensorviz::aiaynCellExtra};
    switch (naming) {
        case Naming::Tutorial: return tutorial;
        case Naming::TorchLayers:
        case Naming::TorchSeq2Seq: return torch;
        case Naming::Aiayn: return aiayn;
    }
    return tutorial;
}

stepformer::Naming namingOf(const stepformer::Trace& tr) {
    return tr.blocks().empty() ? stepformer::Naming::Tutorial : tr.blocks().front().naming;
}

}  // namespace models
