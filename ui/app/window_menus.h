// The menu bar (File, View, Step, Model, Help) and the main toolbar, over the window's actions,
// the docks' toggles and the navigator's step actions.
#pragma once

#include <QCoreApplication>
#include <QList>

class QComboBox;
class QDockWidget;
class QMainWindow;
class Session;
class StepNavigator;
struct WindowActions;

class WindowMenus {
    Q_DECLARE_TR_FUNCTIONS(WindowMenus)

public:
    // docks: their toggles in the View menu's order; the trainingDock's toggles with Ctrl+T.
    // Returns the toolbar's model box (an item's data is its preset, or -1 for "From file…").
    static QComboBox* build(QMainWindow* window, const WindowActions& actions, const QList<QDockWidget*>& docks,
                            QDockWidget* trainingDock, StepNavigator* navigator, Session* session);

private:
    static void addMenus(QMainWindow* window, const WindowActions& actions, const QList<QDockWidget*>& docks,
                         QDockWidget* trainingDock, StepNavigator* navigator, Session* session);
    static QComboBox* addToolBar(QMainWindow* window, const WindowActions& actions, StepNavigator* navigator);
};
