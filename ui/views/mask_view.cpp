#include "views/mask_view.h"

#include <cmath>
#include <algorithm>

#include <QBoxLayout>
#include <QComboBox>
#include <QFrame>
#include <QLabel>
#include <QSpinBox>
#include <QTextDocument>

#include "steps/block_text.h"
#include "views/message_stack.h"
#include "views/view_parts.h"
#include "widgets/wrapped_label.h"
#include "widgets/heatmap_widget.h"
#include "steps/step_panels.h"
#include "stepformer/trace_graph.h"
#include "steps/tensor_slice.h"

using namespace tensorviz;

namespace {

QLabel* opLabel(const QString& text, QWidget* parent, double atLeast = 12.0, double grow = 2.0) {
    QLabel* l = view_parts::makeOpLabel(text, atLeast, grow, parent);
    l->setObjectName(QStringLiteral("opLabel"));
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    return l;
}

QFrame* separator(QWidget* parent) {
    auto* f = new QFrame(parent);
    f->setFrameShape(QFrame::VLine);
    f->setFrameShadow(QFrame::Plain);
    f->setStyleSheet(QStringLiteral("color: palette(mid);"));
    return f;
}

QString maskName(const stepformer::TraceEntry* e) { return e ? QString::fromStdString(e->name) : QString(); }

}  // namespace

MaskView::MaskView(QWidget* parent)
    : AttentionBlockView({stepformer::Stack::Decoder, stepformer::BlockKind::MaskedSelfAttention, 0}, parent, "maskView") {
    auto* root = makeWhitePage(6, 4);

    batchPicker_ = makeBatchPicker(this, tr("Which sentence of the batch to show"));
    makeBlockPickers(tr("The attention block whose masking is shown below"), tr("The layer whose masking is shown below"));
    headPicker_ = view_parts::makeHeadPicker(this, tr("The attention head whose scores are shown below"));
    QLayout* bar = view_parts::addPickerBar(root, this);
    bar->addWidget(view_parts::labelled(tr("Sentence:"), batchPicker_));
    bar->addWidget(view_parts::labelled(tr("Block:"), blockPicker_));
    bar->addWidget(view_parts::labelled(tr("Layer:"), layerPicker_));
    bar->addWidget(view_parts::labelled(tr("Head:"), headPicker_));

    messages_ = new MessageStack(this);
    auto* page = new QWidget(messages_);
    auto* pageLay = view_parts::makeColumn(page, 4);

    masksTitle_ = new QLabel(
        tr("<b>The masks</b> — 1 (dark, hatched) = masked: the query in that row may not look at the key in that column."),
        page);
    masksTitle_->setObjectName(QStringLiteral("masksTitle"));
    masksTitle_->setWordWrap(true);
    pageLay->addWidget(masksTitle_);

    auto* masksRow = new QHBoxLayout;
    masksRow->setSpacing(4);
    // Which mask fills each slot is read from the trace (assignMasks).
    const QStringList slotNames = {QStringLiteral("encoderPadMask"), QStringLiteral("decoderPadMask"),
                               QStringLiteral("subsequenceMask"), QStringLiteral("decoderSelfMask"),
                               QStringLiteral("encDecPadMask")};
    for (int i = 0; i < slotNames.size(); ++i) {
        auto* hm = new HeatmapWidget(page);
        hm->setObjectName(slotNames[i]);
        hm->setShowLegend(false);
        hm->setCompact(true);  // small multiples: the five fit beside each other in a 1366 px window
        masks_ << hm;
        maskNames_ << QString();
        if (i == 1 || i == 4) {
            QFrame* sep = separator(page);
            masksRow->addWidget(sep);
            if (i == 1) tutorialOnly_ << sep;
        }
        masksRow->addWidget(hm, 1);
        if (i == 1 || i == 2) tutorialOnly_ << hm;
        if (i == 1) masksRow->addWidget(tutorialOnly_.emplace_back(opLabel(QStringLiteral("OR"), page)));
        if (i == 2) masksRow->addWidget(tutorialOnly_.emplace_back(opLabel(QStringLiteral("="), page)));
    }
    pageLay->addLayout(masksRow, 4);

    flowTitle_ = view_parts::makeRichLabel(QStringLiteral("flowTitle"), page, view_parts::Selectable::No);
    pageLay->addWidget(flowTitle_);
    auto* flowRow = new QHBoxLayout;
    flowRow->setSpacing(6);
    scores_ = view_parts::makeHeatmap(QStringLiteral("scoresHeatmap"), page);
    masked_ = view_parts::makeHeatmap(QStringLiteral("maskedScoresHeatmap"), page);
    attn_ = view_parts::makeHeatmap(QStringLiteral("attnHeatmap"), page);
    flowRow->addWidget(scores_, 1);
    // Narrow (short lines, a point smaller) so that the three panels get the width at 1366 px.
    fillOp_ = opLabel(tr("masked_fill\n(mask,\n−1e9)\n→"), page, 10.0, 0.5);
    flowRow->addWidget(fillOp_);
    flowRow->addWidget(masked_, 1);
    flowRow->addWidget(opLabel(tr("softmax\n(each\nrow)\n→"), page, 10.0, 0.5));
    flowRow->addWidget(attn_, 1);
    pageLay->addLayout(flowRow, 8);

    messages_->setPage(page, QStringLiteral("noDataLabel"));
    root->addWidget(messages_, 1);

    onPicked(batchPicker_, [this](int i) { setBatchIndex(i); });
    onPicked(headPicker_, [this](int h) { setHeadIndex(h); });
    rebuild();
}

MaskView::~MaskView() = default;

void MaskView::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    StepView::setTrace(std::move(trace), config);
    // What the masks are is read from the graph: how they act, and whether the model traces the
    // tutorial's pad, subsequence and combined masks or makes one mask per attention block.
    const MaskConvention convention = trace_ ? maskConvention(*trace_) : MaskConvention::FillOnes;
    additive_ = convention == MaskConvention::Additive;
    keepOnes_ = convention == MaskConvention::FillZeros;
    // Per block: each attention block reads a mask of its own (PyTorch's merged masks, nanoGPT's
    // `bias` buffer), not one a stack made before its first layer.
    perBlock_ = false;
    if (trace_)
        for (const stepformer::Block& b : stepformer::graph::attention_blocks(*trace_))
            if (const auto* m = stepformer::graph::mask_of(*trace_, b)) {
                perBlock_ = m->block == b;
                break;
            }
    for (QWidget* w : tutorialOnly_) w->setVisible(!perBlock_);
    if (!perBlock_)
        for (auto* m : masks_) m->setVisible(true);
    fillOp_->setText(keepOnes_ && fillsInfinity() ? tr("masked_fill\n(mask == 0,\n−∞)\n→")
                     : keepOnes_                  ? tr("masked_fill\n(mask == 0,\n−1e9)\n→")
                     : additive_ ? tr("+ mask\n(0 / −∞)\n→")
                              : tr("masked_fill\n(mask,\n−1e9)\n→"));
    const bool hasSource = trace_ && !trace_->src_tokens.empty() && !trace_->src_tokens.front().empty();
    masksTitle_->setText(
        keepOnes_ && !hasSource
            ? tr("<b>The mask</b> — <b>1 = keep</b>, 0 (hatched) = masked: the opposite of the tutorial's. Each attention "
                 "block has its own causal mask: a word sees itself and the words before it, never a later one.")
        : keepOnes_ ? tr("<b>The masks</b>, this project's convention — <b>1 = keep</b>, 0 (hatched) = masked: the opposite "
                    "of the tutorial's. src_mask is one row for every query; slf_attn and enc_attn both read it.")
        : additive_ ? tr("<b>The masks</b>, PyTorch's convention — added to the scores: 0 = may attend, −∞ (hatched) = "
                    "ignored. Each block merges its attn_mask and key_padding_mask (True = ignore) into one.")
               : tr("<b>The masks</b> — 1 (dark, hatched) = masked: the query in that row may not look at the key in that column."));
    assignMasks();
    if (stepBeforeTrace_) {
        stepBeforeTrace_ = false;
        setStep(step_);  // a step given before the trace picks its block now
        return;
    }
    rebuild();
}

void MaskView::assignMasks() {
    using namespace stepformer;
    for (QString& n : maskNames_) n.clear();
    if (!trace_) return;
    if (perBlock_) {  // one additive mask per block: the picked layer's (layer 0 of the other stack)
        const auto maskAt = [&](Stack s, BlockKind k) {
            const int layer = block_.stack == s ? block_.layer : 0;
            return maskName(graph::mask_of(*trace_, Block{s, k, std::max(0, layer), traceNaming(*trace_)}));
        };
        maskNames_[0] = maskAt(Stack::Encoder, BlockKind::SelfAttention);
        maskNames_[3] = maskAt(Stack::Decoder, BlockKind::MaskedSelfAttention);
        maskNames_[4] = maskAt(Stack::Decoder, BlockKind::CrossAttention);
        return;
    }
    // The slots: the encoder's pad mask | the decoder's pad OR subsequence = its self-attention
    // mask | the decoder–encoder pad mask.
    const auto maskOfKind = [&](BlockKind k) -> const TraceEntry* {
        for (const Block& b : graph::attention_blocks(*trace_))
            if (b.kind == k) return graph::mask_of(*trace_, b);
        return nullptr;
    };
    const TraceEntry* self = maskOfKind(BlockKind::MaskedSelfAttention);
    maskNames_[0] = maskName(maskOfKind(BlockKind::SelfAttention));
    maskNames_[1] = maskName(self ? graph::input(*trace_, *self, 0) : nullptr);
    maskNames_[2] = maskName(self ? graph::input(*trace_, *self, 1) : nullptr);
    maskNames_[3] = maskName(self);
    maskNames_[4] = maskName(maskOfKind(BlockKind::CrossAttention));
}

void MaskView::setStep(const QString& traceName) {
    StepView::setStep(traceName);
    stepBeforeTrace_ = !trace_;
    if (trace_) {
        const StepInfo s = stepInfo(*trace_, traceName);
        if (s.isAttention() && s.layer() >= 0) {
            block_ = s.block;
        } else if (s.forward && s.forward->is_mask) {
            if (const auto blocks = stepformer::graph::blocks_masked_by(*trace_, s.forward->name); !blocks.empty()) {
                block_.stack = blocks.front().stack;
                block_.kind = blocks.front().kind;
            }
        }
    }
    rebuild();
}

bool MaskView::showsMaskStep() const { return !step_.isEmpty() && maskNames_.contains(step_); }

QString MaskView::currentTensorName() const {
    if (showsMaskStep()) return step_;
    return trace_ ? roleName(*trace_, block_, stepformer::Role::MaskedScores) : QString();
}

// What the block's masked_fill writes (its step's fill): −1e9, or nanoGPT's −inf.
bool MaskView::fillsInfinity() const {
    if (!trace_) return false;
    for (const stepformer::TraceEntry& e : trace_->entries())  // every block of a model fills alike
        if (e.role == stepformer::Role::MaskedScores && e.op == stepformer::Op::MaskFill) return std::isinf(e.attrs.fill);
    return false;
}

// The head size's axis name in the block's queries (d_k, head_dim, hs).
QString MaskView::headSizeName() const {
    const auto* q = trace_ ? stepformer::graph::find(*trace_, block_, stepformer::Role::Q) : nullptr;
    return q && q->axes.size() == 4 ? QString::fromStdString(q->axes[3].name) : QStringLiteral("d_k");
}

QString MaskView::flowTitle() const {
    QTextDocument doc;
    doc.setHtml(flowTitle_->text());
    return doc.toPlainText();
}

void MaskView::rebuild() {
    syncPickers(stepformer::Role::Scores);
    if (perBlock_) assignMasks();  // the picked layer's masks
    bool anyMask = false;
    if (trace_)
        for (const auto& n : maskNames_) anyMask = anyMask || (!n.isEmpty() && trace_->contains(n.toStdString()));
    if (!trace_ || !anyMask) {
        messages_->showMessage(!trace_ ? tr("No data yet — run the forward pass to see the masks.")
                                       : tr("No masks in this trace."));
        for (auto* m : masks_) m->clear();
        scores_->clear();
        masked_->clear();
        attn_->clear();
        return;
    }
    messages_->showPage();
    const QString ownMask = QString(maskNames_[3]).section(QLatin1Char('.'), -2);  // "attn.bias"
    const QStringList titles =
        keepOnes_ && perBlock_ ? QStringList{QString(), QString(), QString(), tr("%1 (causal, 1 = keep)").arg(ownMask), QString()}
        : keepOnes_ ? QStringList{tr("src_mask (slf_attn)"), QString(), QString(), tr("trg_mask (slf_attn, causal)"),
                               tr("src_mask (enc_attn)")}
        : additive_ ? QStringList{tr("encoder self_attn mask"), QString(), QString(), tr("decoder self_attn mask (causal)"),
                             tr("multihead_attn mask")}
               : QStringList{tr("encoder pad mask"), tr("decoder pad mask"), tr("subsequence mask"),
                             tr("decoder self-attn mask"), tr("decoder–encoder pad mask")};
    for (int i = 0; i < masks_.size(); ++i) {
        PanelSpec p = panelFor(trace_, config_, maskNames_[i], batch_, 0, titles[i]);
        if (!p.present) p.emptyMessage = tr("“%1” is not in this trace.").arg(maskNames_[i]);
        applyPanel(masks_[i], p);
        // Per block, a slot this model has no mask for (a decoder-only model's encoder and cross masks) goes.
        if (perBlock_) masks_[i]->setVisible(!maskNames_[i].isEmpty() && !tutorialOnly_.contains(masks_[i]));
        masks_[i]->setSelected(!maskNames_[i].isEmpty() && maskNames_[i] == step_);
        masks_[i]->setToolTip(maskNames_[i]);
    }

    using stepformer::Role;
    const QString scores = roleName(*trace_, block_, Role::Scores),
                  maskedScores = roleName(*trace_, block_, Role::MaskedScores),
                  attn = roleName(*trace_, block_, Role::Softmax);
    const bool queryScaled = !roleName(*trace_, block_, Role::ScaledQ).isEmpty();  // q / temperature, a step of its own
    const QString flow =
        keepOnes_ && !queryScaled
            ? tr("the scores before masking (<tt>(q · kᵀ) · (1/√%1)</tt>), after <tt>masked_fill(mask == 0, %2)</tt>, and "
                 "after the softmax — the masked (hatched) positions become exactly <b>0</b>.")
                  .arg(headSizeName(), fillsInfinity() ? QStringLiteral("−∞") : QStringLiteral("−1e9"))
        : keepOnes_ ? tr("the scores before masking (<tt>(q / temperature) · kᵀ</tt>), after <tt>masked_fill(mask == 0, "
                    "−1e9)</tt>, and after the softmax — the masked (hatched) positions become exactly <b>0</b>.")
        : additive_ ? tr("the scores before masking, <tt>scores + attn_mask</tt> (−∞ where a key is ignored), and after "
                    "the softmax — the ignored (hatched) positions become exactly <b>0</b>.")
               : tr("the scores before masking, after <tt>masked_fill_(attn_mask, −1e9)</tt>, and after the "
                    "softmax — the masked (hatched) positions become exactly <b>0</b>.");
    // A mask is made once per stack, before its first layer, and every layer uses it: at a mask's
    // step the title names no layer (the layer picker says whose scores are shown).
    if (showsMaskStep() && !perBlock_)  // PyTorch's masks are per block: the layer's own, titled below
        flowTitle_->setText(tr("<b>How every layer's %1 uses this mask</b> (the layer picked above, head %2, sentence %3): "
                               "%4")
                                .arg(blockTitle(block_))
                                .arg(head_)
                                .arg(batch_)
                                .arg(flow));
    else
        flowTitle_->setText(tr("<b>Masking in layer %1's %2, head %3</b> (sentence %4): %5")
                                .arg(block_.layer)
                                .arg(blockTitle(block_))
                                .arg(head_)
                                .arg(batch_)
                                .arg(flow));
    // The head is named in the flow title above (in each panel's title too, they wrapped into
    // three lines in a 1366 px window).
    PanelSpec ps = panelFor(trace_, config_, scores, batch_, head_,
                            keepOnes_ && !queryScaled ? tr("1. scores = (q·kᵀ)/√%1").arg(headSizeName())
                            : keepOnes_   ? tr("1. scores = (q/√d_k)·kᵀ")
                            : additive_ ? tr("1. scores: q·kᵀ/√head_dim")
                                     : tr("1. scores = QKᵀ/√d_k"));
    // Mark where the mask will hit before it does.
    if (ps.present) {
        PanelSpec pm = panelFor(trace_, config_, maskedScores, batch_, head_);
        if (pm.mask.size() == ps.m.values.size()) {
            ps.mask = pm.mask;
            ps.maskedExplanation = keepOnes_ && fillsInfinity() ? tr("<i>The mask is 0 here: the next step replaces this score by <b>−∞</b>.</i>")
                                   : keepOnes_ ? tr("<i>The mask is 0 here: the next step replaces this score by <b>−1e9</b>.</i>")
                                   : additive_ ? tr("<i>The mask is −∞ here: the next step adds it to this score.</i>")
                                          : tr("<i>The mask is 1 here: the next step replaces this score by <b>−1e9</b>.</i>");
        }
    }
    applyPanel(scores_, ps);
    applyPanel(masked_, panelFor(trace_, config_, maskedScores, batch_, head_,
                                 additive_ ? tr("2. scores + mask") : tr("2. masked scores")));
    applyPanel(attn_, panelFor(trace_, config_, attn, batch_, head_, tr("3. attn = softmax")));
    for (auto* w : {scores_, masked_, attn_}) w->setValueText(HeatmapWidget::ValueText::Auto);
}
