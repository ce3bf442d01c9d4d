// Seed 004's layer lab (Model › Layer Lab): nn.TransformerEncoderLayer(d_model=4, nhead=2,
// dim_feedforward=8, dropout=0.0), optionally followed by a nn.TransformerDecoderLayer, with
// every step of its forward (and backward) pass and every number of each. Left: the inputs,
// options and weights (LabControls); middle: the steps grouped by sub-layer, with seed 004's
// names for them; right: the chosen step (StepDetail). Non-modal; remembers its geometry.
#pragma once

#include <QMainWindow>

class QSplitter;
class QTreeWidget;
class QTreeWidgetItem;
class LabControls;
class LabModel;
class StepDetail;

class LayerLabWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit LayerLabWindow(QWidget* parent = nullptr);
    ~LayerLabWindow() override;

    // The one lab of `owner` (a child window of it), made on first use, shown and raised.
    static LayerLabWindow* showFor(QWidget* owner);

    LabModel* model() const { return model_; }
    LabControls* controls() const { return controls_; }
    StepDetail* detail() const { return detail_; }
    QTreeWidget* stepTree() const { return tree_; }

    // Selects a trace entry by name; false when the trace has none.
    bool selectStep(const QString& name);
    QString currentStep() const;

signals:
    void stepShown(const QString& name);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void closeEvent(QCloseEvent* e) override;
    void hideEvent(QHideEvent* e) override;

private:
    void rebuildSteps();
    void showCurrent();
    void saveGeometrySettings();

    LabModel* model_ = nullptr;
    LabControls* controls_ = nullptr;
    QTreeWidget* tree_ = nullptr;
    StepDetail* detail_ = nullptr;
    QSplitter* split_ = nullptr;
    QString wanted_;  // the step to keep selected across recomputations
};
