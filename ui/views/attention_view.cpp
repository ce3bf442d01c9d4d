#include "views/attention_view.h"

#include "stepformer/trace_names.h"

#include <algorithm>

#include <QBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>

#include "views/attention_lines_widget.h"
#include "views/attention_overview.h"
#include "views/message_stack.h"
#include "views/view_parts.h"
#include "widgets/wrapped_label.h"
#include "widgets/heatmap_widget.h"
#include "steps/block_text.h"
#include "steps/step_panels.h"
#include "steps/tensor_slice.h"

using namespace tensorviz;

QString AttentionView::modeSettingsKey() { return QStringLiteral("view/attentionMode"); }

QString AttentionView::modeKey(Mode m) { return m == Mode::AllLayers ? QStringLiteral("all") : QStringLiteral("one"); }

std::optional<AttentionView::Mode> AttentionView::modeFromKey(const QString& key) {
    const QString k = key.trimmed().toLower();
    if (k == QLatin1String("one")) return Mode::OneLayer;
    if (k == QLatin1String("all")) return Mode::AllLayers;
    return std::nullopt;
}

AttentionView::AttentionView(QWidget* parent)
    : AttentionBlockView({stepformer::Stack::Encoder, stepformer::BlockKind::SelfAttention, 0}, parent, "attentionView") {
    auto* root = makeWhitePage(6, 4);

    makeBlockPickers(tr("Which attention block: the encoder's self-attention, the decoder's masked "
                        "self-attention, or the decoder–encoder attention"),
                     tr("Which layer (n_layers) of the encoder or decoder"));
    modeSwitch_ = view_parts::named(new QComboBox(this), "attentionModeSwitch");
    modeSwitch_->addItem(tr("One layer"), int(Mode::OneLayer));
    modeSwitch_->addItem(tr("All layers"), int(Mode::AllLayers));
    modeSwitch_->setToolTip(tr("One layer: its heads, one enlarged, and the lines between the tokens.\n"
                               "All layers: every layer × every head of the block at once (click a cell to enlarge it)."));
    batchPicker_ = makeBatchPicker(this, tr("Which sentence of the batch to show"));
    headPicker_ = view_parts::makeHeadPicker(this, tr("The enlarged head (or click one of the small heatmaps)"));
    allHeadsToggle_ = view_parts::named(new QCheckBox(tr("All heads"), this), "allHeadsLinesToggle");
    allHeadsToggle_->setToolTip(tr("Line view: draw every head's lines at once, one colour per head"));
    QLayout* bar = view_parts::addPickerBar(root, this);
    bar->addWidget(view_parts::labelled(tr("Show:"), modeSwitch_));
    bar->addWidget(view_parts::labelled(tr("Block:"), blockPicker_));
    bar->addWidget(view_parts::labelled(tr("Layer:"), layerPicker_));
    bar->addWidget(view_parts::labelled(tr("Sentence:"), batchPicker_));
    bar->addWidget(view_parts::labelled(tr("Head:"), headPicker_));
    bar->addWidget(allHeadsToggle_);

    titleLabel_ = view_parts::makeRichLabel(QStringLiteral("attentionTitle"), this, view_parts::Selectable::No);
    view_parts::enlargeFont(titleLabel_, 10.5, 0.0);
    root->addWidget(titleLabel_);

    messages_ = new MessageStack(this);
    // The two modes' pages in one box, one of them hidden: the hidden one asks for no room.
    auto* modes = view_parts::named(new QWidget(messages_), "attentionModes");
    auto* modesBox = new QVBoxLayout(modes);
    modesBox->setContentsMargins(0, 0, 0, 0);
    auto* splitter = new QSplitter(Qt::Horizontal, modes);
    oneLayerPage_ = splitter;
    splitter->setObjectName(QStringLiteral("attentionSplitter"));
    splitter->setChildrenCollapsible(false);
    auto* thumbsScroll = thumbsScroll_ = new QScrollArea(splitter);
    thumbsScroll->setObjectName(QStringLiteral("headThumbsScroll"));
    thumbsScroll->setWidgetResizable(true);
    thumbsScroll->setFrameShape(QFrame::NoFrame);
    thumbsHost_ = new QWidget;
    thumbsHost_->setObjectName(QStringLiteral("headThumbs"));
    thumbsGrid_ = new QGridLayout(thumbsHost_);
    thumbsGrid_->setContentsMargins(0, 0, 0, 0);
    thumbsGrid_->setSpacing(4);  // two columns of heads at 1366 px
    thumbsScroll->setWidget(thumbsHost_);
    thumbsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    thumbsScroll->viewport()->installEventFilter(this);
    enlarged_ = view_parts::makeHeatmap(QStringLiteral("enlargedHeatmap"), splitter);
    lines_ = new AttentionLinesWidget(splitter);
    splitter->addWidget(thumbsScroll);
    splitter->addWidget(enlarged_);
    splitter->addWidget(lines_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 4);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({380, 420, 320});
    overview_ = new AttentionOverview(modes);
    modesBox->addWidget(splitter);
    modesBox->addWidget(overview_);
    messages_->setPage(modes, QStringLiteral("noDataLabel"));
    root->addWidget(messages_, 1);

    onPicked(modeSwitch_, [this](int i) {
        setMode(Mode(modeSwitch_->itemData(i).toInt()));
        QSettings().setValue(modeSettingsKey(), modeKey(mode_));
    });
    connect(overview_, &AttentionOverview::cellActivated, this, &AttentionView::enlarge);
    onPicked(batchPicker_, [this](int i) { setBatchIndex(i); });
    onPicked(headPicker_, [this](int h) { setHeadIndex(h); });
    connect(allHeadsToggle_, &QCheckBox::toggled, this, [this] { updateSelection(); });
    // Linked hovering: a token in the line view outlines its row / column in the matrix, and a
    // cell of the matrix highlights its query's lines.
    connect(lines_, &AttentionLinesWidget::tokenHovered, this, [this](bool querySide, int i) {
        enlarged_->setHighlightedRow(querySide ? i : -1);
        enlarged_->setHighlightedCol(querySide ? -1 : i);
    });
    connect(enlarged_, &HeatmapWidget::cellHovered, this, [this](int r, int) {
        const QSignalBlocker block(lines_);
        lines_->setHighlight(true, r);
        enlarged_->setHighlightedRow(-1);
        enlarged_->setHighlightedCol(-1);
    });

    mode_ = modeFromKey(QSettings().value(modeSettingsKey()).toString()).value_or(Mode::OneLayer);
    showMode();
    rebuild();
}

AttentionView::~AttentionView() = default;

void AttentionView::setMode(Mode m) {
    if (m == mode_) return;
    mode_ = m;
    showMode();
    rebuild();
}

void AttentionView::showMode() {
    const bool all = mode_ == Mode::AllLayers;
    {
        const QSignalBlocker block(modeSwitch_);
        modeSwitch_->setCurrentIndex(modeSwitch_->findData(int(mode_)));
    }
    allHeadsToggle_->setVisible(!all);  // the lines are the one layer's
    oneLayerPage_->setVisible(!all);
    overview_->setVisible(all);
}

void AttentionView::enlarge(int layer, int head) {
    if (head >= 0) head_ = head;
    mode_ = Mode::OneLayer;
    QSettings().setValue(modeSettingsKey(), modeKey(mode_));
    showMode();
    if (layer != block_.layer)
        setBlock(blockKind(), layer);  // rebuilds, and says which entry is shown now
    else
        rebuild();
    emit headChanged(head_);
}

void AttentionView::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    StepView::setTrace(std::move(trace), config);
    if (trace_ && !pendingStep_.isEmpty()) {
        const StepInfo s = stepInfo(*trace_, pendingStep_);
        if (s.isAttention() && s.layer() >= 0) block_ = s.block;
        pendingStep_.clear();
    }
    rebuild();
}

void AttentionView::setStep(const QString& traceName) {
    // Only an attention step of another block changes what is shown (the trace comes with setTrace).
    if (!trace_) {
        pendingStep_ = traceName;
        return;
    }
    const StepInfo s = stepInfo(*trace_, traceName);
    if (!s.isAttention() || s.layer() < 0 || s.block == block_) return;
    block_ = s.block;
    rebuild();
}

QString AttentionView::currentTensorName() const {
    return trace_ ? roleName(*trace_, block_, stepformer::Role::Softmax) : QString();
}

void AttentionView::setHeadIndex(int h) {
    h = std::clamp(h, 0, headPicker_->maximum());
    if (h == head_) return;
    head_ = h;
    updateSelection();
    emit headChanged(head_);
}

void AttentionView::rebuild() {
    const int heads = syncPickers(stepformer::Role::Softmax);
    allHeadsToggle_->setEnabled(heads > 1);
    const QString block = currentBlock();
    const stepformer::TraceEntry* e = trace_ ? trace_->find(currentTensorName().toStdString()) : nullptr;
    if (!trace_ || !e || e->value.empty()) {
        titleLabel_->clear();
        messages_->showMessage(!trace_ ? tr("No data yet — run the forward pass to see the attention weights.")
                                       : tr("No attention weights for the %1 of layer %2 in this trace.")
                                             .arg(blockTitle(block_))
                                             .arg(block_.layer));
        for (auto* t : thumbs_) t->clear();
        overview_->setAttention(nullptr, config_, block_.stack, block_.kind, batch_);
        enlarged_->clear();
        lines_->clear();
        headValues_.clear();
        return;
    }
    const int H = headCount(*e);
    head_ = std::clamp(head_, 0, H - 1);
    if (mode_ == Mode::AllLayers) {
        rebuildOverview();
        return;
    }
    titleLabel_->setText(tr("<b>Layer %1 · %2</b> — <tt>%3.attn</tt>, sentence %4. Each row is a query, each column a "
                            "key; every row sums to 1. Click a head to enlarge it; hover a token on the right to see its lines.")
                             .arg(block_.layer)
                             .arg(blockTitle(block_), block.toHtmlEscaped())
                             .arg(batch_));

    // Small multiples: reuse the widgets, create/delete only when the number of heads changes.
    while (thumbs_.size() > H) {
        HeatmapWidget* t = thumbs_.takeLast();
        t->hide();
        t->deleteLater();
    }
    while (thumbs_.size() < H) {
        const int h = int(thumbs_.size());
        auto* t = new HeatmapWidget(thumbsHost_);
        t->setObjectName(QStringLiteral("headThumb%1").arg(h));
        t->setCompact(true);
        t->setValueText(HeatmapWidget::ValueText::Never);
        t->setToolTip(tr("Head %1: click to enlarge").arg(h));
        connect(t, &HeatmapWidget::clicked, this, [this, h] { setHeadIndex(h); });
        thumbs_ << t;
    }
    headValues_.clear();
    for (int h = 0; h < H; ++h) {
        const PanelSpec p = panelFor(trace_, config_, currentTensorName(), batch_, h, tr("head %1").arg(h));
        applyPanel(thumbs_[h], p);
        headValues_.push_back(p.m.values);
    }
    thumbColumns_ = 0;
    placeThumbs();
    messages_->showPage();
    updateSelection();
}

bool AttentionView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == thumbsScroll_->viewport() && event->type() == QEvent::Resize) placeThumbs();
    return AttentionBlockView::eventFilter(watched, event);
}

void AttentionView::placeThumbs() {
    if (thumbs_.isEmpty()) return;
    const int spacing = thumbsGrid_->horizontalSpacing();
    const int thumbW = thumbs_.first()->minimumSizeHint().width();
    // One column at least, beside a vertical scroll bar.
    thumbsScroll_->setMinimumWidth(thumbW + thumbsGrid_->contentsMargins().right() +
                                   thumbsScroll_->verticalScrollBar()->sizeHint().width() + 2);
    const int avail = thumbsScroll_->viewport()->width() - thumbsGrid_->contentsMargins().right();
    const int columns = std::clamp((avail + spacing) / std::max(1, thumbW + spacing), 1, int(thumbs_.size()));
    if (columns == thumbColumns_) return;
    thumbColumns_ = columns;
    for (auto* t : thumbs_) thumbsGrid_->removeWidget(t);
    for (int h = 0; h < thumbs_.size(); ++h) thumbsGrid_->addWidget(thumbs_[h], h / columns, h % columns);
    // The heads keep their height; a tall window's room goes below them (stretched, a head's
    // selection frame ran down the whole column on a 1440-px screen).
    const int rows = (int(thumbs_.size()) + columns - 1) / columns;
    for (int r = 0; r < thumbsGrid_->rowCount(); ++r) thumbsGrid_->setRowStretch(r, r < rows ? 0 : 1);
    thumbsGrid_->setRowStretch(rows, 1);
}

void AttentionView::rebuildOverview() {
    // The block's entries of every layer, e.g. "decoder.layers.*.dec_enc_attn.attn", in the model's naming.
    const stepformer::names::Parsed parsed = stepformer::names::parse(currentTensorName().toStdString());
    const QString entries = QString::fromStdString(stepformer::names::every_layer(parsed.block, parsed.leaf));
    titleLabel_->setText(tr("<b>All layers · %1</b> — <tt>%2</tt>, sentence %3: a row per layer, a column per "
                            "head and their mean (each cell: queries × keys). Click a cell to enlarge it.")
                             .arg(blockTitle(block_), entries.toHtmlEscaped())
                             .arg(batch_));
    overview_->setAttention(trace_, config_, block_.stack, block_.kind, batch_);
    messages_->showPage();
    updateSelection();
}

void AttentionView::updateSelection() {
    if (mode_ == Mode::AllLayers) {
        overview_->setSelected(block_.layer, head_);
        const bool blocked = headPicker_->blockSignals(true);
        headPicker_->setValue(head_);
        headPicker_->blockSignals(blocked);
        return;
    }
    if (!trace_ || thumbs_.isEmpty() || messages_->showsMessage()) return;
    for (int h = 0; h < thumbs_.size(); ++h) thumbs_[h]->setSelected(h == head_);
    PanelSpec p = panelFor(trace_, config_, currentTensorName(), batch_, head_,
                           tr("Layer %1 · %2 · head %3").arg(block_.layer).arg(blockTitle(block_)).arg(head_));
    p.m.rowTitle = tr("query: ") + p.m.rowTitle;
    p.m.colTitle = tr("key: ") + p.m.colTitle;
    applyPanel(enlarged_, p);
    {
        const bool blocked = headPicker_->blockSignals(true);
        headPicker_->setValue(head_);
        headPicker_->blockSignals(blocked);
    }
    std::vector<std::vector<float>> heads;
    std::vector<int> ids;
    if (allHeadsToggle_->isChecked()) {
        heads = headValues_;
        for (int h = 0; h < int(headValues_.size()); ++h) ids.push_back(h);
    } else {
        heads.push_back(p.m.values);
        ids.push_back(head_);
    }
    lines_->setAttention(p.m.rowLabels, p.m.colLabels, std::move(heads), std::move(ids));
    lines_->setMask(p.mask);
    lines_->setTitle(allHeadsToggle_->isChecked() ? tr("All heads (opacity = weight)")
                                                  : tr("Head %1 (opacity = weight)").arg(head_));
}
