// The positional-encoding view: the sinusoidal table as a heatmap (positions x dimensions,
// length and d_model adjustable), a line chart of chosen dimensions against position (the
// sin/cos curves), and the sum token embedding + PE = encoder (or decoder) input for batch
// item 0 of the current trace. The table is computed by stepformer::positional_table; this
// widget only draws.
#pragma once

#include <memory>

#include <QColor>
#include <QList>
#include <QString>

#include "stepformer/tensor.h"
#include "views/step_view.h"

class QChart;
class QChartView;
class QValueAxis;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class PeHeatmap;

class PositionalEncodingView : public StepView {
    Q_OBJECT
public:
    explicit PositionalEncodingView(QWidget* parent = nullptr);
    ~PositionalEncodingView() override;

    // The length defaults to the longer of the trace's two PE tables (src_len / tgt_len) and
    // d_model to the config's; a new trace resets them only when those defaults change, so a
    // length the student picked survives re-running the same model. A null trace clears the sum.
    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) override;
    // Steps in the decoder (decoder.*, projection.*, loss) show the decoder's sum, others the encoder's.
    void setStep(const QString& traceName) override;

    int length() const;
    int dModel() const;
    void setLength(int length);     // clamped to the spin box range
    void setDModel(int dModel);
    // Plotted dimensions (parsed from the line edit, out-of-range ones dropped).
    QList<int> plottedDimensions() const;
    void setDimensions(const QList<int>& dims);

    // The table the heatmap and chart show: positional_table(length(), dModel()).
    const stepformer::Tensor& table() const { return table_; }
    float tableValue(int pos, int dim) const;

    QChart* chart() const { return chart_; }
    PeHeatmap* tableHeatmap() const { return tableMap_; }
    // 0: token embedding, 1: PE rows of the sentence, 2: their sum (the stack's input).
    PeHeatmap* sumHeatmap(int i) const;
    QString sumSource() const { return sumSource_; }  // "encoder" or "decoder"

    // Colour of a plotted dimension's curve (also its marker in the table).
    static QColor seriesColor(int index);

private:
    void onTableParamsChanged();
    void onDimsEdited();
    void toggleDimension(int dim);
    void rebuildChart();
    void rebuildSum();
    void resetToDefaults();

    void followTable();
    int defaultLength_ = 0, defaultDModel_ = 0;
    int encoderLength_ = 0, decoderLength_ = 0;  // the trace's tables' positions
    QString sumSource_ = QStringLiteral("encoder");
    stepformer::Tensor table_;
    // A model whose positions are a learned table (nanoGPT's wpe: the step is an embedding of a
    // parameter, not a formula) shows the trace's rows instead of the sinusoid it would compute.
    bool learned_ = false;
    stepformer::Tensor learnedTable_;  // (T, d_model): the rows the current pass added
    class QLabel* formula_ = nullptr;
    void showKind();
    QList<int> dims_;

    QSpinBox *lengthSpin_ = nullptr, *dModelSpin_ = nullptr;
    QLineEdit* dimsEdit_ = nullptr;
    QLabel* dimsHint_ = nullptr;
    QPushButton* resetButton_ = nullptr;
    PeHeatmap* tableMap_ = nullptr;
    QChart* chart_ = nullptr;
    QValueAxis *axisX_ = nullptr, *axisY_ = nullptr;
    QChartView* chartView_ = nullptr;
    QLabel* sumCaption_ = nullptr;
    PeHeatmap* sumMaps_[3] = {nullptr, nullptr, nullptr};
};
