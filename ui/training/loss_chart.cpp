#include "training/loss_chart.h"
#include "widgets/theme_colors.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCursor>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QSplitter>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include "widgets/number_format.h"

namespace {

using numfmt::chartReadout;

const QColor kRaw(158, 197, 232);
const QColor kSmooth(31, 95, 168);
const QColor kGrad(224, 123, 0);
const QColor kLr(46, 139, 87);

// 1, 2, 5 x 10^k: the smallest such interval giving at most `maxTicks` ticks over `span`.
double niceInterval(double span, int maxTicks) {
    if (!(span > 0.0)) return 1.0;
    const double raw = span / std::max(1, maxTicks);
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return std::max(1.0, m * p);
    return std::max(1.0, 10.0 * p);
}

QLineSeries* lineSeries(const QString& name, const QPen& pen) {
    auto* s = new QLineSeries;
    s->setName(name);
    s->setPen(pen);
    return s;
}

// The chart's surfaces and the axes' neutral text in the palette's colours (light or dark theme);
// an axis drawn in a series' colour keeps it.
void paletteChart(QChart* c) {
    const QPalette pal = QApplication::palette();
    c->setBackgroundBrush(pal.color(QPalette::Base));
    c->setPlotAreaBackgroundVisible(false);
    c->legend()->setLabelColor(pal.color(QPalette::Text));
    const QColor grid = theme::isDark() ? pal.color(QPalette::Base).lighter(160) : QColor(225, 225, 225);
    const QColor minor = theme::isDark() ? pal.color(QPalette::Base).lighter(125) : QColor(242, 242, 242);
    for (QAbstractAxis* a : c->axes()) {
        a->setGridLineColor(grid);
        a->setMinorGridLineColor(minor);
        if (a->property("neutralColour").toBool()) {
            a->setTitleBrush(theme::quietText());
            a->setLabelsColor(theme::quietText());
        }
    }
}

void styleChart(QChart* c) {
    c->setMargins(QMargins(4, 4, 4, 4));
    c->setBackgroundRoundness(0);
    c->legend()->setAlignment(Qt::AlignTop);
    c->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    QFont f = c->legend()->font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    c->legend()->setFont(f);
    c->setAnimationOptions(QChart::NoAnimation);
}

void styleAxis(QAbstractAxis* a, const QString& title, const QColor& given = QColor()) {
    const QColor color = given.isValid() ? given : theme::quietText();
    a->setProperty("neutralColour", !given.isValid());
    a->setTitleText(title);
    QFont f = a->labelsFont();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    a->setLabelsFont(f);
    QFont t = a->titleFont();
    t.setPointSizeF(t.pointSizeF() * 0.85);
    t.setBold(false);
    a->setTitleFont(t);
    a->setTitleBrush(color);
    a->setLabelsColor(color);
    a->setGridLineColor(theme::isDark() ? QColor(80, 80, 84) : QColor(225, 225, 225));
    a->setMinorGridLineColor(theme::isDark() ? QColor(60, 60, 64) : QColor(242, 242, 242));
}


}  // namespace

LossChart::LossChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lossChart"));
    auto* outer = view_parts::makeColumn(this, 4, 0);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 0, 6, 0);
    valueLabel_ = view_parts::named(new QLabel(this), "lossValueLabel");
    valueLabel_->setTextFormat(Qt::RichText);
    bar->addWidget(valueLabel_, 1);
    bar->addWidget(new QLabel(tr("smoothing"), this));
    smoothSpin_ = view_parts::named(new QDoubleSpinBox(this), "smoothingSpin");
    smoothSpin_->setRange(0.0, 0.99);
    smoothSpin_->setSingleStep(0.05);
    smoothSpin_->setDecimals(2);
    smoothSpin_->setValue(smoothing_);
    smoothSpin_->setToolTip(tr("Weight of the past in the smoothed line (exponential moving average): 0 = the raw loss."));
    bar->addWidget(smoothSpin_);
    logCheck_ = view_parts::named(new QCheckBox(tr("log scale"), this), "logScaleCheck");
    logCheck_->setToolTip(tr("A logarithmic loss axis: late, small improvements stay visible."));
    bar->addWidget(logCheck_);
    outer->addLayout(bar);

    // --- loss ---
    lossChart_ = new QChart;
    styleChart(lossChart_);
    raw_ = lineSeries(tr("loss per step"), QPen(kRaw, 1.2));
    smooth_ = lineSeries(tr("smoothed"), QPen(kSmooth, 2.2));
    marker_ = new QScatterSeries;
    marker_->setMarkerSize(9);
    marker_->setColor(kSmooth);
    marker_->setBorderColor(Qt::white);
    lossChart_->addSeries(raw_);
    lossChart_->addSeries(smooth_);
    lossChart_->addSeries(marker_);
    for (QLegendMarker* m : lossChart_->legend()->markers(marker_)) m->setVisible(false);
    x_ = new QValueAxis;
    styleAxis(x_, tr("step"));
    x_->setLabelFormat(QStringLiteral("%d"));
    x_->setRange(0.0, 1.0);
    x_->setTickInterval(1.0);
    x_->setTickType(QValueAxis::TicksDynamic);
    x_->setTickAnchor(0);
    lossChart_->addAxis(x_, Qt::AlignBottom);
    for (QLineSeries* s : {raw_, smooth_}) s->attachAxis(x_);
    marker_->attachAxis(x_);
    installLossAxis();
    lossView_ = view_parts::named(new QChartView(lossChart_, this), "lossChartView");
    lossView_->setRenderHint(QPainter::Antialiasing);
    lossView_->setMouseTracking(true);
    lossView_->viewport()->setMouseTracking(true);
    lossView_->viewport()->installEventFilter(this);
    lossView_->setMinimumHeight(130);

    // --- gradient norm and learning rate ---
    statsChart_ = new QChart;
    styleChart(statsChart_);
    grad_s_ = lineSeries(tr("gradient norm"), QPen(kGrad, 1.5));
    lr_s_ = lineSeries(tr("learning rate"), QPen(kLr, 1.8, Qt::DashLine));
    statsChart_->addSeries(grad_s_);
    statsChart_->addSeries(lr_s_);
    sx_ = new QValueAxis;
    styleAxis(sx_, QString());
    sx_->setLabelFormat(QStringLiteral("%d"));
    sx_->setRange(0.0, 1.0);
    sx_->setTickInterval(1.0);
    sx_->setTickType(QValueAxis::TicksDynamic);
    sx_->setTickAnchor(0);
    gy_ = new QValueAxis;
    styleAxis(gy_, tr("‖grad‖"), kGrad.darker(120));
    gy_->setLabelFormat(QStringLiteral("%.3g"));
    gy_->setTickCount(3);
    ly_ = new QValueAxis;
    styleAxis(ly_, QString(), kLr.darker(120));  // the legend names it; a rotated "lr" gets clipped
    ly_->setLabelFormat(QStringLiteral("%.2g"));
    ly_->setTickCount(3);
    ly_->setGridLineVisible(false);
    statsChart_->addAxis(sx_, Qt::AlignBottom);
    statsChart_->addAxis(gy_, Qt::AlignLeft);
    statsChart_->addAxis(ly_, Qt::AlignRight);
    grad_s_->attachAxis(sx_);
    grad_s_->attachAxis(gy_);
    lr_s_->attachAxis(sx_);
    lr_s_->attachAxis(ly_);
    statsView_ = view_parts::named(new QChartView(statsChart_, this), "statsChartView");
    paletteChart(lossChart_);
    paletteChart(statsChart_);
    for (QChartView* v : {lossView_, statsView_}) {  // right click: save the curve as CSV or PNG
        v->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(v, &QWidget::customContextMenuRequested, this,
                [this, v](const QPoint& p) { showExportMenu(v->mapToGlobal(p)); });
    }
    statsView_->setRenderHint(QPainter::Antialiasing);
    statsView_->setMinimumHeight(110);

    split_ = view_parts::named(new QSplitter(Qt::Vertical, this), "lossChartSplit");
    split_->setChildrenCollapsible(false);
    split_->addWidget(lossView_);
    split_->addWidget(statsView_);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 1);
    outer->addWidget(split_, 1);

    flushTimer_ = new QTimer(this);
    flushTimer_->setSingleShot(true);
    flushTimer_->setInterval(80);
    connect(flushTimer_, &QTimer::timeout, this, &LossChart::flush);
    connect(logCheck_, &QCheckBox::toggled, this, &LossChart::setLogScale);
    connect(smoothSpin_, &QDoubleSpinBox::valueChanged, this, &LossChart::setSmoothing);
    for (QLineSeries* s : {raw_, smooth_})
        connect(s, &QLineSeries::hovered, this, [this](const QPointF& p, bool state) {
            if (state)
                showHover(nearestIndex(p.x()), QCursor::pos());
            else
                hideHover();
        });
    clear();
}

void LossChart::installLossAxis() {
    QAbstractAxis* old = y_;
    QAbstractAxis* y = nullptr;
    if (log_) {
        auto* a = new QLogValueAxis;
        a->setBase(10.0);
        a->setLabelFormat(QStringLiteral("%.3g"));
        a->setMinorTickCount(-1);
        y = a;
    } else {
        auto* a = new QValueAxis;
        a->setLabelFormat(QStringLiteral("%.3g"));
        a->setTickCount(6);
        y = a;
    }
    styleAxis(y, log_ ? tr("loss (log)") : tr("loss"));
    if (old) {
        for (QAbstractSeries* s : lossChart_->series()) s->detachAxis(old);
        lossChart_->removeAxis(old);
        delete old;
    }
    lossChart_->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : lossChart_->series()) s->attachAxis(y);
    y_ = y;
}

void LossChart::clear() {
    steps_.clear();
    loss_.clear();
    ema_.clear();
    grad_.clear();
    lr_.clear();
    flushed_ = 0;
    stride_ = 1;
    lossMin_ = lossMax_ = gradMax_ = lrMax_ = 0.0;
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{raw_, smooth_, grad_s_, lr_s_, marker_}) s->clear();
    if (flushTimer_) flushTimer_->stop();
    updateAxes();
    updateValueLabel();
}

void LossChart::setExpectedSteps(int steps) {
    expected_ = std::max(0, steps);
    updateAxes();
}

void LossChart::addStep(int step, double loss, double gradNorm, double lr) {
    steps_.push_back(step);
    loss_.push_back(loss);
    grad_.push_back(gradNorm);
    lr_.push_back(lr);
    // Debiased EMA: the start is not pulled towards 0.
    const size_t t = loss_.size();
    const double s = smoothing_;
    const double prevBiased = t > 1 ? ema_.back() * (1.0 - std::pow(s, double(t - 1))) : 0.0;
    const double biased = s * prevBiased + (1.0 - s) * loss;
    ema_.push_back(s > 0.0 ? biased / (1.0 - std::pow(s, double(t))) : loss);
    if (std::isfinite(loss)) {
        lossMin_ = t == 1 ? loss : std::min(lossMin_, loss);
        lossMax_ = t == 1 ? loss : std::max(lossMax_, loss);
    }
    if (std::isfinite(gradNorm)) gradMax_ = std::max(gradMax_, gradNorm);
    if (std::isfinite(lr)) lrMax_ = std::max(lrMax_, lr);
    if (!flushTimer_->isActive()) flushTimer_->start();
}

void LossChart::flush() {
    flushTimer_->stop();
    const size_t n = steps_.size();
    if (flushed_ >= n) return;
    // Decimate when the series would hold too many points: double the stride and rebuild once.
    if (size_t(raw_->count()) + (n - flushed_) / size_t(stride_) > size_t(kDisplayCap)) {
        while (n / size_t(stride_) > size_t(kDisplayCap) / 2) stride_ *= 2;
        rebuildSeries();
        return;
    }
    // One append per series: one repaint, not one per point.
    const Points pts = pointsFrom(flushed_);
    for (size_t i = 0; i < pts.size(); ++i) series()[i]->append(pts[i]);
    updateAxes();
    updateValueLabel();
}

LossChart::Points LossChart::pointsFrom(size_t first) {
    Points pts;
    const size_t n = steps_.size();
    for (size_t i = first; i < n; ++i) {
        if (i % size_t(stride_) != 0) continue;  // every stride_-th step is plotted
        const double x = steps_[i];
        const double y[4] = {loss_[i], ema_[i], grad_[i], lr_[i]};
        for (int k = 0; k < 4; ++k)
            if (std::isfinite(y[k])) pts[size_t(k)].append(QPointF(x, y[k]));  // Qt Charts warns on NaN and ∞
    }
    flushed_ = n;
    return pts;
}

void LossChart::rebuildSeries() {
    const Points pts = pointsFrom(0);
    const auto all = series();
    for (size_t i = 0; i < all.size(); ++i) all[i]->replace(pts[i]);
    updateAxes();
    updateValueLabel();
}

int LossChart::displayedPointCount() const { return raw_->count(); }

void LossChart::recomputeEma() {
    ema_.clear();
    double biased = 0.0;
    const double s = smoothing_;
    for (size_t t = 1; t <= loss_.size(); ++t) {
        biased = s * biased + (1.0 - s) * loss_[t - 1];
        ema_.push_back(s > 0.0 ? biased / (1.0 - std::pow(s, double(t))) : loss_[t - 1]);
    }
}

void LossChart::setSmoothing(double s) {
    s = std::clamp(s, 0.0, 0.99);
    if (std::abs(s - smoothing_) < 1e-12) return;
    smoothing_ = s;
    if (std::abs(smoothSpin_->value() - s) > 1e-9) {
        const QSignalBlocker b(smoothSpin_);
        smoothSpin_->setValue(s);
    }
    recomputeEma();
    rebuildSeries();
}

void LossChart::setLogScale(bool on) {
    if (on == log_) return;
    log_ = on;
    if (logCheck_->isChecked() != on) {
        const QSignalBlocker b(logCheck_);
        logCheck_->setChecked(on);
    }
    installLossAxis();
    updateAxes();
}

void LossChart::updateAxes() {
    const double lastStep = steps_.empty() ? 0.0 : steps_.back();
    const double xmax = std::max({double(expected_), lastStep, 1.0});
    const double interval = niceInterval(xmax, 8);
    for (QValueAxis* a : {x_, sx_}) {
        // Never pass through a state of many ticks (a small interval over a large range): every
        // tick is a graphics item.
        if (interval >= a->tickInterval()) {
            a->setTickInterval(interval);
            a->setRange(0.0, xmax);
        } else {
            a->setRange(0.0, xmax);
            a->setTickInterval(interval);
        }
    }
    if (!y_) return;
    if (log_) {
        const double lo = lossMin_ > 0.0 ? lossMin_ : 1e-3;
        const double hi = lossMax_ > lo ? lossMax_ : lo * 10.0;
        static_cast<QLogValueAxis*>(y_)->setRange(std::pow(10.0, std::floor(std::log10(lo))),
                                                  std::pow(10.0, std::ceil(std::log10(hi * 1.05))));
    } else {
        const double hi = lossMax_ > 0.0 ? lossMax_ * 1.05 : 1.0;
        auto* a = static_cast<QValueAxis*>(y_);
        a->setTickCount(6);
        a->setRange(0.0, hi);
        a->applyNiceNumbers();  // 0, 0.5, 1, ... rather than 0, 0.533, 1.07
    }
    gy_->setTickCount(3);
    gy_->setRange(0.0, gradMax_ > 0.0 ? gradMax_ * 1.05 : 1.0);
    gy_->applyNiceNumbers();
    ly_->setTickCount(3);
    ly_->setRange(0.0, lrMax_ > 0.0 ? lrMax_ * 1.25 : 1.0);
    ly_->applyNiceNumbers();
}

void LossChart::updateValueLabel() {
    if (steps_.empty()) {
        valueLabel_->setText(theme::themed(tr("<span style='color:#777'>The loss appears here, one point per optimizer step.</span>")));
        return;
    }
    valueLabel_->setText(theme::themed(tr("step <b>%1</b> · loss <b style='color:%4'>%2</b> · smoothed <b style='color:%5'>%3</b>")
                             .arg(int(steps_.back()))
                             .arg(chartReadout(loss_.back()), chartReadout(ema_.back()), kRaw.darker(150).name(), kSmooth.name())));
}

int LossChart::nearestIndex(double step) const {
    if (steps_.empty()) return -1;
    auto it = std::lower_bound(steps_.begin(), steps_.end(), step);
    if (it == steps_.end()) return int(steps_.size()) - 1;
    const int i = int(it - steps_.begin());
    if (i > 0 && std::abs(steps_[size_t(i) - 1] - step) <= std::abs(steps_[size_t(i)] - step)) return i - 1;
    return i;
}

QString LossChart::hoverText(double step) const {
    const int i = nearestIndex(step);
    if (i < 0) return {};
    const size_t k = size_t(i);
    return tr("step %1\nloss %2\nsmoothed %3\ngradient norm %4\nlearning rate %5")
        .arg(int(steps_[k]))
        .arg(chartReadout(loss_[k]), chartReadout(ema_[k]), chartReadout(grad_[k]), chartReadout(lr_[k]));
}

void LossChart::showHover(int index, const QPoint& globalPos) {
    if (index < 0) return hideHover();
    const size_t k = size_t(index);
    marker_->replace(QList<QPointF>{QPointF(steps_[k], loss_[k])});
    QToolTip::showText(globalPos, hoverText(steps_[k]), lossView_->viewport());
}

void LossChart::hideHover() {
    marker_->clear();
    QToolTip::hideText();
}

bool LossChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == lossView_->viewport()) {
        if (event->type() == QEvent::MouseMove) {
            auto* me = static_cast<QMouseEvent*>(event);
            const QPointF scene = lossView_->mapToScene(me->position().toPoint());
            const QPointF inChart = lossChart_->mapFromScene(scene);
            if (!steps_.empty() && lossChart_->plotArea().contains(inChart)) {
                const QPointF v = lossChart_->mapToValue(inChart, raw_);
                showHover(nearestIndex(v.x()), me->globalPosition().toPoint());
            } else {
                hideHover();
            }
        } else if (event->type() == QEvent::Leave) {
            hideHover();
        }
    }
    return QWidget::eventFilter(watched, event);
}

void LossChart::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange) {
        paletteChart(lossChart_);
        paletteChart(statsChart_);
    }
}

void LossChart::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // A wide, short panel (a dock under the views, a projector's training layout) stacked the
    // gradient-norm chart into a strip too low for its axis: side by side, both get the height.
    const Qt::Orientation want = width() >= 2 * height() ? Qt::Horizontal : Qt::Vertical;
    if (split_->orientation() == want) return;
    split_->setOrientation(want);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, want == Qt::Horizontal ? 2 : 1);
    const int total = want == Qt::Horizontal ? split_->width() : split_->height();
    split_->setSizes(want == Qt::Horizontal ? QList<int>{total * 3 / 5, total * 2 / 5}
                                            : QList<int>{total * 3 / 4, total / 4});
}
