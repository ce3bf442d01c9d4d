// The training curves (Qt Charts): the loss of every step with a smoothed line (exponential
// moving average, debiased like TensorBoard's), a log-scale toggle and hover tooltips naming the
// step and its value; below it a small chart of the gradient norm and the learning rate.
//
// Appends are cheap: addStep() only records the point; the series receive the new points in
// one batch at most every ~80 ms (or on flush()). Beyond kDisplayCap points the series are
// decimated (every k-th step, k doubling), the full data is kept.
//
// objectNames: lossChartView, statsChartView, logScaleCheck, smoothingSpin, lossValueLabel.
#pragma once

#include <array>

#include <vector>

#include <QList>
#include <QPointF>
#include <QString>
#include <QWidget>

class QChart;
class QChartView;
class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QAbstractAxis;
class QValueAxis;
class QTimer;
class QSplitter;
class QResizeEvent;

class LossChart : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDisplayCap = 5000;

    explicit LossChart(QWidget* parent = nullptr);

    void clear();
    // The x axis spans the whole run from the start (grows if more steps come).
    void setExpectedSteps(int steps);
    void addStep(int step, double loss, double gradNorm, double lr);
    void flush();  // pushes pending points into the series now

    int pointCount() const { return int(steps_.size()); }  // steps recorded
    int displayedPointCount() const;                        // points in the loss series
    double lastLoss() const { return loss_.empty() ? 0.0 : loss_.back(); }
    double smoothedLoss() const { return ema_.empty() ? 0.0 : ema_.back(); }

    bool logScale() const { return log_; }
    void setLogScale(bool on);
    double smoothing() const { return smoothing_; }
    void setSmoothing(double s);  // 0 = none .. 0.99

    // The tooltip text for the point nearest to `step`, e.g. "step 12\nloss 0.4321\n…".
    QString hoverText(double step) const;

    // The run's curve, one row per step: "step,loss,smoothed,grad_norm,lr" (9 significant digits).
    QString csv() const;
    // Saves csv() / the two charts as one PNG; false and *error (naming the path) when there are no
    // points yet or the file cannot be written (an existing file is kept).
    bool saveCsv(const QString& path, QString* error = nullptr) const;
    bool savePng(const QString& path, QString* error = nullptr);

    QChartView* lossView() const { return lossView_; }
    QChartView* statsView() const { return statsView_; }

protected:
    void changeEvent(QEvent* e) override;  // the theme: the charts' surfaces follow the palette
    void resizeEvent(QResizeEvent* e) override;  // the charts side by side where the panel is wide
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuildSeries();
    // The points of the raw loss, its average, the gradient norm and the learning rate from step
    // index `first` on (every stride_-th); marks them all flushed.
    using Points = std::array<QList<QPointF>, 4>;
    Points pointsFrom(size_t first);
    std::array<QLineSeries*, 4> series() const { return {raw_, smooth_, grad_s_, lr_s_}; }  // as Points
    void recomputeEma();
    void updateAxes();
    void updateValueLabel();
    void installLossAxis();
    int nearestIndex(double step) const;
    void showHover(int index, const QPoint& globalPos);
    void hideHover();
    void showExportMenu(const QPoint& globalPos);  // the charts' context menu (loss_chart_export.cpp)

    std::vector<double> steps_, loss_, ema_, grad_, lr_;
    size_t flushed_ = 0;  // data points already pushed to the series
    int stride_ = 1;      // decimation: every stride_-th point is shown
    int expected_ = 0;
    double lossMin_ = 0.0, lossMax_ = 0.0, gradMax_ = 0.0, lrMax_ = 0.0;
    double smoothing_ = 0.8;
    bool log_ = false;

    QChart *lossChart_ = nullptr, *statsChart_ = nullptr;
    QChartView *lossView_ = nullptr, *statsView_ = nullptr;
    QSplitter* split_ = nullptr;  // the two charts: one above the other, or side by side
    QLineSeries *raw_ = nullptr, *smooth_ = nullptr, *grad_s_ = nullptr, *lr_s_ = nullptr;
    QScatterSeries* marker_ = nullptr;
    QValueAxis *x_ = nullptr, *sx_ = nullptr, *gy_ = nullptr, *ly_ = nullptr;
    QAbstractAxis* y_ = nullptr;
    QCheckBox* logCheck_ = nullptr;
    QDoubleSpinBox* smoothSpin_ = nullptr;
    QLabel* valueLabel_ = nullptr;
    QTimer* flushTimer_ = nullptr;
};
