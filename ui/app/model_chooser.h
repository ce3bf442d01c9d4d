// Switching the model to step through: a preset (the Model menu, the toolbar's model box), Train
// Again, or weights from a file (File › Open Weights, the box's "From file…"). The Model menu and
// the box show the session's model.
#pragma once

#include <functional>

#include <QObject>

#include "app/session.h"

class QComboBox;
class MainWindow;
struct WindowActions;

class ModelChooser : public QObject {
public:
    // showModel: shows the session's model in the whole window again; Open Weights asks for it
    // also when the model stays (the box must leave "From file…").
    ModelChooser(Session* session, MainWindow* window, const WindowActions& actions, std::function<void()> showModel);

    // The toolbar's model box: an item's data is its preset, or -1 for "From file…".
    void setPresetBox(QComboBox* box);
    // Checks the session's preset (none for weights from a file) in the Model menu and the box;
    // Train Again needs a preset that trains.
    void showModel();

private:
    void choosePreset(Session::Preset p);
    void retrainPreset();
    void openWeightsDialog();

    Session* session_ = nullptr;
    MainWindow* window_ = nullptr;
    const WindowActions& actions_;
    std::function<void()> showWindowModel_;
    QComboBox* presetBox_ = nullptr;
};
