// What a desktop app is expected to do besides its own work, wired onto the main window in one
// place: find a step (Ctrl+F), full screen (F11), the training layout (Ctrl+Shift+T), copy a cell
// (Ctrl+C), the theme and presentation zoom (Appearance), File › Open Recent, and files dropped on the
// window or given on the command line (weights open as the model, a TSV dataset goes to the Train
// panel, a PyTorch .pth gets the advice to convert it). And the step keys never get stuck: ← → Home
// End step the pass even when a spin box or button of a view has the focus, and when the widget
// with the focus disappears (a tab switched by Follow Step, a button that hides itself), the focus
// goes back to the step tree, never into a text field where the next key would replace a sentence.
#pragma once

#include <QObject>
#include <QPointer>
#include <QWidget>
#include <QStringList>

class Appearance;
class MainWindow;
class QAction;
class QMenu;
class StepSearchPopup;

class DesktopHabits : public QObject {
    Q_OBJECT
public:
    // Adds its actions to the window's File and View menus (found by object name).
    DesktopHabits(MainWindow* window, QAction* findStep);

    // Opens a weights file or a dataset by its extension; false (after showing why) otherwise.
    bool openFile(const QString& path);
    // Ctrl+C: a heatmap's selected block of cells (HeatmapWidget::selectionCopyText), else the
    // cell under the mouse or the keyboard's cell cursor (HeatmapWidget::cellCopyText).
    bool copyHoveredCell();
    QStringList recentFiles() const;
    QMenu* recentMenu() const { return recent_; }
    QAction* fullScreenAction() const { return fullScreen_; }
    QAction* trainingLayoutAction() const { return trainingLayout_; }
    StepSearchPopup* stepSearch() const { return search_; }
    Appearance* appearance() const { return appearance_; }  // View › Appearance: theme, presentation zoom
    static constexpr int kMaxRecent = 8;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void remember(const QString& path);
    void rebuildRecentMenu();
    void findStep();
    void onFocusChanged(QWidget* old, QWidget* now);

    MainWindow* window_;
    QMenu* recent_ = nullptr;
    QAction* fullScreen_ = nullptr;
    QAction* copyCell_ = nullptr;
    QAction* trainingLayout_ = nullptr;
    Appearance* appearance_ = nullptr;
    QPointer<QWidget> lostFocus_;  // the widget whose focus was cleared, until someone gets it
    bool keepOnTree_ = false;      // the focus was put back on the step tree in this event-loop pass
    StepSearchPopup* search_ = nullptr;
};
