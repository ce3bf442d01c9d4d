#include "views/view_table.h"

#include <algorithm>

#include <QCoreApplication>

#include "views/attention_view.h"
#include "views/decode_view.h"
#include "views/gradient_view.h"
#include "views/loss_view.h"
#include "views/mask_view.h"
#include "views/pe_view.h"
#include "views/tensor_view.h"

using stepformer::Role;

namespace {

template <class View>
StepView* make(QWidget* parent) {
    return new View(parent);
}

}  // namespace

const std::vector<ViewInfo>& viewTable() {
    // The tooltips' shortcuts are the View menu's: Ctrl+1 for the first tab, and so on.
    static const std::vector<ViewInfo> table{
        {"tensor", QT_TRANSLATE_NOOP("MainWindow", "Tensor"),
         QT_TRANSLATE_NOOP("MainWindow", "The current step's tensor as a heatmap, with the tutorial's axis names (Ctrl+1)"),
         make<TensorView>, {}},
        {"attention", QT_TRANSLATE_NOOP("MainWindow", "Attention"),
         QT_TRANSLATE_NOOP("MainWindow", "Attention weights: which key each query looks at, per head (Ctrl+2)"),
         make<AttentionView>, {Role::Softmax}},
        {"masks", QT_TRANSLATE_NOOP("MainWindow", "Masks"), QT_TRANSLATE_NOOP("MainWindow", "The pad and subsequence masks (Ctrl+3)"),
         make<MaskView>, {Role::PadMask, Role::SubsequenceMask, Role::CombinedMask, Role::AttnMask, Role::MaskedScores}},
        {"pe", QT_TRANSLATE_NOOP("MainWindow", "Positional Encoding"),
         QT_TRANSLATE_NOOP("MainWindow", "The sinusoidal positional-encoding table and its sum with the embeddings (Ctrl+4)"),
         make<PositionalEncodingView>, {Role::PositionalTable, Role::PositionalAdd}},
        {"decode", QT_TRANSLATE_NOOP("MainWindow", "Decode"),
         QT_TRANSLATE_NOOP("MainWindow", "Greedy decoding, one token per step, with the probabilities and attention (Ctrl+5)"),
         make<DecodeView>, {}},
        {"loss", QT_TRANSLATE_NOOP("MainWindow", "Loss"),
         QT_TRANSLATE_NOOP("MainWindow", "The loss position by position: −log p of each expected token and their mean (Ctrl+6)"),
         make<LossView>, {Role::Loss, Role::LossPerToken}},
        {"gradients", QT_TRANSLATE_NOOP("MainWindow", "Gradients"),
         QT_TRANSLATE_NOOP("MainWindow", "The backward pass: each tensor beside its gradient, a weight, its gradient and the "
                                         "optimizer's update (Ctrl+7)"),
         make<GradientView>, {Role::Gradient}},
    };
    return table;
}

int viewIndex(const QString& name) {
    QString n = name.trimmed().toLower();
    if (n == QLatin1String("backward")) n = QStringLiteral("gradients");  // the command line's --view backward
    const auto& t = viewTable();
    for (size_t i = 0; i < t.size(); ++i)
        if (n == QLatin1String(t[i].name)) return int(i);
    return -1;
}

int homeView(Role role) {
    const auto& t = viewTable();
    for (size_t i = 0; i < t.size(); ++i)
        if (std::find(t[i].homeRoles.begin(), t[i].homeRoles.end(), role) != t[i].homeRoles.end()) return int(i);
    return viewIndex(QStringLiteral("tensor"));
}

QString viewTitle(const ViewInfo& v) { return QCoreApplication::translate("MainWindow", v.title); }

QString viewToolTip(const ViewInfo& v) { return QCoreApplication::translate("MainWindow", v.toolTip); }
