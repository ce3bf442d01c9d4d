#include "app/model_chooser.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QStandardItemModel>
#include <QStatusBar>

#include "app/file_dialogs.h"
#include "app/main_window.h"
#include "app/window_actions.h"
#include "training/training_panel.h"

ModelChooser::ModelChooser(Session* session, MainWindow* window, const WindowActions& actions,
                           std::function<void()> showModel)
    : QObject(window), session_(session), window_(window), actions_(actions), showWindowModel_(std::move(showModel)) {
    connect(actions_.open, &QAction::triggered, this, &ModelChooser::openWeightsDialog);
    for (QAction* a : actions_.presetGroup->actions()) {
        const int data = a->data().toInt();
        if (data == kFromFile)
            connect(a, &QAction::triggered, this, &ModelChooser::openWeightsDialog);
        else if (data == kTrainedInApp)
            connect(a, &QAction::triggered, this, &ModelChooser::showTrainedInApp);
        else if (data >= 0)
            connect(a, &QAction::triggered, this, [this, data] { choosePreset(static_cast<Session::Preset>(data)); });
    }
    connect(actions_.retrain, &QAction::triggered, this, &ModelChooser::retrainPreset);
    connect(actions_.cancelTrain, &QAction::triggered, session_, &Session::cancelTraining);
}

void ModelChooser::setPresetBox(QComboBox* box) {
    presetBox_ = box;
    const int fromFile = presetBox_->findData(kFromFile);
    presetBox_->insertItem(fromFile < 0 ? presetBox_->count() : fromFile, entryText(kTrainedInApp), kTrainedInApp);
    presetBox_->setItemData(presetBox_->findData(kTrainedInApp), tr("The weights of the last run of the Train panel"),
                            Qt::ToolTipRole);
    connect(presetBox_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        const int p = presetBox_->itemData(i).toInt();
        if (p == kFromFile)
            openWeightsDialog();
        else if (p == kTrainedInApp)
            showTrainedInApp();
        else if (p >= 0)
            choosePreset(static_cast<Session::Preset>(p));
    });
    showModel();
}

bool ModelChooser::showsPreset() const {
    const Session::ModelState s = session_->modelState();
    return s != Session::ModelState::FromFile && s != Session::ModelState::TrainedInApp;
}

QString ModelChooser::entryText(int data) const {
    if (data == kFromFile) return tr("From file…");
    if (data == kTrainedInApp) return tr("Trained in the app");
    const auto p = static_cast<Session::Preset>(data);
    // The shown preset says what its weights are now: "training…" while they are trained,
    // "untrained" when they will not be (--no-train); the others say what choosing them gives.
    if (showsPreset() && p == session_->preset() && p != Session::Preset::Untrained)
        return Session::presetTitle(p, session_->modelStateText());
    return Session::presetTitle(p);
}

void ModelChooser::showModel() {
    const Session::ModelState state = session_->modelState();
    const int shown = state == Session::ModelState::FromFile       ? kFromFile
                      : state == Session::ModelState::TrainedInApp ? kTrainedInApp
                                                                   : static_cast<int>(session_->preset());
    // While the Train panel holds weights (saved or not), they can be shown again after another
    // model was picked: the entry is never a dead end the quit prompt then asks about.
    const bool canShowTrained = shown == kTrainedInApp || window_->trainingPanel()->hasTrainedWeights();
    for (QAction* a : actions_.presetGroup->actions()) {
        const int data = a->data().toInt();
        a->setText(data == kFromFile ? tr("From File…") : entryText(data));
        a->setChecked(data == shown);
        if (data == kTrainedInApp) a->setEnabled(canShowTrained);
    }
    if (presetBox_) {
        const QSignalBlocker block(presetBox_);
        for (int i = 0; i < presetBox_->count(); ++i) presetBox_->setItemText(i, entryText(presetBox_->itemData(i).toInt()));
        if (auto* items = qobject_cast<QStandardItemModel*>(presetBox_->model()))
            if (QStandardItem* inApp = items->item(presetBox_->findData(kTrainedInApp)))
                inApp->setEnabled(canShowTrained);
        presetBox_->setCurrentIndex(presetBox_->findData(shown));
    }
    actions_.retrain->setEnabled(showsPreset() && session_->preset() != Session::Preset::Untrained);
}

QString ModelChooser::windowTitle() const {
    // Without the app's name: Qt appends the application display name ("… — Stepformer").
    if (!showsPreset()) return session_->modelDescription();
    return tr("%1 model (%2)").arg(Session::presetKey(session_->preset()), session_->modelStateText());
}

void ModelChooser::showTrainedInApp() {
    const TrainingPanel* panel = window_->trainingPanel();
    if (session_->modelState() == Session::ModelState::TrainedInApp || !panel->hasTrainedWeights()) {
        showModel();
        return;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    session_->installTrainedModel(panel->trainedConfig(), panel->trainedParams(), nullptr);
    QApplication::restoreOverrideCursor();
    showModel();
}

void ModelChooser::choosePreset(Session::Preset p) {
    if (p == session_->preset() && showsPreset()) return;
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
