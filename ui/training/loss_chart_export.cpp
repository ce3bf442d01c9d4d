// The Train dock's loss curve out of the app: CSV for a spreadsheet or pandas, PNG for slides.
#include "training/loss_chart.h"

#include <QChartView>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QSplitter>
#include <QMessageBox>

#include "app/export.h"
#include "stepformer/atomic_file.h"

QString LossChart::csv() const {
    QString out = QStringLiteral("step,loss,smoothed,grad_norm,lr\n");
    auto num = [](double v) { return QString::number(v, 'g', 9); };
    for (size_t i = 0; i < steps_.size(); ++i)
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(num(steps_[i]), num(loss_[i]), num(i < ema_.size() ? ema_[i] : loss_[i]), num(grad_[i]),
                        num(lr_[i]));
    return out;
}

bool LossChart::saveCsv(const QString& path, QString* error) const {
    if (steps_.empty()) {
        if (error) *error = tr("Cannot save %1: the loss curve has no points yet.").arg(QDir::toNativeSeparators(path));
        return false;
    }
    const QByteArray bytes = csv().toUtf8();
    try {
        stepformer::write_file_atomic(QFile::encodeName(path).toStdString(), bytes.constData(), size_t(bytes.size()));
    } catch (const std::exception& e) {
        if (error) *error = tr("Cannot save %1: %2").arg(QDir::toNativeSeparators(path), QString::fromLocal8Bit(e.what()));
        return false;
    }
    return true;
}

bool LossChart::savePng(const QString& path, QString* error) {
    if (steps_.empty()) {
        if (error) *error = tr("Cannot save %1: the loss curve has no points yet.").arg(QDir::toNativeSeparators(path));
        return false;
    }
    flush();
    // The two charts as they are shown: one above the other, or side by side.
    return exportWidgetPng(split_, path, error);
}

void LossChart::showExportMenu(const QPoint& globalPos) {
    QMenu menu(this);
    QAction* csvAct = menu.addAction(tr("Save the Loss Curve as CSV…"));
    QAction* pngAct = menu.addAction(tr("Save the Loss Curve as PNG…"));
    csvAct->setEnabled(!steps_.empty());
    pngAct->setEnabled(!steps_.empty());
    QAction* chosen = menu.exec(globalPos);
    if (!chosen) return;
    const bool asCsv = chosen == csvAct;
    const QString path = QFileDialog::getSaveFileName(
        this, chosen->text(), asCsv ? QStringLiteral("loss.csv") : QStringLiteral("loss.png"),
        asCsv ? tr("CSV (*.csv)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    if (!(asCsv ? saveCsv(path, &error) : savePng(path, &error)))
        QMessageBox::warning(this, tr("Save the loss curve"), error);
}
