// After training: every dataset row translated greedily (stepformer::greedy_decode, the
// tutorial's greedy_decoder) with the trained model — source, expected, predicted and ✓ / ✗
// (green / red) — and a summary "2 / 2 translated correctly".
//
// translateAsync() decodes on a thread pool thread (a model of the tutorial's size takes a
// moment) and fills the table when done; evaluate() is the same work, callable from any thread.
//
// objectNames: resultsTableView, resultsSummary.
#pragma once

#include <memory>
#include <vector>

#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/dataset.h"
#include "stepformer/params.h"

namespace stepformer {
class Transformer;
}
class QLabel;
class QTableWidget;
template <typename T>
class QFutureWatcher;

class ResultsTable : public QWidget {
    Q_OBJECT
public:
    struct Row {
        QString source;
        QString expected;   // dec_output without the start / end / pad tokens
        QString predicted;  // the greedy decoding, or empty with `error`
        bool correct = false;
        bool reachedEos = false;
        QString error;      // e.g. a token the model's vocabulary lacks
    };

    explicit ResultsTable(QWidget* parent = nullptr);
    ~ResultsTable() override;

    static std::vector<Row> evaluate(const stepformer::Transformer& model, const std::vector<stepformer::Example>& rows);
    static QString expectedText(const stepformer::Example& e, const stepformer::Config& c);

    // Synchronous (small models, tests).
    void translate(const stepformer::Transformer& model, const std::vector<stepformer::Example>& rows);
    // On a worker thread; a newer call supersedes a running one. Emits resultsReady.
    void translateAsync(const stepformer::Config& config, std::shared_ptr<const stepformer::ParamSet> params,
                        std::vector<stepformer::Example> rows);
    void setRows(std::vector<Row> rows);
    void clear(const QString& message = {});

    const std::vector<Row>& rows() const { return rows_; }
    int rowCount() const { return int(rows_.size()); }
    int correctCount() const;
    bool isBusy() const { return busy_; }

signals:
    void resultsReady(int correct, int total);

private:
    std::vector<Row> rows_;
    QTableWidget* table_ = nullptr;
    QLabel* summary_ = nullptr;
    QFutureWatcher<std::vector<Row>>* watcher_ = nullptr;
    bool busy_ = false;
};
