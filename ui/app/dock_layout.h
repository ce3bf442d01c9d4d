// Where the main window's docks go, so that a laptop-sized window stays whole (issue 14):
//
// - The default arrangement suits the window's size on its screen. In a window narrower than
//   1600 px (all of them on a 1366 or 1440 px laptop) it is compact: the architecture diagram is a
//   tab behind the navigator (split under it, the diagram was a strip with ~6 px text), and the
//   side docks are narrow, so the central view keeps about 60 % of a 1366 px window. Wider, the
//   diagram sits under the navigator.
// - The Train dock takes height from the central view only: the side docks own the bottom corners,
//   so the Train dock lies under the central view, and opening it gives it at most half of the
//   height the central view had (the panel scrolls inside itself). The navigator and explanation
//   keep their full height; closing the dock gives the central view its height back. No dock's
//   minimum makes the window grow.
// - A dock that is floated lands whole on the window's screen.
#pragma once

#include <QByteArray>
#include <QObject>

class QDockWidget;
class QMainWindow;
class QScreen;
class QWidget;

class DockLayout : public QObject {
    Q_OBJECT
public:
    struct Docks {
        QDockWidget *navigator = nullptr, *explain = nullptr, *diagram = nullptr, *input = nullptr,
                    *training = nullptr;
    };
    // The docks must already be added to `window`.
    DockLayout(QMainWindow* window, QWidget* central, const Docks& docks);

    // Compact below this window width (px): every window on a laptop's screen, and a narrow
    // window on a big one.
    static constexpr int kCompactBelow = 1600;
    static bool isCompact(int windowWidth);
    bool isCompact() const;  // the window as it is (maximised: its screen's width)

    // The default arrangement: every dock docked in its area, shown (the Train dock hidden), then
    // arrangeForScreen().
    void applyDefault();
    // The diagram's place (a tab or under the navigator) and the docks' sizes for the window's
    // size; which docks are shown stays.
    void arrangeForScreen();

    // The training layout (View › Training Layout): for a teacher training in front of a class, the
    // Train dock gets most of the window's height (its loss chart, gradient norm and replay in full)
    // and the side docks step aside; the central view keeps a strip for the live views. Off puts
    // every dock back as it was.
    void setTrainingLayout(bool on);
    bool isTrainingLayout() const { return trainingLayout_; }

private:
    void onTrainingShown();
    void fitOnScreen(QDockWidget* dock);

    QMainWindow* window_;
    bool trainingLayout_ = false;
    QByteArray beforeTraining_;  // the window's state when the training layout was turned on
    QWidget* central_;
    Docks docks_;
};
