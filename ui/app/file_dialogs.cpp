#include "app/file_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

#include "app/export.h"
#include "app/main_window.h"
#include "app/session.h"

namespace {

// Asks where to save fileName, in the last export folder (or fallback); adds the suffix when the
// chosen name has none. Empty when cancelled.
QString askExportPath(QWidget* parent, const QString& title, const QString& fileName, const QString& filter,
                      QStandardPaths::StandardLocation fallback, const QString& suffix) {
    QSettings s;
    const QString dir =
        s.value(QStringLiteral("files/exportDir"), QStandardPaths::writableLocation(fallback)).toString();
    QString path = QFileDialog::getSaveFileName(parent, title, QDir(dir).filePath(fileName), filter);
    if (path.isEmpty()) return path;
    if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
    s.setValue(QStringLiteral("files/exportDir"), QFileInfo(path).absolutePath());
    return path;
}

void reportExport(MainWindow& window, const QString& path, bool ok, const QString& error) {
    if (ok)
        window.statusBar()->showMessage(FileDialogs::tr("Saved %1").arg(QDir::toNativeSeparators(path)), 6000);
    else
        window.showError(FileDialogs::tr("Export failed"), error);
}

}  // namespace

QString FileDialogs::askWeightsPath(QWidget* parent) {
    QSettings s;
    const QString dir = s.value(QStringLiteral("files/weightsDir"),
                                QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                            .toString();
    const QString path = QFileDialog::getOpenFileName(parent, tr("Open Weights"), dir,
                                                      tr("Safetensors weights (*.safetensors);;All files (*)"));
    if (!path.isEmpty()) s.setValue(QStringLiteral("files/weightsDir"), QFileInfo(path).absolutePath());
    return path;
}

void FileDialogs::exportTensor(MainWindow& window, const QString& suffix) {
    const QString step = window.currentStep();
    if (step.isEmpty()) return;
    const QString filter = suffix == QLatin1String("npy") ? tr("NumPy array (*.npy)") : tr("CSV (*.csv)");
    const QString path = askExportPath(&window, tr("Export Tensor"), step + QLatin1Char('.') + suffix, filter,
                                       QStandardPaths::DocumentsLocation, suffix);
    if (path.isEmpty()) return;
    QString err;
    const bool ok = window.exportCurrentTensor(path, &err);
    reportExport(window, path, ok, err);
}

void FileDialogs::exportTraceNpz(MainWindow& window, bool gradients) {
    const auto trace = window.session()->trace();
    if (!trace) return;
    const QString path = askExportPath(&window, gradients ? tr("Export Gradients") : tr("Export Trace"),
                                       gradients ? QStringLiteral("gradients.npz") : QStringLiteral("trace.npz"),
                                       tr("NumPy archive (*.npz)"), QStandardPaths::DocumentsLocation,
                                       QStringLiteral("npz"));
    if (path.isEmpty()) return;
    QString err;
    const bool ok = ::exportTraceNpz(*trace, gradients, path, &err);
    reportExport(window, path, ok, err);
}

void FileDialogs::exportView(MainWindow& window, const QString& suffix) {
    const QString filter = suffix == QLatin1String("svg") ? tr("SVG image (*.svg)") : tr("PNG image (*.png)");
    const QString base = window.currentViewName() + QLatin1Char('-') + window.currentStep() + QLatin1Char('.') + suffix;
    const QString path =
        askExportPath(&window, tr("Export View"), base, filter, QStandardPaths::PicturesLocation, suffix);
    if (path.isEmpty()) return;
    QString err;
    const bool ok = window.exportCurrentView(path, &err);
    reportExport(window, path, ok, err);
}
