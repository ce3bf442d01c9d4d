// Switching the model to step through: a preset (the Model menu, the toolbar's model box), Train
// Again, or weights from a file (File › Open Weights, the box's "From file…"). The Model menu, the
// box and the window title show the session's model in the same words in every state: a preset
// with its state ("Tutorial (…, training…)", "…, untrained" while --no-train, "…, trained"),
// "Trained in the app" (the Train panel's weights) or "From file…".
#pragma once

#include <QCoreApplication>

#include <functional>

#include <QObject>

#include "app/session.h"

class QComboBox;
class MainWindow;
struct WindowActions;

class ModelChooser : public QObject {
    // Its texts in its own translation context (the one lupdate gives it), without a moc.
    Q_DECLARE_TR_FUNCTIONS(ModelChooser)

public:
    // showModel: shows the session's model in the whole window again; Open Weights asks for it
    // also when the model stays (the box must leave "From file…").
    ModelChooser(Session* session, MainWindow* window, const WindowActions& actions, std::function<void()> showModel);

    // The data of the box's and the Model menu's entries that are no preset.
    static constexpr int kFromFile = -1, kTrainedInApp = -2;

    // The toolbar's model box: an item's data is its preset, kFromFile for "From file…"; the
    // chooser adds "Trained in the app" (kTrainedInApp, enabled while that is the model).
    void setPresetBox(QComboBox* box);
    // Checks the session's preset (none for weights from a file) in the Model menu and the box;
    // Train Again needs a preset that trains.
    void showModel();
    // "Stepformer — tutorial model (training…)", "Stepformer — <the file's description>".
    QString windowTitle() const;

private:
    // The entry of `data` (a preset, kFromFile, kTrainedInApp) in the session's state.
    QString entryText(int data) const;
    bool showsPreset() const;  // the session's model is a preset's (not the Train panel's, not a file's)
    void choosePreset(Session::Preset p);
    void retrainPreset();
    void openWeightsDialog();
    // Back to the Train panel's last weights after another model was shown.
    void showTrainedInApp();

    Session* session_ = nullptr;
    MainWindow* window_ = nullptr;
    const WindowActions& actions_;
    std::function<void()> showWindowModel_;
    QComboBox* presetBox_ = nullptr;
};
