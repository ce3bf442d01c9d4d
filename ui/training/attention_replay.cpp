#include "training/attention_replay.h"
#include "widgets/theme_colors.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "steps/block_text.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"

using stepformer::BlockKind;
using tensorviz::blockTitle;
using tensorviz::blockWord;

namespace {

constexpr BlockKind kAttentionKinds[] = {BlockKind::SelfAttention, BlockKind::MaskedSelfAttention,
                                         BlockKind::CrossAttention};

// The height the page keeps for the rest (the sentence, pickers, the enlarged head, the epoch
// slider) before it shows the heads' thumbnails too.
constexpr int kRoomForTheMap = 230;

}  // namespace

AttentionReplay::AttentionReplay(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("attentionReplay"));
    auto* outer = view_parts::makeColumn(this, 6, 6);

    sentence_ = view_parts::makeWrappingLabel(QStringLiteral("replaySentenceLabel"), this);
    outer->addWidget(sentence_);

    auto* pickers = new QHBoxLayout;
    pickers->addWidget(new QLabel(tr("Layer"), this));
    layerPicker_ = view_parts::named(new QComboBox(this), "replayLayerPicker");
    pickers->addWidget(layerPicker_);
    pickers->addSpacing(8);
    pickers->addWidget(new QLabel(tr("Block"), this));
    blockPicker_ = view_parts::named(new QComboBox(this), "replayBlockPicker");
    for (const BlockKind k : kAttentionKinds)
        blockPicker_->addItem(QStringLiteral("%1 (%2)").arg(blockTitle(k), blockWord(k)), blockWord(k));
    pickers->addWidget(blockPicker_);
    pickers->addSpacing(8);
    pickers->addWidget(new QLabel(tr("Head"), this));
    headPicker_ = view_parts::named(new QComboBox(this), "replayHeadPicker");
    pickers->addWidget(headPicker_);
    pickers->addStretch(1);
    outer->addLayout(pickers);

    auto* thumbScroll = thumbScroll_ = new QScrollArea(this);
    thumbScroll->setFrameShape(QFrame::NoFrame);
    thumbScroll->setWidgetResizable(true);
    thumbScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    thumbScroll->setFixedHeight(128);
    thumbBox_ = new QWidget(thumbScroll);
    thumbLayout_ = new QHBoxLayout(thumbBox_);
    thumbLayout_->setContentsMargins(0, 0, 0, 0);
    thumbLayout_->setSpacing(6);
    thumbLayout_->addStretch(1);
    thumbScroll->setWidget(thumbBox_);
    outer->addWidget(thumbScroll);

    map_ = view_parts::named(new HeatmapWidget(this), "replayHeatmap");
    map_->setColorMode(HeatmapWidget::ColorMode::Sequential);
    map_->setValueRange(0.0f, 1.0f);
    map_->setLegendCaption(tr("attention weight"));
    map_->setMaskedExplanation(tr("A masked position: the mask set its score to −1e9 before the softmax, so it gets "
                                  "no attention."));
    map_->setEmptyMessage(tr("Start training: after every epoch the attention of the replay sentence is kept here."));
    outer->addWidget(map_, 1);

    auto* bar = new QHBoxLayout;
    play_ = view_parts::named(new QToolButton(this), "playButton");
    play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    play_->setToolTip(tr("Play the epochs"));
    play_->setAutoRaise(true);
    bar->addWidget(play_);
    slider_ = view_parts::named(new QSlider(Qt::Horizontal, this), "epochSlider");
    slider_->setTickPosition(QSlider::TicksBelow);
    slider_->setPageStep(5);
    bar->addWidget(slider_, 1);
    epochLabel_ = view_parts::named(new QLabel(this), "epochLabel");
    epochLabel_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("epoch 000 / 000 · mean loss 0.00000")));
    bar->addWidget(epochLabel_);
    outer->addLayout(bar);

    playTimer_ = new QTimer(this);
    playTimer_->setInterval(350);
    connect(playTimer_, &QTimer::timeout, this, [this] {
        if (index_ + 1 >= int(snaps_.size())) {
            togglePlay();
            return;
        }
        setEpochIndex(index_ + 1);
    });
    refreshTimer_ = new QTimer(this);
    refreshTimer_->setSingleShot(true);
    refreshTimer_->setInterval(60);
    connect(refreshTimer_, &QTimer::timeout, this, [this] {
        dirty_ = false;
        syncPickers();
        render();
    });
    connect(play_, &QToolButton::clicked, this, &AttentionReplay::togglePlay);
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        if (!updating_) setEpochIndex(v);
    });
    connect(layerPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setBlock(blockWord(kind_), i);
    });
    connect(blockPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setBlock(blockPicker_->itemData(i).toString(), layer_);
    });
    connect(headPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setHead(i);
    });
    clear();
}

void AttentionReplay::clear() {
    if (playTimer_->isActive()) togglePlay();
    refreshTimer_->stop();
    dirty_ = false;
    snaps_.clear();
    index_ = -1;
    syncPickers();
    render();
}

void AttentionReplay::addSnapshot(std::shared_ptr<const AttentionSnapshot> snapshot) {
    if (!snapshot) return;
    const bool follow = index_ < 0 || index_ == int(snaps_.size()) - 1;
    snaps_.push_back(std::move(snapshot));
    if (snaps_.size() == 1) {
        // The last layer's decoder-encoder attention by default: the clearest alignment.
        int layers = 0;
        for (const auto& b : snaps_.front()->blocks) layers = std::max(layers, b.layer + 1);
        layer_ = std::max(0, layers - 1);
    }
    if (follow && !playTimer_->isActive()) index_ = int(snaps_.size()) - 1;
    scheduleRefresh();
}

void AttentionReplay::scheduleRefresh() {
    dirty_ = true;
    if (isVisible() && !refreshTimer_->isActive()) refreshTimer_->start();
}

void AttentionReplay::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (dirty_) {
        dirty_ = false;
        syncPickers();
        render();
    }
}

const AttentionSnapshot* AttentionReplay::currentSnapshot() const {
    return index_ >= 0 && index_ < int(snaps_.size()) ? snaps_[size_t(index_)].get() : nullptr;
}

int AttentionReplay::currentEpoch() const {
    const auto* s = currentSnapshot();
    return s ? s->epoch : -1;
}

void AttentionReplay::setEpochIndex(int index) {
    if (snaps_.empty()) return;
    index = std::clamp(index, 0, int(snaps_.size()) - 1);
    if (index == index_) return;
    index_ = index;
    syncPickers();
    render();
    emit epochChanged(currentEpoch());
}

QString AttentionReplay::blockKind() const { return blockWord(kind_); }

void AttentionReplay::setBlock(const QString& kind, int layer) {
    kind_ = tensorviz::blockKindOfWord(kind);
    layer_ = std::max(0, layer);
    syncPickers();
    render();
}

void AttentionReplay::setHead(int head) {
    head_ = std::max(0, head);
    syncPickers();
    render();
}

bool AttentionReplay::isPlaying() const { return playTimer_->isActive(); }

void AttentionReplay::togglePlay() {
    if (playTimer_->isActive()) {
        playTimer_->stop();
        play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
        play_->setToolTip(tr("Play the epochs"));
    } else {
        if (snaps_.size() < 2) return;
        if (index_ >= int(snaps_.size()) - 1) setEpochIndex(0);
        playTimer_->start();
        play_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
        play_->setToolTip(tr("Pause"));
    }
}

void AttentionReplay::syncPickers() {
    updating_ = true;
    const AttentionSnapshot* s = currentSnapshot();
    int layers = 0, heads = 0;
    if (s)
        for (const auto& b : s->blocks) {
            layers = std::max(layers, b.layer + 1);
            heads = std::max(heads, b.heads);
        }
    if (layers > 0) layer_ = std::min(layer_, layers - 1);
    if (heads > 0) head_ = std::min(head_, heads - 1);
    if (layerPicker_->count() != layers) {
        layerPicker_->clear();
        for (int l = 0; l < layers; ++l) layerPicker_->addItem(QString::number(l));
    }
    layerPicker_->setCurrentIndex(layers > 0 ? layer_ : -1);
    blockPicker_->setCurrentIndex(blockPicker_->findData(blockWord(kind_)));
    if (headPicker_->count() != heads) {
        headPicker_->clear();
        for (int h = 0; h < heads; ++h) headPicker_->addItem(QString::number(h));  // 0-based like every view
    }
    headPicker_->setCurrentIndex(heads > 0 ? head_ : -1);
    slider_->setRange(0, std::max(0, int(snaps_.size()) - 1));
    slider_->setTickInterval(std::max(1, int(snaps_.size()) / 20));
    slider_->setValue(std::max(0, index_));
    slider_->setEnabled(snaps_.size() > 1);
    play_->setEnabled(snaps_.size() > 1);
    layerPicker_->setEnabled(layers > 0);
    headPicker_->setEnabled(heads > 0);
    if (thumbs_.size() != heads) rebuildThumbs(heads);
    updating_ = false;
}

void AttentionReplay::rebuildThumbs(int heads) {
    for (HeatmapWidget* t : thumbs_) t->deleteLater();
    thumbs_.clear();
    for (int h = 0; h < heads; ++h) {
        auto* t = new HeatmapWidget(thumbBox_);
        t->setObjectName(QStringLiteral("replayThumb%1").arg(h));
        t->setCompact(true);
        t->setColorMode(HeatmapWidget::ColorMode::Sequential);
        t->setValueRange(0.0f, 1.0f);
        t->setValueText(HeatmapWidget::ValueText::Never);
        t->setFixedSize(124, 124);  // room for the token labels
        t->setToolTip(tr("Head %1: click to enlarge").arg(h));
        connect(t, &HeatmapWidget::clicked, this, [this, h] { setHead(h); });
        thumbLayout_->insertWidget(thumbLayout_->count() - 1, t);
        thumbs_ << t;
    }
}

void AttentionReplay::fillMap(HeatmapWidget* w, const AttentionSnapshot& s, const AttentionBlockMap& m, int head) {
    // Encoder self-attention relates source tokens; the decoder's self-attention target tokens
    // (and masks later ones); the cross attention target queries to source keys.
    const bool encSelf = m.kind == BlockKind::SelfAttention;
    const bool decSelf = m.kind == BlockKind::MaskedSelfAttention;
    const QStringList& q = encSelf ? s.srcTokens : s.tgtTokens;
    const QStringList& k = decSelf ? s.tgtTokens : s.srcTokens;
    std::vector<float> values(m.head(head), m.head(head) + size_t(m.rows) * size_t(m.cols));
    std::vector<float> mask(values.size(), 0.0f);
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) {
            const bool pad = c < k.size() && k[c] == s.pad;
            if (pad || (decSelf && c > r)) mask[size_t(r) * size_t(m.cols) + size_t(c)] = 1.0f;
        }
    w->setMatrix(m.rows, m.cols, std::move(values));
    w->setMask(std::move(mask));
    // The thumbnails too: their tokens, not positions 0..n-1.
    w->setRowLabels(q.mid(0, m.rows));
    w->setColLabels(k.mid(0, m.cols));
}

void AttentionReplay::render() {
    const AttentionSnapshot* s = currentSnapshot();
    if (!s) {
        map_->clear();
        sentence_->setText(theme::themed(tr("<span style='color:#777'>No attention kept yet.</span>")));
        epochLabel_->setText(tr("no epochs yet"));
        for (HeatmapWidget* t : thumbs_) t->clear();
        return;
    }
    sentence_->setText(theme::themed(tr("Replay sentence: <b>%1</b> → <b>%2</b>")
                           .arg(s->srcTokens.join(QLatin1Char(' ')).toHtmlEscaped(),
                                s->tgtTokens.join(QLatin1Char(' ')).toHtmlEscaped())));
    const int last = snaps_.back()->epoch;
    QString el = s->epoch == 0 ? tr("epoch 0 / %1 · initial weights").arg(last)
                               : tr("epoch %1 / %2").arg(s->epoch).arg(last);
    if (std::isfinite(s->meanLoss)) el += tr(" · mean loss %1").arg(numfmt::chartReadout(s->meanLoss));
    epochLabel_->setText(el);
    const AttentionBlockMap* m = s->find(kind_, layer_);
    if (!m || m->heads == 0) {
        map_->clear();
        map_->setEmptyMessage(tr("This snapshot has no %1 in layer %2.").arg(blockWord(kind_)).arg(layer_));
        return;
    }
    const int h = std::min(head_, m->heads - 1);
    fillMap(map_, *s, *m, h);
    const bool decSelf = kind_ == BlockKind::MaskedSelfAttention;
    map_->setRowAxisTitle(kind_ == BlockKind::SelfAttention ? tr("query (source token)") : tr("query (target token)"));
    map_->setColAxisTitle(decSelf ? tr("key (target token)") : tr("key (source token)"));
    map_->setTitle(tr("%1 · layer %2 · head %3 · %4")
                       .arg(blockTitle(kind_))
                       .arg(layer_)
                       .arg(h)
                       .arg(s->epoch == 0 ? tr("before training") : tr("after epoch %1").arg(s->epoch)));
    for (int i = 0; i < thumbs_.size() && i < m->heads; ++i) {
        fillMap(thumbs_[i], *s, *m, i);
        thumbs_[i]->setTitle(tr("head %1").arg(i));
        thumbs_[i]->setSelected(i == h);
    }
    // Thumbnails as large as their tokens need (every row and label shown, no scroll bar in them),
    // the strip as tall as they are.
    QSize thumb(124, 124);
    for (HeatmapWidget* t : thumbs_) thumb = thumb.expandedTo(t->minimumSizeHint());
    for (HeatmapWidget* t : thumbs_) t->setFixedSize(thumb);
    thumbScroll_->setFixedHeight(thumb.height() + thumbScroll_->horizontalScrollBar()->sizeHint().height());
}

void AttentionReplay::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    thumbScroll_->setVisible(height() - thumbScroll_->height() >= kRoomForTheMap);
}

QSize AttentionReplay::minimumSizeHint() const {
    QSize s = QWidget::minimumSizeHint();
    if (!thumbScroll_->isHidden()) s.rheight() -= thumbScroll_->height() + layout()->spacing();
    return s;
}
