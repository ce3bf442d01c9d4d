#include "app/model_chooser.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QStatusBar>

#include "app/file_dialogs.h"
#include "app/main_window.h"
#include "app/window_actions.h"

ModelChooser::ModelChooser(Session* session, MainWindow* window, const WindowActions& actions,
                           std::function<void()> showModel)
    : QObject(window), session_(session), window_(window), actions_(actions), showWindowModel_(std::move(showModel)) {
    connect(actions_.open, &QAction::triggered, this, &ModelChooser::openWeightsDialog);
    for (QAction* a : actions_.presetGroup->actions()) {
        const auto p = static_cast<Session::Preset>(a->data().toInt());
        connect(a, &QAction::triggered, this, [this, p] { choosePreset(p); });
    }
    connect(actions_.retrain, &QAction::triggered, this, &ModelChooser::retrainPreset);
    connect(actions_.cancelTrain, &QAction::triggered, session_, &Session::cancelTraining);
}

void ModelChooser::setPresetBox(QComboBox* box) {
    presetBox_ = box;
    connect(presetBox_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        const int p = presetBox_->itemData(i).toInt();
        if (p < 0)
            openWeightsDialog();
        else
            choosePreset(static_cast<Session::Preset>(p));
    });
}

void ModelChooser::showModel() {
    const bool fromFile = session_->modelState() == Session::ModelState::FromFile;
    const int preset = static_cast<int>(session_->preset());
    for (QAction* a : actions_.presetGroup->actions()) a->setChecked(!fromFile && a->data().toInt() == preset);
    {
        const QSignalBlocker block(presetBox_);
        presetBox_->setCurrentIndex(fromFile ? presetBox_->count() - 1 : presetBox_->findData(preset));
    }
    actions_.retrain->setEnabled(!fromFile && session_->preset() != Session::Preset::Untrained);
}

void ModelChooser::choosePreset(Session::Preset p) {
    if (p == session_->preset() && session_->modelState() != Session::ModelState::FromFile) return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    session_->setPreset(p);
    QApplication::restoreOverrideCursor();
}

void ModelChooser::retrainPreset() {
    const Session::Preset p = session_->preset();
    const QString path = session_->cachedModelPath(p);
    if (QFileInfo::exists(path) && !QFile::remove(path)) {
        window_->showError(tr("Train again"),
                           tr("Could not remove the cached model %1.").arg(QDir::toNativeSeparators(path)));
        return;
    }
    session_->setPreset(p);
}

void ModelChooser::openWeightsDialog() {
    const QString path = FileDialogs::askWeightsPath(window_);
    if (path.isEmpty()) {
        showWindowModel_();  // put the preset box back
        return;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = session_->openWeights(path);
    QApplication::restoreOverrideCursor();
    if (ok) window_->statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 6000);
    showWindowModel_();
}
