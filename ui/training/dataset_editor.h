// The training dataset as an editable table: one row per example, three columns exactly as the
// tutorial writes them (enc_input, dec_input, dec_output). The tutorial's two sentences by
// default; rows can be added and removed, and the whole table imported from / exported to TSV
// with the core's parse_tsv / to_tsv (errors name the line).
//
// Beside the table: the vocabulary built from the dataset (config_with_vocab_from). Rows are
// checked as they are edited: a row that cannot be trained at all (empty column, dec_input not
// starting with the start token, dec_input and dec_output of different lengths) makes the
// dataset invalid; a row with tokens unknown to the reference configuration (the model's
// vocabulary) or too long for its lengths is flagged (amber, with a tooltip) — training then
// uses the vocabulary built from the dataset, unless the vocabulary is fixed (resuming a
// checkpoint), in which case a flagged row is an error too.
//
// objectNames: datasetTable, addRowButton, removeRowButton, importTsvButton, exportTsvButton,
// restoreTutorialButton, sourceVocabList, targetVocabList, datasetMessage (import / export
// outcome), datasetRowsSummary (the flagged and invalid rows).
#pragma once

#include <vector>

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/dataset.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTableView;

class DatasetModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { EncInput = 0, DecInput = 1, DecOutput = 2 };
    enum class RowStatus { Ok, Flagged, Invalid };

    explicit DatasetModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    bool insertRows(int row, int count, const QModelIndex& parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    const std::vector<stepformer::Example>& examples() const { return rows_; }
    void setExamples(std::vector<stepformer::Example> rows);
    // The configuration whose vocabulary and lengths rows are checked against.
    void setReferenceConfig(const stepformer::Config& c, const QString& name, bool vocabularyFixed);
    const stepformer::Config& referenceConfig() const { return ref_; }
    bool vocabularyFixed() const { return fixed_; }

    RowStatus rowStatus(int row) const;
    QString rowProblem(int row) const;  // empty when Ok
    int flaggedRows() const;
    int invalidRows() const;

private:
    void recheck();
    std::vector<stepformer::Example> rows_;
    std::vector<RowStatus> status_;
    QStringList problems_;
    stepformer::Config ref_;
    QString refName_;
    bool fixed_ = false;
};

class DatasetEditor : public QWidget {
    Q_OBJECT
public:
    explicit DatasetEditor(QWidget* parent = nullptr);

    std::vector<stepformer::Example> examples() const { return model_->examples(); }
    void setExamples(std::vector<stepformer::Example> rows);
    void restoreTutorial();  // builtin_examples()
    DatasetModel* model() const { return model_; }
    QTableView* view() const { return view_; }

    // The model's configuration (e.g. the tutorial's vocabulary; a checkpoint's when resuming,
    // with vocabularyFixed). Rows using tokens it lacks are flagged.
    void setReferenceConfig(const stepformer::Config& c, const QString& name, bool vocabularyFixed = false);

    // Valid: every row can be trained with the vocabulary trainingConfig() gives.
    bool isValid() const;
    QString validationMessage() const;
    // The vocabulary (and lengths) a run on this dataset uses, with `arch`'s other fields: the
    // reference vocabulary when it covers the dataset (ids as in the tutorial), otherwise the one
    // built from the dataset (config_with_vocab_from). Throws ConfigError when it can't be built.
    stepformer::Config trainingConfig(const stepformer::Config& arch) const;
    // True when trainingConfig() uses the vocabulary built from the dataset.
    bool usesBuiltVocabulary() const;

    // TSV: 3 columns (enc_input, dec_input, dec_output) or 2 (source, target). On error the
    // table is unchanged and *error names the line and the problem.
    bool importTsv(const QString& path, QString* error = nullptr);
    bool importTsvText(const QString& text, QString* error = nullptr, const QString& what = QStringLiteral("dataset"));
    bool exportTsv(const QString& path, QString* error = nullptr) const;
    QString tsvText() const;

    void setEditingEnabled(bool on);  // off while training

signals:
    void changed();  // rows edited / added / removed / imported
    void imported(const QString& path);  // importTsv(path) succeeded
    void validityChanged(bool valid);
    void errorOccurred(const QString& message);  // import/export failures (also shown inline)

private:
    void onModelChanged();
    void refreshVocabulary();
    void showMessage(const QString& text, bool error);
    void addRow();
    void removeSelectedRows();
    void importDialog();
    void exportDialog();

    DatasetModel* model_ = nullptr;
    QTableView* view_ = nullptr;
    QListWidget *srcVocab_ = nullptr, *tgtVocab_ = nullptr;
    QLabel *vocabNote_ = nullptr, *message_ = nullptr, *rowsSummary_ = nullptr;
    QPushButton *add_ = nullptr, *remove_ = nullptr, *import_ = nullptr, *export_ = nullptr, *restore_ = nullptr;
    bool lastValid_ = true;
    bool editing_ = true;
};
