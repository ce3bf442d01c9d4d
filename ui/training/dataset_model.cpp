#include "training/dataset_editor.h"
#include "widgets/text_util.h"

#include <algorithm>

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QStyle>

using namespace stepformer;

namespace {

using ui_text::qs;
using ui_text::ss;

const QColor kFlagged(255, 241, 204);  // amber
const QColor kInvalid(253, 222, 222);  // light red

bool contains(const std::vector<std::string>& v, const std::string& w) { return std::find(v.begin(), v.end(), w) != v.end(); }

QStringList quoted(const std::vector<std::string>& words) {
    QStringList out;
    for (const auto& w : words) out << QStringLiteral("'%1'").arg(qs(w));
    return out;
}

}  // namespace

// ----- DatasetModel -------------------------------------------------------------------------

DatasetModel::DatasetModel(QObject* parent) : QAbstractTableModel(parent), ref_(Config::tutorial()) {
    refName_ = tr("the tutorial's");
    rows_ = builtin_examples();
    recheck();
}

int DatasetModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int DatasetModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 3; }

QVariant DatasetModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size())) return {};
    const Example& e = rows_[size_t(index.row())];
    const std::string& text = index.column() == EncInput ? e.enc_input : index.column() == DecInput ? e.dec_input : e.dec_output;
    const RowStatus st = status_[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole: return qs(text);
    case Qt::BackgroundRole:
        if (st == RowStatus::Flagged) return QBrush(kFlagged);
        if (st == RowStatus::Invalid) return QBrush(kInvalid);
        return {};
    case Qt::ForegroundRole:
        if (st != RowStatus::Ok) return QBrush(QColor(20, 20, 20));  // readable on the tint in any theme
        return {};
    case Qt::ToolTipRole:
        if (st != RowStatus::Ok) return problems_[index.row()];
        return {};
    case Qt::DecorationRole:
        if (index.column() == EncInput && st != RowStatus::Ok)
            return QApplication::style()->standardIcon(st == RowStatus::Invalid ? QStyle::SP_MessageBoxCritical
                                                                               : QStyle::SP_MessageBoxWarning);
        return {};
    default: return {};
    }
}

QVariant DatasetModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role == Qt::ToolTipRole && o == Qt::Horizontal) {
        switch (section) {
        case EncInput: return tr("The encoder's input: the source sentence, padded with '%1' as the tutorial does.").arg(qs(ref_.pad));
        case DecInput: return tr("The decoder's input: '%1' followed by the target sentence.").arg(qs(ref_.bos));
        case DecOutput: return tr("What the decoder must output: the target sentence followed by '%1'.").arg(qs(ref_.eos));
        }
    }
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Vertical) return section + 1;
    switch (section) {
    case EncInput: return QStringLiteral("enc_input");
    case DecInput: return QStringLiteral("dec_input");
    case DecOutput: return QStringLiteral("dec_output");
    }
    return {};
}

Qt::ItemFlags DatasetModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

bool DatasetModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::EditRole || index.row() >= int(rows_.size())) return false;
    Example& e = rows_[size_t(index.row())];
    const std::string v = ss(value.toString().simplified());
    int last = index.column();
    if (index.column() == EncInput) {
        e.enc_input = v;
    } else if (index.column() == DecInput) {
        // Keep dec_output in step when it was empty or derived from the old dec_input.
        if (e.dec_output.empty() || e.dec_output == dec_output_for(e.dec_input, ref_)) {
            const std::string derived = dec_output_for(v, ref_);
            if (!derived.empty() || e.dec_output.empty()) {
                e.dec_output = derived;
                last = DecOutput;
            }
        }
        e.dec_input = v;
    } else {
        e.dec_output = v;
    }
    recheck();
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), std::max(last, 2)));
    return true;
}

bool DatasetModel::insertRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || row > int(rows_.size()) || count < 1) return false;
    beginInsertRows(parent, row, row + count - 1);
    rows_.insert(rows_.begin() + row, size_t(count), Example{});
    recheck();
    endInsertRows();
    return true;
}

bool DatasetModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count < 1 || row + count > int(rows_.size())) return false;
    beginRemoveRows(parent, row, row + count - 1);
    rows_.erase(rows_.begin() + row, rows_.begin() + row + count);
    recheck();
    endRemoveRows();
    return true;
}

void DatasetModel::setExamples(std::vector<Example> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    recheck();
    endResetModel();
}

void DatasetModel::setReferenceConfig(const Config& c, const QString& name, bool vocabularyFixed) {
    ref_ = c;
    refName_ = name;
    fixed_ = vocabularyFixed;
    recheck();
    if (!rows_.empty()) emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, 2));
    emit headerDataChanged(Qt::Horizontal, 0, 2);
}

DatasetModel::RowStatus DatasetModel::rowStatus(int row) const {
    return row >= 0 && row < int(status_.size()) ? status_[size_t(row)] : RowStatus::Invalid;
}

QString DatasetModel::rowProblem(int row) const { return row >= 0 && row < problems_.size() ? problems_[row] : QString(); }

int DatasetModel::flaggedRows() const { return int(std::count(status_.begin(), status_.end(), RowStatus::Flagged)); }
int DatasetModel::invalidRows() const { return int(std::count(status_.begin(), status_.end(), RowStatus::Invalid)); }

void DatasetModel::recheck() {
    status_.assign(rows_.size(), RowStatus::Ok);
    problems_.clear();
    for (size_t r = 0; r < rows_.size(); ++r) {
        const Example& e = rows_[r];
        const auto src = split_words(e.enc_input), din = split_words(e.dec_input), dout = split_words(e.dec_output);
        QStringList errors, flags;
        if (src.empty()) errors << tr("enc_input is empty.");
        if (din.empty()) errors << tr("dec_input is empty.");
        if (!din.empty() && din.front() != ref_.bos)
            errors << tr("dec_input must start with the start token '%1'.").arg(qs(ref_.bos));
        if (dout.empty()) errors << tr("dec_output is empty.");
        if (!din.empty() && !dout.empty() && din.size() != dout.size())
            errors << tr("dec_input has %1 tokens but dec_output has %2: they must be the same length (dec_output is "
                         "dec_input shifted left by one, ending with '%3').")
                          .arg(din.size())
                          .arg(dout.size())
                          .arg(qs(ref_.eos));
        std::vector<std::string> unknownSrc, unknownTgt;
        for (const auto& w : src)
            if (!contains(ref_.src_vocab, w) && !contains(unknownSrc, w)) unknownSrc.push_back(w);
        for (const auto* words : {&din, &dout})
            for (const auto& w : *words)
                if (!contains(ref_.tgt_vocab, w) && !contains(unknownTgt, w)) unknownTgt.push_back(w);
        if (!unknownSrc.empty())
            flags << tr("%1 not in %2 source vocabulary.").arg(quoted(unknownSrc).join(QStringLiteral(", ")), refName_);
        if (!unknownTgt.empty())
            flags << tr("%1 not in %2 target vocabulary.").arg(quoted(unknownTgt).join(QStringLiteral(", ")), refName_);
        if (int(src.size()) > ref_.src_len)
            flags << tr("The source has %1 tokens, longer than %2 src_len of %3 (training lengthens it).")
                         .arg(src.size())
                         .arg(refName_)
                         .arg(ref_.src_len);
        if (int(din.size()) > ref_.tgt_len)
            flags << tr("The target has %1 tokens, longer than %2 tgt_len of %3 (training lengthens it).")
                         .arg(din.size())
                         .arg(refName_)
                         .arg(ref_.tgt_len);
        const bool vocabProblem = !unknownSrc.empty() || !unknownTgt.empty();
        if (!errors.isEmpty() || (fixed_ && vocabProblem)) {
            status_[r] = RowStatus::Invalid;
            if (fixed_ && vocabProblem)
                flags << tr("The vocabulary is fixed by the checkpoint being resumed: remove these words or reset.");
        } else if (!flags.isEmpty()) {
            status_[r] = RowStatus::Flagged;
        }
        problems_ << (errors + flags).join(QLatin1Char('\n'));
    }
}
