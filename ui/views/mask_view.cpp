#include "views/mask_view.h"
#include "widgets/wrapped_label.h"

#include <algorithm>

#include <QBoxLayout>
#include <QComboBox>
#include <QFrame>
#include <QLabel>
#include <QSpinBox>
#include <QStackedWidget>

#include "steps/block_text.h"
#include "widgets/heatmap_widget.h"
#include "steps/step_panels.h"
#include "stepformer/trace_graph.h"
#include "steps/tensor_slice.h"

using namespace tensorviz;

namespace {

QLabel* opLabel(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setObjectName(QStringLiteral("opLabel"));
    QFont f = l->font();
    f.setPointSizeF(std::max(12.0, f.pointSizeF() + 2.0));
    f.setBold(true);
    l->setFont(f);
    l->setAlignment(Qt::AlignCenter);
    l->setStyleSheet(QStringLiteral("color: #3a3a3a;"));
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    return l;
}

QFrame* separator(QWidget* parent) {
    auto* f = new QFrame(parent);
    f->setFrameShape(QFrame::VLine);
    f->setFrameShadow(QFrame::Plain);
    f->setStyleSheet(QStringLiteral("color: #cccccc;"));
    return f;
}

QString maskName(const stepformer::TraceEntry* e) { return e ? QString::fromStdString(e->name) : QString(); }

}  // namespace

MaskView::MaskView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("maskView"));
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(4);

    auto* bar = new QHBoxLayout;
    bar->setSpacing(6);
    batchPicker_ = makeBatchPicker(this, tr("Which sentence of the batch to show"));
    blockPicker_ = new QComboBox(this);
    blockPicker_->setObjectName(QStringLiteral("blockPicker"));
    blockPicker_->setToolTip(tr("The attention block whose masking is shown below"));
    fillBlockPicker(blockPicker_);
    layerPicker_ = new QComboBox(this);
    layerPicker_->setMinimumContentsLength(7);  // "Layer 5" stays readable in a crowded bar
    layerPicker_->setObjectName(QStringLiteral("layerPicker"));
    layerPicker_->setToolTip(tr("The layer whose masking is shown below"));
    headPicker_ = new QSpinBox(this);
    headPicker_->setObjectName(QStringLiteral("headPicker"));
    headPicker_->setToolTip(tr("The attention head whose scores are shown below"));
    auto label = [this](const QString& t, QWidget* buddy) {
        auto* l = new QLabel(t, this);
        l->setBuddy(buddy);
        return l;
    };
    bar->addWidget(label(tr("Sentence:"), batchPicker_));
    bar->addWidget(batchPicker_);
    bar->addSpacing(8);
    bar->addWidget(label(tr("Block:"), blockPicker_));
    bar->addWidget(blockPicker_);
    bar->addWidget(label(tr("Layer:"), layerPicker_));
    bar->addWidget(layerPicker_);
    bar->addWidget(label(tr("Head:"), headPicker_));
    bar->addWidget(headPicker_);
    bar->addStretch(1);
    root->addLayout(bar);

    stack_ = new QStackedWidget(this);
    auto* page = new QWidget(stack_);
    auto* pageLay = new QVBoxLayout(page);
    pageLay->setContentsMargins(0, 0, 0, 0);
    pageLay->setSpacing(4);

    auto* masksTitle = new QLabel(
        tr("<b>The masks</b> \u2014 1 (dark, hatched) = masked: the query in that row may not look at the key in that column."),
        page);
    masksTitle->setObjectName(QStringLiteral("masksTitle"));
    masksTitle->setWordWrap(true);
    pageLay->addWidget(masksTitle);

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
        hm->setMinimumSize(120, 160);  // the five fit beside each other in a 1440 px window
        masks_ << hm;
        maskNames_ << QString();
        if (i == 1 || i == 4) masksRow->addWidget(separator(page));
        masksRow->addWidget(hm, 1);
        if (i == 1) masksRow->addWidget(opLabel(QStringLiteral("OR"), page));
        if (i == 2) masksRow->addWidget(opLabel(QStringLiteral("="), page));
    }
    pageLay->addLayout(masksRow, 5);

    flowTitle_ = new WrappedLabel(page);
    flowTitle_->setObjectName(QStringLiteral("flowTitle"));
    flowTitle_->setTextFormat(Qt::RichText);
    pageLay->addWidget(flowTitle_);
    auto* flowRow = new QHBoxLayout;
    flowRow->setSpacing(6);
    scores_ = new HeatmapWidget(page);
    scores_->setObjectName(QStringLiteral("scoresHeatmap"));
    masked_ = new HeatmapWidget(page);
    masked_->setObjectName(QStringLiteral("maskedScoresHeatmap"));
    attn_ = new HeatmapWidget(page);
    attn_->setObjectName(QStringLiteral("attnHeatmap"));
    flowRow->addWidget(scores_, 1);
    flowRow->addWidget(opLabel(tr("masked_fill\n(mask, \u22121e9)\n\u2192"), page));
    flowRow->addWidget(masked_, 1);
    flowRow->addWidget(opLabel(tr("softmax\n(each row)\n\u2192"), page));
    flowRow->addWidget(attn_, 1);
    pageLay->addLayout(flowRow, 7);

    messageLabel_ = new QLabel(stack_);
    messageLabel_->setObjectName(QStringLiteral("noDataLabel"));
    messageLabel_->setAlignment(Qt::AlignCenter);
    messageLabel_->setWordWrap(true);
    QFont mf = messageLabel_->font();
    mf.setPointSizeF(std::max(12.0, mf.pointSizeF() + 2.0));
    messageLabel_->setFont(mf);
    messageLabel_->setStyleSheet(QStringLiteral("color: #666;"));
    stack_->addWidget(page);
    stack_->addWidget(messageLabel_);
    root->addWidget(stack_, 1);

    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, QColor(255, 255, 255));
    setPalette(pal);

    connect(batchPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setBatchIndex(i);
    });
    connect(blockPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setBlock(blockWord(stepformer::BlockKind(blockPicker_->itemData(i).toInt())), block_.layer);
    });
    connect(layerPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setBlock(blockKind(), i);
    });
    connect(headPicker_, &QSpinBox::valueChanged, this, [this](int h) {
        if (!updating_) setHeadIndex(h);
    });
    rebuild();
}

MaskView::~MaskView() = default;

void MaskView::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    trace_ = std::move(trace);
    config_ = config;
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
    step_ = traceName;
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

QString MaskView::currentBlock() const { return blockName(block_); }

QString MaskView::blockKind() const { return blockWord(block_.kind); }

QString MaskView::currentTensorName() const {
    if (!step_.isEmpty() && maskNames_.contains(step_)) return step_;
    return trace_ ? roleName(*trace_, block_, stepformer::Role::MaskedScores) : QString();
}

const stepformer::Tensor* MaskView::currentTensor() const {
    if (!trace_) return nullptr;
    const auto* e = trace_->find(currentTensorName().toStdString());
    return e ? &e->value : nullptr;
}

bool MaskView::hasData() const { return stack_->currentIndex() == 0; }

QString MaskView::message() const { return stack_->currentIndex() == 1 ? messageLabel_->text() : QString(); }

void MaskView::setBlock(const QString& word, int layer) {
    const stepformer::BlockKind kind = blockKindOfWord(word);
    if (kind != stepformer::BlockKind::SelfAttention && kind != stepformer::BlockKind::MaskedSelfAttention &&
        kind != stepformer::BlockKind::CrossAttention)
        return;
    if (kind == block_.kind && layer == block_.layer) return;
    block_ = trace_ ? attentionBlockOf(*trace_, kind, std::max(0, layer))
                    : stepformer::Block{block_.stack, kind, std::max(0, layer)};
    rebuild();
}

void MaskView::setBatchIndex(int b) {
    b = std::max(0, b);
    if (b == batch_) return;
    batch_ = b;
    rebuild();
}

void MaskView::setHeadIndex(int h) {
    h = std::max(0, h);
    if (h == head_) return;
    head_ = h;
    rebuild();
}

void MaskView::syncPickers() {
    updating_ = true;
    syncBlockLayerPickers(blockPicker_, layerPicker_, trace_.get(), block_);
    syncBatchPicker(batchPicker_, trace_.get(), batch_);
    int H = 0;
    if (trace_)
        if (const auto* e = roleEntry(*trace_, block_, stepformer::Role::Scores))
            H = axisSize(*e, stepformer::AxisKind::Head);
    headPicker_->setRange(0, std::max(0, H - 1));
    head_ = std::clamp(head_, 0, std::max(0, H - 1));
    headPicker_->setValue(head_);
    headPicker_->setEnabled(H > 1);
    updating_ = false;
}

void MaskView::rebuild() {
    syncPickers();
    bool anyMask = false;
    if (trace_)
        for (const auto& n : maskNames_) anyMask = anyMask || (!n.isEmpty() && trace_->contains(n.toStdString()));
    if (!trace_ || !anyMask) {
        messageLabel_->setText(!trace_ ? tr("No data yet \u2014 run the forward pass to see the masks.")
                                       : tr("No masks in this trace."));
        stack_->setCurrentIndex(1);
        for (auto* m : masks_) m->clear();
        scores_->clear();
        masked_->clear();
        attn_->clear();
        return;
    }
    stack_->setCurrentIndex(0);
    const QStringList titles = {tr("encoder pad mask"), tr("decoder pad mask"), tr("subsequence mask"),
                                tr("decoder self-attn mask"), tr("decoder\u2013encoder pad mask")};
    for (int i = 0; i < masks_.size(); ++i) {
        PanelSpec p = panelFor(trace_, config_, maskNames_[i], batch_, 0, titles[i]);
        if (!p.present) p.emptyMessage = tr("\u201c%1\u201d is not in this trace.").arg(maskNames_[i]);
        applyPanel(masks_[i], p);
        masks_[i]->setSelected(!maskNames_[i].isEmpty() && maskNames_[i] == step_);
        masks_[i]->setToolTip(maskNames_[i]);
    }

    using stepformer::Role;
    const QString scores = roleName(*trace_, block_, Role::Scores),
                  maskedScores = roleName(*trace_, block_, Role::MaskedScores),
                  attn = roleName(*trace_, block_, Role::Softmax);
    flowTitle_->setText(tr("<b>Masking in layer %1's %2, head %3</b> (sentence %4): the scores before masking, after "
                           "<tt>masked_fill_(attn_mask, \u22121e9)</tt>, and after the softmax \u2014 the masked (hatched) "
                           "positions become exactly <b>0</b>.")
                            .arg(block_.layer)
                            .arg(blockTitle(block_.kind))
                            .arg(head_)
                            .arg(batch_));
    const QString headTag = tr("  \u00b7 head %1").arg(head_);
    PanelSpec ps = panelFor(trace_, config_, scores, batch_, head_, tr("1. scores = QK\u1d40/\u221ad_k") + headTag);
    // Mark where the mask will hit before it does.
    if (ps.present) {
        PanelSpec pm = panelFor(trace_, config_, maskedScores, batch_, head_);
        if (pm.mask.size() == ps.m.values.size()) {
            ps.mask = pm.mask;
            ps.maskedExplanation = tr("<i>The mask is 1 here: the next step replaces this score by <b>\u22121e9</b>.</i>");
        }
    }
    applyPanel(scores_, ps);
    applyPanel(masked_, panelFor(trace_, config_, maskedScores, batch_, head_,
                                 tr("2. masked scores") + headTag));
    applyPanel(attn_, panelFor(trace_, config_, attn, batch_, head_, tr("3. attn = softmax") + headTag));
    for (auto* w : {scores_, masked_, attn_}) w->setValueText(HeatmapWidget::ValueText::Auto);
}
