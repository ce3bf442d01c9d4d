#include "explain/device_agreement.h"
#include "app/core_text.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

#include <QApplication>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTextDocument>
#include <QVBoxLayout>

#include "steps/tensor_slice.h"
#include "widgets/flow_layout.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"
#include "widgets/wrapped_label.h"

using stepformer::TraceEntry;

namespace {

// The difference heatmap's floor: low, because the box's minimum adds to the explain dock's and a
// 1366x768 screen has little height to spare (the heatmap scrolls).
constexpr int kHeatmapMinHeight = 60;

// "2 560": thousands set apart by a narrow no-break space, so a count never breaks across lines.
QString grouped(int64_t n) {
    QString digits = QString::number(n < 0 ? -n : n);
    for (int i = int(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, QChar(0x202F));
    return n < 0 ? QStringLiteral("−") + digits : digits;
}

// A flat index as the tensor's indices: "[0, 3, 1, 2]".
QString indexText(const stepformer::Shape& shape, int64_t flat) {
    QStringList parts;
    for (size_t d = shape.size(); d-- > 0;) {
        const int64_t n = std::max<int64_t>(shape[d], 1);
        parts.prepend(QString::number(flat % n));
        flat /= n;
    }
    return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
}

}  // namespace

QString DeviceAgreement::settingsKey() { return QStringLiteral("explain/showDeviceDifference"); }

DeviceAgreement::DeviceAgreement(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("deviceAgreement"));
    setFrameShape(QFrame::StyledPanel);
    setToolTip(tr("Which device computed this pass, and how far its numbers are from the CPU's"));

    auto* column = view_parts::makeColumn(this, 4, QMargins(10, 6, 10, 6));

    label_ = view_parts::named(new WrappedLabel(this), "agreementLabel");
    label_->setTextFormat(Qt::RichText);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setToolTip(
        tr("<p>The same pass computed on the CPU backend (the reference) and compared number by number with "
           "this step's tensor.</p>"
           "<p><b>max |Δ|</b>: the largest |GPU − CPU| of a number.<br>"
           "<b>max relative</b>: max |Δ| ÷ the largest |CPU| number of the tensor — the difference measured "
           "against the tensor's scale (dividing number by number would explode where the CPU's number is "
           "near 0).<br>"
           "<b>differ</b>: the numbers that are not exactly equal.</p>"
           "<p>NaN and ∞ are never part of max |Δ|: they are counted and reported on their own line.</p>"));
    column->addWidget(label_);

    // Button and toggle wrap onto two lines in a narrow dock instead of widening it.
    auto* controls = view_parts::named(new QWidget(this), "agreementControls");
    auto* flow = new FlowLayout(controls, 8, 4);
    flow->setContentsMargins(0, 0, 0, 0);
    compareButton_ = view_parts::named(new QPushButton(tr("Compare with the CPU"), controls), "compareWithCpuButton");
    compareButton_->setToolTip(tr("Compute this pass again on the CPU backend (the reference) and compare every "
                                  "step's numbers with this device's. Takes about as long as the pass; done once "
                                  "per pass."));
    toggle_ = view_parts::named(new QCheckBox(tr("Show the difference"), controls), "showDifferenceToggle");
    toggle_->setToolTip(tr("Show GPU − CPU for this step as a heatmap: white = equal, red = the GPU's number is "
                           "larger, blue = smaller; where float rounding differs"));
    toggle_->setChecked(QSettings().value(settingsKey(), false).toBool());
    flow->addWidget(compareButton_);
    flow->addWidget(toggle_);
    column->addWidget(controls);

    pane_ = view_parts::named(new QWidget(this), "differencePane");
    pane_->setToolTip(tr("GPU − CPU for this step's numbers"));
    auto* paneColumn = view_parts::makeColumn(pane_, 2, QMargins(0, 2, 0, 0));
    sliceNote_ = view_parts::named(new WrappedLabel(pane_), "differenceSliceNote");
    sliceNote_->setTextFormat(Qt::PlainText);
    sliceNote_->setToolTip(tr("Which part of the tensor the heatmap shows, and where its largest difference is"));
    QFont small = sliceNote_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    sliceNote_->setFont(small);
    sliceNote_->setTextColor(palette().color(QPalette::PlaceholderText));
    headRow_ = new QWidget(pane_);
    auto* headLayout = new QHBoxLayout(headRow_);
    headLayout->setContentsMargins(0, 0, 0, 0);
    auto* headLabel = new QLabel(tr("Head:"), headRow_);
    headPicker_ = view_parts::named(new QSpinBox(headRow_), "differenceHeadPicker");
    headPicker_->setToolTip(tr("Which attention head of the difference to show (the n_heads axis)"));
    headLabel->setToolTip(headPicker_->toolTip());
    headLabel->setBuddy(headPicker_);
    headLayout->addWidget(headLabel);
    headLayout->addWidget(headPicker_);
    headLayout->addStretch(1);
    paneColumn->addWidget(headRow_);
    paneColumn->addWidget(sliceNote_);
    heatmap_ = view_parts::named(new HeatmapWidget(pane_), "differenceHeatmap");
    heatmap_->setToolTip(tr("GPU − CPU, number by number (hover a cell for both numbers)"));
    heatmap_->setColorMode(HeatmapWidget::ColorMode::Diverging);
    heatmap_->setLegendCaption(tr("GPU − CPU"));
    // The heatmap scrolls and zooms: it may be narrower and shorter than its labels want, never
    // wider than the dock, and never so tall that the panel outgrows a short screen.
    heatmap_->setMinimumSize(100, kHeatmapMinHeight);
    heatmap_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    paneColumn->addWidget(heatmap_);
    column->addWidget(pane_);

    connect(compareButton_, &QPushButton::clicked, this, &DeviceAgreement::compare);
    connect(toggle_, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(settingsKey(), on);
        refreshDifference();
    });
    connect(headPicker_, &QSpinBox::valueChanged, this, &DeviceAgreement::setDifferenceHead);

    refresh();
}

void DeviceAgreement::setTrace(std::shared_ptr<const stepformer::Trace> shown, const QString& deviceLabel,
                               ReferenceFn reference) {
    shown_ = std::move(shown);
    device_ = deviceLabel;
    referenceFn_ = std::move(reference);
    asked_ = false;
    reference_.reset();
    referenceError_.clear();
    setStep(step_);
}

void DeviceAgreement::setStep(const QString& traceName) {
    step_ = traceName;
    diff_.reset();
    missing_.clear();
    if (reference_ && shown_ && !step_.isEmpty()) {
        const std::string name = step_.toStdString();
        const TraceEntry* a = shown_->find(name);
        const TraceEntry* b = reference_->find(name);
        if (!a)
            missing_ = tr("“%1” is not in this pass").arg(step_);
        else if (!b)
            missing_ = tr("“%1” is not in the CPU’s pass").arg(step_);
        else
            diff_ = stepformer::agreement::compare(a->value, b->value);
    }
    refresh();
}

void DeviceAgreement::setDifferenceHead(int head) {
    if (head == head_) return;
    head_ = std::max(0, head);
    refreshDifference();
}

void DeviceAgreement::compare() {
    if (asked_ || !shown_ || device_.isEmpty() || !referenceFn_) return;
    asked_ = true;
    label_->setText(tr("Computed on <b>%1</b><br>computing the same pass on the CPU…").arg(device_.toHtmlEscaped()));
    label_->repaint();  // the CPU pass blocks the event loop
    {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        const auto restore = qScopeGuard([] { QApplication::restoreOverrideCursor(); });
        try {
            reference_ = referenceFn_();
            if (!reference_) referenceError_ = tr("it gave no trace");
        } catch (const std::exception& e) {
            referenceError_ = coreText(e);
        } catch (...) {
            referenceError_ = tr("an unknown error");
        }
    }
    referenceFn_ = nullptr;  // once per pass; it may hold a model
    setStep(step_);
    emit compareFinished(reference_ != nullptr);
}

QString DeviceAgreement::summary() const {
    QTextDocument doc;
    doc.setHtml(label_->text());
    return doc.toPlainText();
}

QString DeviceAgreement::figuresText() const {
    if (!asked_) return tr("Press <i>Compare with the CPU</i> to see how far this step is from the CPU’s numbers.");
    if (!reference_) return tr("Could not compute the pass on the CPU: %1").arg(referenceError_.toHtmlEscaped());
    if (step_.isEmpty()) return tr("vs CPU: choose a step to compare it.");
    if (!missing_.isEmpty()) return tr("vs CPU: %1.").arg(missing_.toHtmlEscaped());
    if (!diff_) return {};
    const stepformer::agreement::TensorDiff& d = *diff_;
    if (!d.ok()) return tr("vs CPU: cannot compare — %1.").arg(QString::fromStdString(d.error).toHtmlEscaped());

    QString text;
    if (d.bitIdentical)
        text = tr("identical to the CPU (bit for bit)");
    else if (d.differing == 0)
        text = tr("the same values as the CPU (not bit for bit: the sign of a zero or a NaN’s bits differ)");
    else
        text = tr("vs CPU: max |Δ| %1, max relative %2 (%3 of %4 numbers differ)")
                   .arg(numfmt::tensorStat(d.maxAbs), numfmt::tensorStat(d.maxRel), grouped(d.differing), grouped(d.count));
    if (d.nonFiniteMismatch > 0) {
        const QString count = d.nonFiniteMismatch == 1
                                  ? tr("1 number is NaN or ∞ on one side only")
                                  : tr("%1 numbers are NaN or ∞ on one side only").arg(grouped(d.nonFiniteMismatch));
        const QString detail = tr("(GPU: %1 NaN, %2 ∞; CPU: %3 NaN, %4 ∞); max |Δ| is over the finite numbers.")
                                   .arg(grouped(d.nanA), grouped(d.infA), grouped(d.nanB), grouped(d.infB));
        text += QStringLiteral("<br><span style='color:#b3261e'><b>%1</b> %2</span>").arg(count, detail);
    } else if (d.hasNonFinite()) {
        text += QStringLiteral("<br>") + tr("Both have NaN or ∞ at the same places (%1 NaN, %2 ∞); max "
                                            "|Δ| is over the finite numbers.")
                                             .arg(grouped(d.nanA), grouped(d.infA));
    }
    return text;
}

void DeviceAgreement::refresh() {
    const bool on = shown_ && !device_.isEmpty();
    setVisible(on);
    if (!on) {
        pane_->hide();
        return;
    }
    label_->setText(tr("Computed on <b>%1</b><br>%2").arg(device_.toHtmlEscaped(), figuresText()));
    compareButton_->setVisible(!asked_);
    compareButton_->setEnabled(static_cast<bool>(referenceFn_));
    const bool canShow = diff_ && diff_->ok() && diff_->count > 0;
    toggle_->setEnabled(canShow);
    refreshDifference();
}

void DeviceAgreement::refreshDifference() {
    const bool show = toggle_->isChecked() && diff_ && diff_->ok() && diff_->count > 0 && shown_ && reference_;
    const TraceEntry* a = show ? shown_->find(step_.toStdString()) : nullptr;
    const TraceEntry* b = show ? reference_->find(step_.toStdString()) : nullptr;
    pane_->setVisible(a && b);
    if (!a || !b) return;

    // A trace entry of the difference, so it is sliced and labelled as the step itself.
    TraceEntry d;
    d.name = a->name;
    d.role = a->role;
    d.axes = a->axes;
    d.value = diff_->difference;
    const int heads = tensorviz::headCount(*a);
    head_ = std::clamp(head_, 0, heads - 1);
    {
        const QSignalBlocker block(headPicker_);
        headPicker_->setRange(0, heads - 1);
        headPicker_->setValue(head_);
    }
    headRow_->setVisible(heads > 1);

    // (B, H, Lq, Lk) and the like: sentence 0 and the chosen head, as the tensor view cuts them.
    const tensorviz::Matrix m = tensorviz::slice(*shown_, d, 0, head_, nullptr);
    const tensorviz::Matrix ma = tensorviz::slice(*shown_, *a, 0, head_, nullptr);
    const tensorviz::Matrix mb = tensorviz::slice(*reference_, *b, 0, head_, nullptr);
    {
        HeatmapWidget::Batch batch(heatmap_);
        heatmap_->setMatrix(m.rows, m.cols, m.values);
        heatmap_->setRowLabels(m.rowLabels);
        heatmap_->setColLabels(m.colLabels);
        heatmap_->setRowAxisTitle(m.rowTitle);
        heatmap_->setColAxisTitle(m.colTitle);
        heatmap_->setColorMode(HeatmapWidget::ColorMode::Diverging);
        heatmap_->setTooltipFunction([m, ma, mb](int r, int c) {
            if (r < 0 || c < 0 || r >= m.rows || c >= m.cols || ma.rows != m.rows || mb.rows != m.rows) return QString();
            const QString where = QStringLiteral("%1 · %2").arg(m.rowLabels.value(r), m.colLabels.value(c));
            return QStringLiteral("<b>%1</b><br>%2<br>%3<br>%4")
                .arg(where.toHtmlEscaped(), tr("GPU: %1").arg(numfmt::exact(ma.at(r, c))),
                     tr("CPU: %1").arg(numfmt::exact(mb.at(r, c))),
                     tr("GPU − CPU: %1").arg(numfmt::exact(m.at(r, c))));
        });
    }

    // Which slice, in the tutorial's axis names, and where in the whole tensor the worst number is.
    QStringList fixed;
    for (const auto& axis : a->axes)
        if (axis.kind == stepformer::AxisKind::Batch)
            fixed << tr("%1 = 0").arg(QString::fromStdString(axis.name));
        else if (axis.kind == stepformer::AxisKind::Head && heads > 1)
            fixed << tr("%1 = %2").arg(QString::fromStdString(axis.name)).arg(head_);
    QStringList note;
    if (!fixed.isEmpty()) note << tr("Showing the slice %1 (the first sentence).").arg(fixed.join(QStringLiteral(", ")));
    if (diff_->maxAbsIndex >= 0)
        note << tr("Largest |Δ| of the whole tensor at %1.").arg(indexText(d.value.shape, diff_->maxAbsIndex));
    sliceNote_->setText(note.join(QLatin1Char(' ')));
    sliceNote_->setVisible(!note.isEmpty());
    // Up to what a few token rows want, where the panel has the room (the explanation below
    // scrolls); down to kHeatmapMinHeight where it has not.
    heatmap_->setMaximumHeight(std::clamp(heatmap_->sizeHint().height(), kHeatmapMinHeight, 260));
}
