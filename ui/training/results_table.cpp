#include "training/results_table.h"
#include "widgets/background_pool.h"
#include "widgets/theme_colors.h"
#include "app/core_text.h"
#include "views/view_parts.h"
#include "widgets/text_util.h"

#include <QBrush>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "stepformer/decode.h"
#include "stepformer/model.h"

using namespace stepformer;

namespace {

using ui_text::qs;

const QColor kRightBg(220, 244, 222), kRightFg(22, 120, 40);
const QColor kWrongBg(252, 222, 222), kWrongFg(176, 0, 32);

}  // namespace

ResultsTable::ResultsTable(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("resultsTable"));
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(6, 6, 6, 6);
    summary_ = view_parts::makeWrappingLabel(QStringLiteral("resultsSummary"), this);
    l->addWidget(summary_);
    table_ = view_parts::named(new QTableWidget(0, 4, this), "resultsTableView");
    table_->setHorizontalHeaderLabels({tr("source"), tr("expected"), tr("predicted (greedy)"), QString()});
    table_->horizontalHeaderItem(3)->setToolTip(tr("✓ when the greedy translation is exactly the expected one"));
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Fixed);
    table_->horizontalHeader()->resizeSection(3, 40);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 10);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setWordWrap(false);
    l->addWidget(table_, 1);
    watcher_ = new QFutureWatcher<std::vector<Row>>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
        if (watcher_->isCanceled()) return;
        busy_ = false;
        setRows(watcher_->result());
    });
    clear();
}

ResultsTable::~ResultsTable() = default;

QString ResultsTable::expectedText(const Example& e, const Config& c) {
    QStringList out;
    for (const auto& w : split_words(e.dec_output))
        if (w != c.eos && w != c.pad && w != c.bos) out << qs(w);
    return out.join(QLatin1Char(' '));
}

std::vector<ResultsTable::Row> ResultsTable::evaluate(const Transformer& model, const std::vector<Example>& rows) {
    std::vector<Row> out;
    for (const Example& e : rows) {
        Row r;
        r.source = qs(e.enc_input);
        r.expected = expectedText(e, model.config());
        try {
            const DecodeResult d = greedy_decode(model, e.enc_input);
            r.predicted = qs(d.text);
            r.reachedEos = d.reached_eos;
            r.correct = d.reached_eos && r.predicted == r.expected;
        } catch (const std::exception& ex) {
            r.error = coreText(ex);
        }
        out.push_back(std::move(r));
    }
    return out;
}

void ResultsTable::translate(const Transformer& model, const std::vector<Example>& rows) {
    watcher_->cancel();  // a pending asynchronous result is dropped
    busy_ = false;
    setRows(evaluate(model, rows));
}

void ResultsTable::translateAsync(const Config& config, std::shared_ptr<const ParamSet> params,
                                  std::vector<Example> rows) {
    if (!params) return;
    busy_ = true;
    summary_->setText(theme::themed(tr("<span style='color:#777'>Translating %1 sentences with the trained model…</span>").arg(rows.size())));
    // The copy of the weights is made on the pool thread, not here.
    watcher_->setFuture(runInBackground([config, params, rows = std::move(rows)]() {
        const Transformer model(config, *params);
        return evaluate(model, rows);
    }));
}

int ResultsTable::correctCount() const {
    int n = 0;
    for (const Row& r : rows_) n += r.correct ? 1 : 0;
    return n;
}

void ResultsTable::clear(const QString& message) {
    rows_.clear();
    table_->setRowCount(0);
    summary_->setText(theme::themed(message.isEmpty()
                          ? tr("<span style='color:#777'>After training, every sentence of the dataset is translated "
                               "greedily (one token at a time, the most probable each time) and compared with "
                               "the expected output.</span>")
                          : message));
}

void ResultsTable::setRows(std::vector<Row> rows) {
    rows_ = std::move(rows);
    table_->setRowCount(int(rows_.size()));
    for (int i = 0; i < int(rows_.size()); ++i) {
        const Row& r = rows_[size_t(i)];
        auto* src = new QTableWidgetItem(r.source);
        auto* exp = new QTableWidgetItem(r.expected);
        auto* pred = new QTableWidgetItem(r.error.isEmpty() ? r.predicted : tr("(cannot translate)"));
        auto* mark = new QTableWidgetItem(r.correct ? QStringLiteral("✓") : QStringLiteral("✗"));
        mark->setTextAlignment(Qt::AlignCenter);
        QFont bold = mark->font();
        bold.setBold(true);
        bold.setPointSizeF(bold.pointSizeF() * 1.2);
        mark->setFont(bold);
        const QColor bg = r.correct ? kRightBg : kWrongBg, fg = r.correct ? kRightFg : kWrongFg;
        mark->setBackground(bg);
        mark->setForeground(fg);
        pred->setBackground(bg);
        pred->setForeground(fg);
        QString tip;
        if (!r.error.isEmpty())
            tip = r.error;
        else if (r.correct)
            tip = tr("The greedy translation is exactly the expected one.");
        else if (!r.reachedEos)
            tip = tr("The decoder never produced the end token: it stopped after tgt_len tokens.");
        else
            tip = tr("The greedy translation differs from the expected one.");
        for (QTableWidgetItem* it : {src, exp, pred, mark}) it->setToolTip(tip);
        table_->setItem(i, 0, src);
        table_->setItem(i, 1, exp);
        table_->setItem(i, 2, pred);
        table_->setItem(i, 3, mark);
    }
    const int ok = correctCount(), n = int(rows_.size());
    summary_->setText(theme::themed(n == 0 ? tr("No sentences.")
                             : tr("<b style='color:%3'>%1 / %2</b> translated correctly by greedy decoding.")
                                   .arg(ok)
                                   .arg(n)
                                   .arg((ok == n ? kRightFg : kWrongFg).name())));
    emit resultsReady(ok, n);
}
