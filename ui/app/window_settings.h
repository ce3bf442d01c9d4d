// What the window remembers between runs (QSettings): its geometry and dock layout, the
// sentences, the preset, the view, follow step, the step and the play speed; and the size it
// has before it remembers one.
#pragma once

#include "app/main_window.h"

class QScreen;

class WindowSettings {
public:
    // Reads them unless options.restoreSettings is off (options.preset and options.weightsPath win
    // over the remembered preset) and applies them. True when a remembered dock layout was restored.
    static bool restore(MainWindow& window, const MainWindow::Options& options);
    static void save(const MainWindow& window);
    // Before any remembered geometry: 1440 x 900, or less on a smaller screen (the primary one,
    // or `screen`).
    static QSize defaultSize();
    static QSize defaultSize(const QScreen* screen);
};
