// The window's actions, with their texts, shortcuts, tool tips and object names (the tests find
// them by name). They are children of the window; MainWindow and ModelChooser connect them,
// WindowMenus places them.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QStringList>

class QAction;
class QActionGroup;
class QTabWidget;
class QWidget;

struct WindowActions {
    Q_DECLARE_TR_FUNCTIONS(WindowActions)

public:
    // The View menu has an action per tab, with the tab's text and tool tip; viewNames: the views'
    // names in tab order. An action shows its tab.
    WindowActions(QWidget* window, QTabWidget* tabs, const QStringList& viewNames);

    // File
    QAction *open = nullptr, *saveTrained = nullptr, *exportCsv = nullptr, *exportNpy = nullptr,
            *exportPng = nullptr, *exportSvg = nullptr, *quit = nullptr;
    // View
    QActionGroup* viewGroup = nullptr;
    QList<QAction*> views;  // in tab order
    QAction *follow = nullptr, *restoreLayout = nullptr, *findStep = nullptr;
    QAction* compareScaling = nullptr;  // opens ScalingCompareWindow (issue 18)
    // Step
    QAction* direction = nullptr;
    // Model: a preset's action holds the preset in its data()
    QActionGroup* presetGroup = nullptr;
    QAction *retrain = nullptr, *cancelTrain = nullptr;
    QAction* layerLab = nullptr;  // opens seed 004's layer lab (LayerLabWindow), a window of its own
};
