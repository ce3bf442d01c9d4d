// The input bar: the source sentence (enc_inputs) and the target sentence (dec_inputs), checked
// against the vocabularies as the user types. Unknown words are underlined in red in the field
// and named in the status line under it; a completer offers the vocabulary for the word being
// typed (Ctrl+Space shows it all). sentencesEdited() is emitted once typing pauses (~150 ms).
#pragma once

#include <QLineEdit>
#include <QStringList>
#include <QWidget>

class QCompleter;
class QLabel;
class QStringListModel;
class QTimer;
class QToolButton;

// A single-line sentence field with per-word underlining and word-wise completion.
class SentenceEdit : public QLineEdit {
    Q_OBJECT
public:
    explicit SentenceEdit(QWidget* parent = nullptr);
    void setVocabulary(const QStringList& words);
    QStringList vocabulary() const { return vocab_; }
    // Words of the current text not in the vocabulary, in order.
    QStringList unknownWords() const;
    int wordCount() const;
    QCompleter* wordCompleter() const { return completer_; }
    // The popup for the word under the cursor (all words when it is empty, or with `everyWord`:
    // the vocabulary button's list, whose choice replaces the word under the cursor).
    void showCompletions(bool everyWord = false);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void focusInEvent(QFocusEvent* e) override;

private:
    void updateUnderlines();
    void insertCompletion(const QString& word);
    QPair<int, int> currentWordRange() const;  // [start, end) of the word at the cursor

    QStringList vocab_;
    QCompleter* completer_ = nullptr;
    QStringListModel* completionModel_ = nullptr;
};

class InputBar : public QWidget {
    Q_OBJECT
public:
    explicit InputBar(QWidget* parent = nullptr);

    void setVocabularies(const QStringList& source, const QStringList& target, int srcLen, int tgtLen);
    // Sets the text without emitting sentencesEdited().
    void setSentences(const QString& source, const QString& target);
    QString source() const;
    QString target() const;

    // The last problem reported by the model (stays until the next good input).
    void showError(const QString& message);
    // The input was accepted: `detail` (e.g. the expected output) goes into the status line.
    void showAccepted(const QString& detail = {});
    bool hasError() const { return hasError_; }
    QString statusText() const;

    SentenceEdit* sourceEdit() const { return source_; }
    SentenceEdit* targetEdit() const { return target_; }
    void setDebounceInterval(int ms);

signals:
    void sentencesEdited(const QString& source, const QString& target);
    void resetRequested();  // "use the tutorial's example"

private:
    void onTextEdited();
    QStringList localProblems() const;  // unknown words, too long, empty
    void render();
    void setStatus(const QString& html, bool error);

    SentenceEdit *source_ = nullptr, *target_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel *srcLabel_ = nullptr, *tgtLabel_ = nullptr;
    bool hasSource_ = true;  // false: the model reads one text (no source vocabulary)
    QToolButton* reset_ = nullptr;
    QTimer* debounce_ = nullptr;
    int srcLen_ = 0, tgtLen_ = 0;
    bool hasError_ = false;
    bool pending_ = false;  // edited since the model last answered
    QString remoteError_;   // the model's last rejection, until it accepts
    QString acceptedDetail_;
};
