// Step search (Ctrl+F): a step by its trace name or by words from its label and place, such as
// "softmax decoder 3" or "dec_self_attn 1 scores". Every word must match: a word is a prefix of a
// word of the step's name, label or place (numbers whole: "3" is layer 3, not 13). The closest
// matches come first (fewest words besides the ones asked for), then in the pass's order.
#pragma once

#include <QFrame>
#include <QString>
#include <QStringList>

class QLineEdit;
class QListWidget;

struct StepText {
    QString name;      // the trace name, e.g. "dec.layers.3.self_attn.softmax"
    QString label;     // its label in the navigator, e.g. "Softmax"
    QString location;  // where it sits, e.g. "Decoder layer 3 › Masked self-attention"
};

// The names of the steps that match `query`, best first; empty for an empty query.
QStringList matchSteps(const QString& query, const QList<StepText>& steps, int limit = 50);

// A small popup under the navigator's tree: a search field and the matches. Enter (or a click)
// goes to the selected match and closes it; Up/Down choose; Escape closes.
class StepSearchPopup : public QFrame {
    Q_OBJECT
public:
    explicit StepSearchPopup(QWidget* parent);
    // Opens over `anchor` (its top edge) with these steps, the field focused and selected.
    void open(QWidget* anchor, const QList<StepText>& steps);
    QLineEdit* field() const { return field_; }
    QListWidget* results() const { return results_; }

signals:
    void stepChosen(const QString& traceName);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();
    void choose();

    QLineEdit* field_ = nullptr;
    QListWidget* results_ = nullptr;
    QList<StepText> steps_;
};
