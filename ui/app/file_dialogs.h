// The File menu's dialogs: open weights; export the current step's tensor or the current view.
// Each starts in the folder used last for its kind of file (QSettings files/weightsDir,
// files/exportDir). app/export.h writes the files.
#pragma once

#include <QCoreApplication>
#include <QString>

class MainWindow;
class QWidget;

class FileDialogs {
    Q_DECLARE_TR_FUNCTIONS(FileDialogs)

public:
    // The weights file to open; empty when cancelled.
    static QString askWeightsPath(QWidget* parent);
    // Ask for a path and export there: the tensor as "csv" or "npy", the view as "png" or "svg".
    // The status bar says where it went, an error box why it did not.
    static void exportTensor(MainWindow& window, const QString& suffix);
    static void exportView(MainWindow& window, const QString& suffix);
    // The whole trace (or only its gradients) as a NumPy archive, .npz.
    static void exportTraceNpz(MainWindow& window, bool gradients);
};
