#include "training/dataset_editor.h"
#include "widgets/theme_colors.h"
#include "app/core_text.h"
#include "views/view_parts.h"
#include "widgets/text_util.h"

#include <algorithm>
#include <set>

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

using namespace stepformer;

namespace {

using ui_text::qs;
using ui_text::ss;

const QColor kNewToken(230, 120, 0);

bool contains(const std::vector<std::string>& v, const std::string& w) { return std::find(v.begin(), v.end(), w) != v.end(); }

}  // namespace

// ----- DatasetEditor ------------------------------------------------------------------------

DatasetEditor::DatasetEditor(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("datasetEditor"));
    model_ = new DatasetModel(this);

    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 6, 6, 6);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);

    auto* left = new QWidget(split);
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    view_ = view_parts::named(new QTableView(left), "datasetTable");
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                           QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 10);
    view_->setAlternatingRowColors(false);
    view_->setWordWrap(false);
    ll->addWidget(view_, 1);

    auto* buttons = new QHBoxLayout;
    auto mk = [&](QPushButton*& b, const QString& text, const char* name, const QString& tip) {
        b = new QPushButton(text, left);
        b->setObjectName(QString::fromLatin1(name));
        b->setToolTip(tip);
        buttons->addWidget(b);
    };
    mk(add_, tr("Add row"), "addRowButton", tr("Append an example and start editing it."));
    mk(remove_, tr("Remove"), "removeRowButton", tr("Remove the selected rows."));
    buttons->addSpacing(12);
    mk(import_, tr("Import TSV…"), "importTsvButton",
       tr("Read a tab-separated file: enc_input, dec_input, dec_output per line, or source and target "
          "(the start and end tokens are then added)."));
    mk(export_, tr("Export TSV…"), "exportTsvButton", tr("Save the table as a tab-separated file."));
    buttons->addStretch(1);
    mk(restore_, tr("Tutorial's sentences"), "restoreTutorialButton", tr("Go back to the tutorial's two sentences."));
    ll->addLayout(buttons);
    message_ = view_parts::named(new QLabel(left), "datasetMessage");
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->hide();
    ll->addWidget(message_);
    rowsSummary_ = view_parts::makeWrappingLabel(QStringLiteral("datasetRowsSummary"), left);
    rowsSummary_->hide();
    ll->addWidget(rowsSummary_);

    auto* right = new QWidget(split);
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    auto* vt = new QLabel(tr("<b>Vocabulary</b>"), right);
    rl->addWidget(vt);
    vocabNote_ = view_parts::named(new QLabel(right), "vocabularyNote");
    vocabNote_->setWordWrap(true);
    theme::makeQuiet(vocabNote_);
    rl->addWidget(vocabNote_);
    auto* lists = new QHBoxLayout;
    auto mkList = [&](QListWidget*& l, const QString& title, const char* name) {
        auto* col = new QVBoxLayout;
        col->addWidget(new QLabel(title, right));
        l = new QListWidget(right);
        l->setObjectName(QString::fromLatin1(name));
        l->setSelectionMode(QAbstractItemView::NoSelection);
        l->setFocusPolicy(Qt::NoFocus);
        l->setMinimumWidth(90);
        col->addWidget(l, 1);
        lists->addLayout(col, 1);
    };
    mkList(srcVocab_, tr("source"), "sourceVocabList");
    mkList(tgtVocab_, tr("target"), "targetVocabList");
    rl->addLayout(lists, 1);

    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    outer->addWidget(split);

    connect(model_, &QAbstractItemModel::dataChanged, this, &DatasetEditor::onModelChanged);
    connect(model_, &QAbstractItemModel::rowsInserted, this, &DatasetEditor::onModelChanged);
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &DatasetEditor::onModelChanged);
    connect(model_, &QAbstractItemModel::modelReset, this, &DatasetEditor::onModelChanged);
    connect(add_, &QPushButton::clicked, this, &DatasetEditor::addRow);
    connect(remove_, &QPushButton::clicked, this, &DatasetEditor::removeSelectedRows);
    connect(import_, &QPushButton::clicked, this, &DatasetEditor::importDialog);
    connect(export_, &QPushButton::clicked, this, &DatasetEditor::exportDialog);
    connect(restore_, &QPushButton::clicked, this, &DatasetEditor::restoreTutorial);
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { remove_->setEnabled(editing_ && view_->selectionModel()->hasSelection()); });
    remove_->setEnabled(false);
    onModelChanged();
}

void DatasetEditor::setExamples(std::vector<Example> rows) { model_->setExamples(std::move(rows)); }

void DatasetEditor::restoreTutorial() {
    model_->setExamples(builtin_examples());
    showMessage({}, false);
}

void DatasetEditor::setReferenceConfig(const Config& c, const QString& name, bool vocabularyFixed) {
    model_->setReferenceConfig(c, name, vocabularyFixed);
    onModelChanged();
}

bool DatasetEditor::isValid() const { return validationMessage().isEmpty(); }

QString DatasetEditor::validationMessage() const {
    const auto& rows = model_->examples();
    if (rows.empty()) return tr("The dataset is empty: add at least one sentence pair.");
    for (int r = 0; r < int(rows.size()); ++r)
        if (model_->rowStatus(r) == DatasetModel::RowStatus::Invalid)
            return tr("Dataset row %1: %2").arg(r + 1).arg(model_->rowProblem(r).section(QLatin1Char('\n'), 0, 0));
    try {
        trainingConfig(Config::tutorial());
    } catch (const std::exception& e) {
        return tr("Dataset: %1").arg(coreText(e));
    }
    return {};
}

bool DatasetEditor::usesBuiltVocabulary() const {
    if (model_->vocabularyFixed()) return false;
    const Config& ref = model_->referenceConfig();
    for (const auto& e : model_->examples()) {
        for (const auto& w : split_words(e.enc_input))
            if (!contains(ref.src_vocab, w)) return true;
        for (const auto* s : {&e.dec_input, &e.dec_output})
            for (const auto& w : split_words(*s))
                if (!contains(ref.tgt_vocab, w)) return true;
    }
    return false;
}

Config DatasetEditor::trainingConfig(const Config& arch) const {
    const Config& ref = model_->referenceConfig();
    Config base = arch;
    base.src_vocab = ref.src_vocab;
    base.tgt_vocab = ref.tgt_vocab;
    base.pad = ref.pad;
    base.bos = ref.bos;
    base.eos = ref.eos;
    base.src_len = ref.src_len;
    base.tgt_len = ref.tgt_len;
    if (!arch.reads_source()) {
        // A decoder-only model (nanoGPT) learns the target sentences' next words; it has no source,
        // and block_size, which sizes its learned positions, bounds its inputs.
        base.src_vocab.clear();
        base.src_len = 0;
        base.block_size = base.tgt_len = arch.block_size;
    }
    Config c = usesBuiltVocabulary() ? config_with_vocab_from(model_->examples(), base) : base;
    // Long sentences lengthen the model's sequences (the positional table has no parameters;
    // nanoGPT's learned one grows with block_size).
    for (const auto& e : model_->examples()) {
        if (c.reads_source()) c.src_len = std::max(c.src_len, int(split_words(e.enc_input).size()));
        c.tgt_len = std::max(c.tgt_len, int(split_words(e.dec_input).size()));
    }
    if (!c.reads_source()) c.block_size = c.tgt_len;
    c.validate();
    return c;
}

QString DatasetEditor::tsvText() const { return qs(to_tsv(model_->examples())); }

bool DatasetEditor::importTsvText(const QString& text, QString* error, const QString& what) {
    // Parse against a vocabulary holding every word of the text: the structure (columns, start
    // token, lengths) is checked here, unknown words are only flagged in the table.
    const Config& ref = model_->referenceConfig();
    Config perm = ref;
    perm.src_vocab = {ref.pad};
    perm.tgt_vocab = {ref.pad, ref.bos, ref.eos};
    std::set<std::string> seen(perm.tgt_vocab.begin(), perm.tgt_vocab.end());
    size_t longest = 1;
    const std::string s = ss(text);
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const auto words = split_words(ss(QString(line).replace(QLatin1Char('\t'), QLatin1Char(' '))));
        longest = std::max(longest, words.size());
        for (const auto& w : words) {
            if (!contains(perm.src_vocab, w)) perm.src_vocab.push_back(w);
            if (seen.insert(w).second) perm.tgt_vocab.push_back(w);
        }
    }
    perm.src_len = perm.tgt_len = int(longest) + 2;
    std::vector<Example> rows;
    try {
        rows = parse_tsv(s, perm, ss(what));
    } catch (const std::exception& e) {
        const QString msg = tr("Could not import: %1").arg(coreText(e));
        if (error) *error = msg;
        showMessage(msg, true);
        emit errorOccurred(msg);
        return false;
    }
    if (rows.empty()) {
        const QString msg = tr("Could not import: %1 has no examples (only blank lines or # comments).").arg(what);
        if (error) *error = msg;
        showMessage(msg, true);
        emit errorOccurred(msg);
        return false;
    }
    model_->setExamples(std::move(rows));
    showMessage(tr("Imported %1 examples from %2.").arg(model_->rowCount()).arg(what), false);
    return true;
}

bool DatasetEditor::importTsv(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        const QString msg = tr("Could not open %1: %2").arg(QDir::toNativeSeparators(path), f.errorString());
        if (error) *error = msg;
        showMessage(msg, true);
        emit errorOccurred(msg);
        return false;
    }
    const QString text = QString::fromUtf8(f.readAll());
    const bool ok = importTsvText(text, error, QStringLiteral("'%1'").arg(QFileInfo(path).fileName()));
    if (ok) emit imported(path);
    return ok;
}

bool DatasetEditor::exportTsv(const QString& path, QString* error) const {
    QSaveFile f(path);
    QString msg;
    if (!f.open(QIODevice::WriteOnly)) {
        msg = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), f.errorString());
    } else {
        f.write(tsvText().toUtf8());
        if (!f.commit()) msg = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), f.errorString());
    }
    if (!msg.isEmpty()) {
        if (error) *error = msg;
        return false;
    }
    return true;
}

void DatasetEditor::setEditingEnabled(bool on) {
    editing_ = on;
    view_->setEditTriggers(on ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                                    QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked
                              : QAbstractItemView::NoEditTriggers);
    add_->setEnabled(on);
    remove_->setEnabled(on && view_->selectionModel()->hasSelection());
    import_->setEnabled(on);
    restore_->setEnabled(on);
}

void DatasetEditor::showMessage(const QString& text, bool error) {
    message_->setText(text);
    message_->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; font-weight: 600; }")
                                  : QStringLiteral("QLabel { color: palette(text); }"));
    message_->setVisible(!text.isEmpty());
}

void DatasetEditor::onModelChanged() {
    refreshVocabulary();
    // The problems of flagged / invalid rows, in words (the table's tooltips say the same).
    QStringList lines;
    int shown = 0, more = 0;
    for (int r = 0; r < model_->rowCount(); ++r) {
        const auto st = model_->rowStatus(r);
        if (st == DatasetModel::RowStatus::Ok) continue;
        if (shown == 4) {
            ++more;
            continue;
        }
        ++shown;
        const bool bad = st == DatasetModel::RowStatus::Invalid;
        lines << QStringLiteral("<span style='color:%1'>%2 <b>Row %3</b>: %4</span>")
                     .arg(bad ? QStringLiteral("#b00020") : QStringLiteral("#8a5a00"), bad ? QStringLiteral("✖") : QStringLiteral("⚠"))
                     .arg(r + 1)
                     .arg(model_->rowProblem(r).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral(" ")));
    }
    if (more > 0) lines << tr("… and %1 more rows (see their tooltips).").arg(more);
    rowsSummary_->setText(lines.join(QStringLiteral("<br>")));
    rowsSummary_->setVisible(!lines.isEmpty());
    const bool valid = isValid();
    if (valid != lastValid_) {
        lastValid_ = valid;
        emit validityChanged(valid);
    }
    emit changed();
}

void DatasetEditor::refreshVocabulary() {
    srcVocab_->clear();
    tgtVocab_->clear();
    Config c;
    try {
        c = trainingConfig(Config::tutorial());
    } catch (const std::exception& e) {
        vocabNote_->setText(tr("No vocabulary: %1").arg(coreText(e)));
        return;
    }
    const Config& ref = model_->referenceConfig();
    std::set<std::string> usedSrc, usedTgt;
    for (const auto& e : model_->examples()) {
        for (const auto& w : split_words(e.enc_input)) usedSrc.insert(w);
        for (const auto* s : {&e.dec_input, &e.dec_output})
            for (const auto& w : split_words(*s)) usedTgt.insert(w);
    }
    auto fill = [&](QListWidget* l, const std::vector<std::string>& vocab, const std::vector<std::string>& refVocab,
                    const std::set<std::string>& used, bool target) {
        for (size_t i = 0; i < vocab.size(); ++i) {
            const std::string& w = vocab[i];
            auto* item = new QListWidgetItem(QStringLiteral("%1  %2").arg(i, 2).arg(qs(w)), l);
            QString tip = tr("id %1").arg(i);
            if (w == c.pad) tip += tr(" — padding");
            else if (target && w == c.bos) tip += tr(" — start of the decoder's input");
            else if (target && w == c.eos) tip += tr(" — end of the sentence");
            if (!contains(refVocab, w)) {
                item->setForeground(kNewToken);
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                tip += tr(" — new: not in the model's vocabulary");
            } else if (!used.count(w) && w != c.pad && !(target && (w == c.bos || w == c.eos))) {
                item->setForeground(QColor(150, 150, 150));
                tip += tr(" — used by no row");
            }
            item->setToolTip(tip);
        }
    };
    fill(srcVocab_, c.src_vocab, ref.src_vocab, usedSrc, false);
    fill(tgtVocab_, c.tgt_vocab, ref.tgt_vocab, usedTgt, true);
    QString note;
    if (model_->vocabularyFixed())
        note = tr("Fixed by the checkpoint being resumed.");
    else if (usesBuiltVocabulary())
        note = tr("Built from the dataset (new words in orange): the trained model gets this vocabulary.");
    else
        note = tr("The model's vocabulary covers the dataset, so its token ids are kept (grey: used by no row).");
    note += tr(" src_len %1, tgt_len %2.").arg(c.src_len).arg(c.tgt_len);
    vocabNote_->setText(note);
}

void DatasetEditor::addRow() {
    const int row = model_->rowCount();
    model_->insertRows(row, 1);
    const QModelIndex idx = model_->index(row, 0);
    view_->setCurrentIndex(idx);
    view_->scrollTo(idx);
    view_->edit(idx);
}

void DatasetEditor::removeSelectedRows() {
    QList<int> rows;
    for (const QModelIndex& i : view_->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end(), std::greater<int>());
    for (int r : rows) model_->removeRows(r, 1);
}

void DatasetEditor::importDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a dataset"), QString(),
                                                      tr("Tab-separated values (*.tsv *.txt);;All files (*)"));
    if (!path.isEmpty()) importTsv(path);
}

void DatasetEditor::exportDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the dataset"), QStringLiteral("dataset.tsv"),
                                                tr("Tab-separated values (*.tsv)"));
    if (path.isEmpty()) return;
    QString error;
    if (exportTsv(path, &error))
        showMessage(tr("Saved %1 examples to %2.").arg(model_->rowCount()).arg(QDir::toNativeSeparators(path)), false);
    else {
        showMessage(error, true);
        emit errorOccurred(error);
    }
}
