// The layer lab's left-hand side: the inputs (src, and tgt with the decoder layer), the masks,
// the layers' options and the weights, each wired to the LabModel; file choices go through
// dialogs here, and what failed is shown in the error line at the top.
#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;
class InputTable;
class LabModel;

class LabControls : public QWidget {
    Q_OBJECT
public:
    LabControls(LabModel* model, QWidget* parent = nullptr);

    // What the buttons do after their file dialog (tests call these with a path). false: the
    // error line says why and nothing changed.
    bool loadInputNpy(bool tgt, const QString& path);
    bool loadWeights(const QString& path);

    QString errorText() const;
    void showError(const QString& message);  // empty: hides the line

private:
    void buildInputs(QWidget* host);
    QGroupBox* buildOptions();
    QGroupBox* buildWeights();
    void refresh();  // everything from the model

    LabModel* model_;
    QLabel *error_ = nullptr, *status_ = nullptr;
    QSpinBox *srcLen_ = nullptr, *tgtLen_ = nullptr, *batch_ = nullptr, *randomSeed_ = nullptr, *freshSeed_ = nullptr;
    InputTable *srcTable_ = nullptr, *tgtTable_ = nullptr;
    QLabel *srcOrigin_ = nullptr, *tgtOrigin_ = nullptr, *weights_ = nullptr;
    QCheckBox *decoder_ = nullptr, *causal_ = nullptr, *normFirst_ = nullptr, *grads_ = nullptr;
    QComboBox* activation_ = nullptr;
    QGroupBox* tgtBox_ = nullptr;
};
