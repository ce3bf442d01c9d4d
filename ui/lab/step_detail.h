// The layer lab's right-hand side: one trace entry in full. Its name and seed 004's name for it,
// its shape in PyTorch's layout, one line of what PyTorch computes there, every number in
// tables (one per batch element, or per batch element and head) and the tensor as
// print(tensor) shows it in PyTorch.
#pragma once

#include <QList>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

class QLabel;
class QPlainTextEdit;
class QScrollArea;
class QVBoxLayout;
class TensorTable;

class StepDetail : public QWidget {
    Q_OBJECT
public:
    explicit StepDetail(QWidget* parent = nullptr);

    // `last`: the entry is the lab's output. nullptr: nothing selected (`message` says why).
    void showEntry(const stepformer::TraceEntry* e, const stepformer::Config& c, bool last);
    void showMessage(const QString& message);

    // The tables shown, in order (batch-major, then head); objectName "tensorTable_b<b>[_h<h>]".
    const QList<TensorTable*>& tables() const { return tables_; }
    QString printedText() const;  // the print(tensor) box

    // Room for a readable line of its texts (the splitter keeps the panel at least this wide), and
    // no more: its labels wrap, whatever the longest word of what it shows.
    QSize minimumSizeHint() const override;

private:
    void clearTables();
    void fitPrint();

    QLabel *title_ = nullptr, *seed_ = nullptr, *shape_ = nullptr, *code_ = nullptr, *axes_ = nullptr,
           *legend_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    QWidget* tablesHost_ = nullptr;
    QPlainTextEdit* print_ = nullptr;
    QList<TensorTable*> tables_;
    QList<QWidget*> tableBoxes_;
};
