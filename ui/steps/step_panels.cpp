#include "steps/step_panels.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QCoreApplication>
#include <QSignalBlocker>

#include "steps/block_text.h"
#include "steps/panel_text.h"
#include "steps/step_tooltips.h"
#include "stepformer/trace_graph.h"

using namespace stepformer;

namespace tensorviz {

using namespace panel;

QString panel::shortLeafTitle(const Trace& tr, const QString& name) {
    const StepInfo s = stepInfo(tr, name);
    QString t = leafName(s.base);
    if (s.layer() >= 0) t += StepPanels::tr("  (layer %1 %2)").arg(s.layer()).arg(blockTitle(s.block.kind));
    return (s.isGrad ? QStringLiteral("grad.") : QString()) + t;
}

QString indexText(const TraceEntry& e, int b, int h, int r, int c) {
    const int rank = e.value.rank();
    if (rank == 0) return QStringLiteral("[]");
    std::vector<int64_t> idx(size_t(rank), -1);
    const bool axesOk = e.axes.size() == size_t(rank);
    bool bf = false, hf = false;
    std::vector<int> freeDims;
    for (int d = 0; d < rank; ++d) {
        const AxisKind k = axesOk ? e.axes[size_t(d)].kind : AxisKind::Feature;
        if (k == AxisKind::Batch && !bf) {
            idx[size_t(d)] = std::clamp<int64_t>(b, 0, e.value.dim(d) - 1);
            bf = true;
        } else if (k == AxisKind::Head && !hf) {
            idx[size_t(d)] = std::clamp<int64_t>(h, 0, e.value.dim(d) - 1);
            hf = true;
        } else {
            freeDims.push_back(d);
        }
    }
    if (!freeDims.empty()) {
        idx[size_t(freeDims.back())] = c;
        int64_t rem = r;
        for (int i = int(freeDims.size()) - 2; i >= 0; --i) {
            const int d = freeDims[size_t(i)];
            idx[size_t(d)] = rem % e.value.dim(d);
            rem /= e.value.dim(d);
        }
    }
    QStringList parts;
    for (auto i : idx) parts << QString::number(i);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

int fillBatchPicker(QComboBox* box, const Trace* tr) {
    int B = 0;
    if (tr) {
        B = static_cast<int>(std::max(tr->src_tokens.size(), tr->tgt_tokens.size()));
        if (!tr->entries().empty()) B = std::max(B, axisSize(tr->entries().front(), AxisKind::Batch));
    }
    B = std::max(B, 1);
    QStringList items;
    for (int b = 0; b < B; ++b) {
        QString text = QString::number(b);
        if (tr) {
            const QString src = sentenceText(*tr, b, false), tgt = sentenceText(*tr, b, true);
            if (!src.isEmpty() || !tgt.isEmpty()) text += QStringLiteral(":  ") + src + QStringLiteral("  →  ") + tgt;
        }
        items << text;
    }
    const QSignalBlocker block(box);
    const int current = box->currentIndex();
    if (box->count() != B) {
        box->clear();
        box->addItems(items);
    } else {
        for (int b = 0; b < B; ++b) box->setItemText(b, items[b]);
    }
    box->setCurrentIndex(std::clamp(current, 0, B - 1));
    return B;
}

QComboBox* makeBatchPicker(QWidget* parent, const QString& toolTip) {
    auto* box = view_parts::named(new QComboBox(parent), "batchPicker");
    box->setToolTip(toolTip);
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    box->setMinimumContentsLength(8);
    return box;
}

int syncBatchPicker(QComboBox* box, const Trace* tr, int& batch) {
    const int B = fillBatchPicker(box, tr);
    batch = std::clamp(batch, 0, B - 1);
    box->setCurrentIndex(batch);
    box->setEnabled(B > 1);
    return B;
}

void syncBlockLayerPickers(QComboBox* blockBox, QComboBox* layerBox, const Trace* tr, Block& block) {
    // The block picker lists the kinds of attention block the trace has (the default three
    // until there is a trace); its items carry the kind.
    std::vector<BlockKind> kinds;
    if (tr)
        for (const Block& a : graph::attention_blocks(*tr))
            if (std::find(kinds.begin(), kinds.end(), a.kind) == kinds.end()) kinds.push_back(a.kind);
    if (!kinds.empty()) {
        bool same = int(kinds.size()) == blockBox->count();
        for (int i = 0; same && i < blockBox->count(); ++i) same = blockBox->itemData(i).toInt() == int(kinds[size_t(i)]);
        if (!same) {
            const QSignalBlocker blocker(blockBox);
            blockBox->clear();
            for (BlockKind k : kinds) blockBox->addItem(blockPickerTitle(k), int(k));
        }
    }
    if (tr) block = attentionBlockOf(*tr, block.kind, block.layer);
    for (int i = 0; i < blockBox->count(); ++i)
        if (blockBox->itemData(i).toInt() == int(block.kind)) blockBox->setCurrentIndex(i);
    const int layers = tr ? graph::layer_count(*tr, block.stack) : 0;
    if (layerBox->count() != std::max(layers, 1)) {
        layerBox->clear();
        for (int i = 0; i < layers; ++i) layerBox->addItem(QCoreApplication::translate("StepPanels", "Layer %1").arg(i));
        if (layers == 0) layerBox->addItem(QStringLiteral("—"));
    }
    block.layer = std::clamp(block.layer, 0, std::max(0, layers - 1));
    layerBox->setCurrentIndex(block.layer);
    layerBox->setEnabled(layers > 1);
}

void fillBlockPicker(QComboBox* blockBox) {
    for (BlockKind k : {BlockKind::SelfAttention, BlockKind::MaskedSelfAttention, BlockKind::CrossAttention})
        blockBox->addItem(blockPickerTitle(k), int(k));
}

Block attentionBlockOf(const Trace& tr, BlockKind kind, int layer) {
    for (const Block& a : graph::attention_blocks(tr))
        if (a.kind == kind) return Block{a.stack, kind, layer, a.naming};
    return Block{Stack::None, kind, layer, traceNaming(tr)};
}

bool keepsOnes(const TraceEntry& mask) { return mask.is_mask && mask.attrs.keep_ones; }

QString maskReason(const Trace& tr, const TraceEntry& mask, int b, int i, int j) {
    if (keepsOnes(mask)) {  // its masks have no inputs: tell padding from a later word by position
        const AxisKind keys = mask.axes.empty() ? AxisKind::Feature : mask.axes.back().kind;
        if (mask.role == Role::CombinedMask && j > i)
            return StepPanels::tr("get_subsequent_mask: key position %1 comes after query position %2 (0 = masked)").arg(j).arg(i);
        // A causal mask alone (nanoGPT's buffer `bias`) masks only later keys, never padding.
        if (mask.role == Role::SubsequenceMask)
            return StepPanels::tr("key position %1 comes after query position %2: a future word (0 = masked)").arg(j).arg(i);
        return StepPanels::tr("get_pad_mask: the key '%1' at position %2 is padding (0 = masked)").arg(tokenAt(tr, keys, b, j)).arg(j);
    }
    const auto at = [&](const TraceEntry& m) {
        const Matrix s = slice(tr, m, b, 0, nullptr);
        return inside(s, i, j) ? s.at(i, j) : -1.0f;
    };
    const AxisKind keys = mask.axes.empty() ? AxisKind::Feature : mask.axes.back().kind;
    QStringList why;
    switch (mask.role) {
    case Role::PadMask:
        if (keys == AxisKind::SrcToken) {
            const QString tok = tokenAt(tr, AxisKind::SrcToken, b, j);
            why << StepPanels::tr("the source key '%1' at position %2 is padding").arg(tok.isEmpty() ? QStringLiteral("P") : tok).arg(j);
        } else {
            why << StepPanels::tr("the key '%1' at position %2 is padding").arg(tokenAt(tr, keys, b, j)).arg(j);
        }
        break;
    case Role::SubsequenceMask:
        why << StepPanels::tr("key position %1 comes after query position %2: a future word").arg(j).arg(i);
        break;
    case Role::AttnMask: {  // PyTorch's merged additive mask: which of its sources put −∞ here
        if (mask.block.kind == BlockKind::MaskedSelfAttention && j > i) {
            why << StepPanels::tr("tgt_mask: key position %1 comes after query position %2 (−∞ above the diagonal)")
                       .arg(j).arg(i);
            break;
        }
        // A padded key is −∞ in every row of its column.
        const Matrix s = slice(tr, mask, b, 0, nullptr);
        bool column = inside(s, 0, j);
        for (int r = 0; column && r < s.rows; ++r) column = s.at(r, j) == -INFINITY;
        const QString tok = tokenAt(tr, keys, b, j);
        if (column)
            why << StepPanels::tr("key_padding_mask is True for the key '%1' at position %2: padding").arg(tok).arg(j);
        else
            why << StepPanels::tr("attn_mask is −∞ here");
        break;
    }
    default:  // a combination: the reasons of the masks it combines that hide this key
        for (size_t k = 0; k < mask.inputs.size(); ++k)
            if (const TraceEntry* part = graph::input(tr, mask, k); part && at(*part) > 0.0f)
                why << maskReason(tr, *part, b, i, j);
        if (why.isEmpty() && j > i)
            why << StepPanels::tr("key position %1 comes after query position %2: a future word").arg(j).arg(i);
    }
    return why.join(StepPanels::tr("; "));
}

PanelSpec panelFor(const TracePtr& trp, const Config& cfg, const QString& name, int b, int h, const QString& title) {
    PanelSpec p;
    p.traceName = name;
    p.title = title.isEmpty() ? (trp ? shortLeafTitle(*trp, name) : name) : title;
    if (!trp) {
        p.emptyMessage = StepPanels::tr("No trace yet.");
        return p;
    }
    const Trace& tr = *trp;
    const TraceEntry* e = findEntry(tr, name);
    if (!e) {
        p.emptyMessage = StepPanels::tr("'%1' is not in this trace.").arg(name);
        return p;
    }
    p.present = true;
    p.hasHead = axisIndex(*e, AxisKind::Head) >= 0;
    const int hh = p.hasHead ? std::clamp(h, 0, headCount(*e) - 1) : 0;
    const int bb = std::clamp(b, 0, batchCount(*e) - 1);
    p.m = slice(tr, *e, bb, hh, &cfg);
    if (p.m.empty()) p.emptyMessage = StepPanels::tr("'%1' is empty.").arg(name);
    if (title.isEmpty() && p.hasHead) p.title += StepPanels::tr("  · head %1").arg(hh);

    const StepInfo s = stepInfo(tr, name);
    // Values in [0, 1] on a sequential scale; a mask hatches the cells `hatched` picks.
    const auto unitScale = [&p](const QString& caption) {
        p.mode = HeatmapWidget::ColorMode::Sequential;
        p.fixedRange = true;
        p.lo = 0.0f;
        p.hi = 1.0f;
        p.legendCaption = caption;
    };
    const auto hatch = [&p](auto hatched) {
        p.mask.resize(p.m.values.size());
        std::transform(p.m.values.begin(), p.m.values.end(), p.mask.begin(), [&](float v) { return hatched(v) ? 1.0f : 0.0f; });
    };
    if (e->role == Role::AttnMask) {
        // An additive mask: 0 or −∞. Its −∞ cells are drawn as masked (hatched), 0 as visible.
        unitScale(StepPanels::tr("additive mask"));
        hatch([](float v) { return v != 0.0f; });
    } else if (e->is_mask && keepsOnes(*e)) {
        // A mask that keeps its 1s: its 0 cells are the hatched ones.
        unitScale(StepPanels::tr("1 = keep, 0 = masked"));
        hatch([](float v) { return v == 0.0f; });
    } else if (e->is_mask) {
        unitScale(StepPanels::tr("1 = masked"));
        p.mask = p.m.values;
    } else if (e->role == Role::Softmax || e->role == Role::Probs) {
        unitScale(StepPanels::tr("probability"));
    } else if (e->role == Role::LossPerToken || e->role == Role::Loss) {
        p.mode = HeatmapWidget::ColorMode::Sequential;
        p.legendCaption = StepPanels::tr("loss");
    } else {
        p.mode = HeatmapWidget::ColorMode::Diverging;
        p.legendCaption = s.isGrad ? StepPanels::tr("gradient") : StepPanels::tr("value");
    }
    if (!s.isGrad && (s.role == Role::MaskedScores || s.role == Role::Softmax)) {
        const TraceEntry* maskEntry = graph::mask_of(tr, s.block);
        // PyTorch's mask is per head and additive (−∞ = masked): 1 where it hides the key.
        const Matrix mk = maskEntry ? slice(tr, *maskEntry, bb, hh, &cfg) : Matrix{};
        if (mk.rows == p.m.rows && mk.cols == p.m.cols) {
            p.mask = mk.values;
            if (maskEntry->role == Role::AttnMask)
                for (float& v : p.mask) v = v != 0.0f ? 1.0f : 0.0f;
        } else if (mk.rows == 1 && mk.cols == p.m.cols) {  // a [B, 1, S] pad mask, broadcast over the queries
            p.mask.clear();
            for (int r = 0; r < p.m.rows; ++r) p.mask.insert(p.mask.end(), mk.values.begin(), mk.values.end());
        }
        if (!p.mask.empty() && keepsOnes(*maskEntry))
            for (float& v : p.mask) v = v == 0.0f ? 1.0f : 0.0f;
    }
    if (!p.mask.empty()) {
        // What masked_fill wrote, as the block's masked scores say (−1e9, or nanoGPT's −inf).
        const TraceEntry* filled = s.isAttention() ? roleEntry(tr, s.block, Role::MaskedScores) : nullptr;
        const bool infinite = filled && filled->op == stepformer::Op::MaskFill && std::isinf(filled->attrs.fill);
        p.maskedExplanation =
            maskedExplanationFor(s, e->is_mask || e->role == Role::AttnMask, maskConvention(tr), infinite);
    }

    auto ctx = std::make_shared<CellTipContext>();
    ctx->tr = trp;
    ctx->cfg = cfg;
    ctx->name = name;
    ctx->s = s;
    ctx->isMask = e->is_mask || e->role == Role::AttnMask;
    ctx->b = bb;
    ctx->h = hh;
    ctx->m = p.m;
    ctx->mask = p.mask;
    const QString expl = p.maskedExplanation;
    p.tooltip = [ctx, expl](int r, int c) {
        QString t = cellTooltip(*ctx, r, c);
        if (!expl.isEmpty() && size_t(r) * ctx->m.cols + c < ctx->mask.size() && ctx->mask[size_t(r) * ctx->m.cols + c] != 0.0f &&
            !ctx->isMask)
            t += QStringLiteral("<br>") + expl;
        return t;
    };
    return p;
}

void applyPanel(HeatmapWidget* w, const PanelSpec& p) {
    const HeatmapWidget::Batch batch(w);  // one recolour and relayout for the whole panel
    w->setMatrix(p.m.rows, p.m.cols, p.m.values);
    w->setMask(p.mask);
    w->setRowLabels(p.m.rowLabels);
    w->setColLabels(p.m.colLabels);
    w->setRowAxisTitle(p.m.rowTitle);
    w->setColAxisTitle(p.m.colTitle);
    w->setTitle(p.title);
    w->setColorMode(p.mode);
    if (p.fixedRange)
        w->setValueRange(p.lo, p.hi);
    else
        w->clearValueRange();
    w->setLegendCaption(p.legendCaption);
    w->setMaskedExplanation(p.maskedExplanation);
    w->setTooltipFunction(p.tooltip);
    if (!p.emptyMessage.isEmpty()) w->setEmptyMessage(p.emptyMessage);
}

}  // namespace tensorviz
