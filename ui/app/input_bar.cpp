#include "app/input_bar.h"
#include "views/view_parts.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCompleter>
#include <QCoreApplication>
#include <QGridLayout>
#include <QInputMethodEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStringListModel>
#include <QStyle>
#include <QTextCharFormat>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>

namespace {

struct WordSpan {
    int start, length;
    QString text;
};

QList<WordSpan> words(const QString& text) {
    QList<WordSpan> out;
    static const QRegularExpression re(QStringLiteral("\\S+"));
    for (auto it = re.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out.push_back({int(m.capturedStart()), int(m.capturedLength()), m.captured()});
    }
    return out;
}

}  // namespace

// ----- SentenceEdit ---------------------------------------------------------------------------

SentenceEdit::SentenceEdit(QWidget* parent) : QLineEdit(parent) {
    completionModel_ = new QStringListModel(this);
    completer_ = view_parts::named(new QCompleter(completionModel_, this), "vocabularyCompleter");
    completer_->setWidget(this);
    completer_->setCaseSensitivity(Qt::CaseSensitive);
    completer_->setCompletionMode(QCompleter::PopupCompletion);
    completer_->setModelSorting(QCompleter::UnsortedModel);
    completer_->setMaxVisibleItems(12);
    connect(completer_, qOverload<const QString&>(&QCompleter::activated), this, &SentenceEdit::insertCompletion);
    connect(this, &QLineEdit::textChanged, this, &SentenceEdit::updateUnderlines);
    connect(this, &QLineEdit::textEdited, this, [this] {
        const auto [s, e] = currentWordRange();
        const QString prefix = text().mid(s, cursorPosition() - s);
        if (prefix.isEmpty() || vocab_.contains(text().mid(s, e - s))) {
            completer_->popup()->hide();
            return;
        }
        showCompletions();
    });
    setClearButtonEnabled(true);
    // The vocabulary list for the mouse, too: a button at the field's end (as Alt+/ does).
    QAction* list = addAction(style()->standardIcon(QStyle::SP_FileDialogListView), QLineEdit::TrailingPosition);
    list->setObjectName(QStringLiteral("vocabularyAction"));
    list->setToolTip(tr("List the vocabulary (Alt+/)"));
    connect(list, &QAction::triggered, this, [this] {
        setFocus(Qt::OtherFocusReason);
        showCompletions(true);
    });
}

void SentenceEdit::setVocabulary(const QStringList& vocab) {
    vocab_ = vocab;
    completionModel_->setStringList(vocab);
    updateUnderlines();
}

QStringList SentenceEdit::unknownWords() const {
    QStringList out;
    for (const auto& w : words(text()))
        if (!vocab_.contains(w.text)) out << w.text;
    return out;
}

int SentenceEdit::wordCount() const { return int(words(text()).size()); }

QPair<int, int> SentenceEdit::currentWordRange() const {
    const QString t = text();
    int s = cursorPosition(), e = cursorPosition();
    while (s > 0 && !t.at(s - 1).isSpace()) --s;
    while (e < t.size() && !t.at(e).isSpace()) ++e;
    return {s, e};
}

void SentenceEdit::showCompletions(bool everyWord) {
    const auto [s, e] = currentWordRange();
    completer_->setCompletionPrefix(everyWord ? QString() : text().mid(s, cursorPosition() - s));
    if (completer_->completionCount() == 0) {
        completer_->popup()->hide();
        return;
    }
    QRect r = cursorRect();
    r.setWidth(completer_->popup()->sizeHintForColumn(0) + completer_->popup()->verticalScrollBar()->sizeHint().width() + 16);
    completer_->complete(r);
}

void SentenceEdit::insertCompletion(const QString& word) {
    const auto [s, e] = currentWordRange();
    QString t = text();
    t.replace(s, e - s, word);
    int cursor = s + int(word.size());
    if (cursor >= t.size() || !t.at(cursor).isSpace()) t.insert(cursor, QLatin1Char(' '));
    ++cursor;
    setText(t);
    setCursorPosition(cursor);
    emit textEdited(t);  // a user edit like any other
    completer_->popup()->hide();
}

void SentenceEdit::keyPressEvent(QKeyEvent* e) {
    if (completer_->popup()->isVisible()) {
        switch (e->key()) {
        case Qt::Key_Enter:
        case Qt::Key_Return:
        case Qt::Key_Tab:
        case Qt::Key_Backtab:
        case Qt::Key_Escape:
            e->ignore();  // the completer handles them
            return;
        default: break;
        }
    }
    // Ctrl+Space (with or without Shift), and Alt+/, which input methods (fcitx, ibus) leave alone:
    // their default switch key is Ctrl+Space.
    if ((e->key() == Qt::Key_Space && (e->modifiers() & Qt::ControlModifier)) ||
        (e->key() == Qt::Key_Slash && (e->modifiers() & Qt::AltModifier))) {
        showCompletions();
        return;
    }
    QLineEdit::keyPressEvent(e);
}

void SentenceEdit::focusInEvent(QFocusEvent* e) {
    QLineEdit::focusInEvent(e);
    updateUnderlines();
}

void SentenceEdit::updateUnderlines() {
    // QLineEdit has no per-range formats of its own; an input-method event carrying TextFormat
    // attributes (positions relative to the cursor) sets them on its text layout.
    QList<QInputMethodEvent::Attribute> attrs;
    QTextCharFormat bad;
    bad.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    bad.setUnderlineColor(QColor(0xd0, 0x20, 0x20));
    bad.setForeground(QColor(0xb0, 0x10, 0x10));
    for (const auto& w : words(text()))
        if (!vocab_.contains(w.text))
            attrs << QInputMethodEvent::Attribute(QInputMethodEvent::TextFormat, w.start - cursorPosition(), w.length, bad);
    QInputMethodEvent ev(QString(), attrs);
    QCoreApplication::sendEvent(this, &ev);
}

// ----- InputBar -------------------------------------------------------------------------------

InputBar::InputBar(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("inputBar"));
    source_ = view_parts::named(new SentenceEdit(this), "sourceEdit");
    source_->setPlaceholderText(tr("Source sentence, e.g. ich mochte ein bier P"));
    source_->setToolTip(tr("The encoder's input (enc_inputs): source words separated by spaces. "
                           "Alt+/ (or Ctrl+Space) lists the vocabulary."));
    target_ = view_parts::named(new SentenceEdit(this), "targetEdit");
    target_->setPlaceholderText(tr("Target sentence, e.g. S i want a beer ."));
    target_->setToolTip(tr("The decoder's input (dec_inputs): starts with the start symbol S. "
                           "Alt+/ (or Ctrl+Space) lists the vocabulary."));
    srcLabel_ = new QLabel(tr("&Source:"), this);
    srcLabel_->setBuddy(source_);
    srcLabel_->setToolTip(source_->toolTip());
    tgtLabel_ = new QLabel(tr("&Target:"), this);
    tgtLabel_->setBuddy(target_);
    tgtLabel_->setToolTip(target_->toolTip());

    reset_ = view_parts::named(new QToolButton(this), "resetSentencesButton");
    reset_->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    reset_->setText(tr("Example"));
    reset_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    reset_->setToolTip(tr("Back to the tutorial's example: ich mochte ein bier P → S i want a beer ."));
    connect(reset_, &QToolButton::clicked, this, &InputBar::resetRequested);

    status_ = view_parts::makeWrappingLabel(QStringLiteral("inputStatusLabel"), this);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(6, 4, 6, 4);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(2);
    grid->addWidget(srcLabel_, 0, 0);
    grid->addWidget(source_, 0, 1);
    grid->addWidget(tgtLabel_, 0, 2);
    grid->addWidget(target_, 0, 3);
    grid->addWidget(reset_, 0, 4);
    grid->addWidget(status_, 1, 1, 1, 4);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    debounce_ = view_parts::named(new QTimer(this), "inputDebounceTimer");
    debounce_->setSingleShot(true);
    debounce_->setInterval(150);
    connect(debounce_, &QTimer::timeout, this, [this] { emit sentencesEdited(source(), target()); });
    connect(source_, &QLineEdit::textEdited, this, &InputBar::onTextEdited);
    connect(target_, &QLineEdit::textEdited, this, &InputBar::onTextEdited);
}

void InputBar::setVocabularies(const QStringList& source, const QStringList& target, int srcLen, int tgtLen) {
    source_->setVocabulary(source);
    target_->setVocabulary(target);
    srcLen_ = srcLen;
    tgtLen_ = tgtLen;
    // A model without a source vocabulary (nanoGPT, decoder only) reads one text: one field.
    hasSource_ = !source.isEmpty() || target.isEmpty();
    source_->setVisible(hasSource_);
    srcLabel_->setVisible(hasSource_);
    tgtLabel_->setText(hasSource_ ? tr("&Target:") : tr("&Text:"));
    source_->setToolTip(tr("The encoder's input (enc_inputs), at most %1 words from: %2")
                            .arg(srcLen)
                            .arg(source.join(QLatin1Char(' '))));
    target_->setToolTip(hasSource_ ? tr("The decoder's input (dec_inputs), at most %1 words from: %2")
                                         .arg(tgtLen)
                                         .arg(target.join(QLatin1Char(' ')))
                                   : tr("The model's input (idx): at most %1 words (block_size) from: %2. It predicts "
                                        "each next word; the Decode view continues the first two.")
                                         .arg(tgtLen)
                                         .arg(target.join(QLatin1Char(' '))));
    target_->setPlaceholderText(hasSource_ ? tr("Target sentence, e.g. S i want a beer .") : tr("Text, e.g. S i want a beer ."));
    reset_->setToolTip(hasSource_ ? tr("Back to the tutorial's example: ich mochte ein bier P → S i want a beer .")
                                  : tr("Back to the example text: S i want a beer ."));
    tgtLabel_->setToolTip(target_->toolTip());
    render();
}

void InputBar::setSentences(const QString& source, const QString& target) {
    if (source_->text() != source) source_->setText(source);
    if (target_->text() != target) target_->setText(target);
    debounce_->stop();
    pending_ = false;
    render();
}

QString InputBar::source() const { return source_->text().simplified(); }
QString InputBar::target() const { return target_->text().simplified(); }

void InputBar::setDebounceInterval(int ms) { debounce_->setInterval(ms); }

void InputBar::onTextEdited() {
    pending_ = true;
    render();
    debounce_->start();
}

QStringList InputBar::localProblems() const {
    QStringList problems;
    if ((hasSource_ && source_->vocabulary().isEmpty()) || target_->vocabulary().isEmpty()) return problems;  // no model yet
    const QStringList us = hasSource_ ? source_->unknownWords() : QStringList(), ut = target_->unknownWords();
    auto quoted = [](const QStringList& l) {
        QStringList q;
        for (const auto& w : l) q << QStringLiteral("“%1”").arg(w.toHtmlEscaped());
        return q.join(QStringLiteral(", "));
    };
    if (!us.isEmpty())
        problems << tr("unknown source words %1 (the source vocabulary is: %2)", nullptr, int(us.size()))
                        .arg(quoted(us), source_->vocabulary().join(QLatin1Char(' ')).toHtmlEscaped());
    if (!ut.isEmpty())
        problems << (hasSource_ ? tr("unknown target words %1 (the target vocabulary is: %2)", nullptr, int(ut.size()))
                                : tr("unknown words %1 (the vocabulary is: %2)", nullptr, int(ut.size())))
                        .arg(quoted(ut), target_->vocabulary().join(QLatin1Char(' ')).toHtmlEscaped());
    if (hasSource_ && srcLen_ > 0 && source_->wordCount() > srcLen_)
        problems << tr("the source has %n words, at most %1 fit (src_len)", nullptr, source_->wordCount()).arg(srcLen_);
    if (tgtLen_ > 0 && target_->wordCount() > tgtLen_)
        problems << (hasSource_ ? tr("the target has %n words, at most %1 fit (tgt_len)", nullptr, target_->wordCount())
                                : tr("the text has %n words, at most %1 fit (block_size)", nullptr, target_->wordCount()))
                        .arg(tgtLen_);
    if (hasSource_ && source_->wordCount() == 0) problems << tr("the source sentence is empty");
    if (target_->wordCount() == 0) problems << (hasSource_ ? tr("the target sentence is empty") : tr("the text is empty"));
    return problems;
}

void InputBar::render() {
    const QStringList problems = localProblems();
    if (!problems.isEmpty()) {
        QString text = problems.join(QStringLiteral("; "));
        text[0] = text[0].toUpper();
        setStatus(text + QLatin1Char('.') + tr(" <i>(showing the last valid sentences)</i>"), true);
    } else if (pending_) {
        setStatus(tr("Checking…"), false);
    } else if (!remoteError_.isEmpty()) {
        setStatus(remoteError_.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) +
                      tr(" <i>(showing the last valid sentences)</i>"),
                  true);
    } else {
        setStatus(acceptedDetail_, false);
    }
}

void InputBar::showError(const QString& message) {
    pending_ = false;
    remoteError_ = message;
    render();
}

void InputBar::showAccepted(const QString& detail) {
    pending_ = false;
    remoteError_.clear();
    acceptedDetail_ = detail;
    render();
}

QString InputBar::statusText() const {
    QTextDocument doc;
    doc.setHtml(status_->text());
    return doc.toPlainText();
}

void InputBar::setStatus(const QString& html, bool error) {
    hasError_ = error;
    status_->setProperty("error", error);
    if (error) {
        status_->setText(QStringLiteral("<span style='color:#c0392b'>✖ %1</span>").arg(html));
        status_->setToolTip(statusText());
    } else {
        status_->setText(html.isEmpty() ? QString()
                                        : QStringLiteral("<span style='color:#2e7d32'>✔</span> "
                                                         "<span style='color:#5f6368'>%1</span>")
                                              .arg(html));
        status_->setToolTip(QString());
    }
}
