// How the app looks on the screen in front of a class: the theme (the system's, light or dark)
// and a presentation zoom (larger text, and with it larger heatmap cells, labels and charts),
// remembered as QSettings view/theme (system | light | dark) and view/zoom (percent).
//
// The dark theme is a palette: every view paints with palette roles (Window, Base, Text,
// PlaceholderText, Mid, ...), so they follow it; the colour maps keep their colours (they are the
// data), their text picks black or white by the cell's lightness.
#pragma once

#include <QObject>
#include <QString>

class QAction;
class QActionGroup;
class QMenu;
class QWidget;

class Appearance : public QObject {
    Q_OBJECT
public:
    enum class Theme { System, Light, Dark };
    static constexpr int kZoomSteps[] = {100, 125, 150, 175, 200};

    // Adds View › Appearance (theme, zoom in / out / actual size) to `viewMenu`; applies the
    // remembered theme and zoom when `restore`.
    Appearance(QWidget* window, QMenu* viewMenu, bool restore);

    static void applyTheme(Theme theme);
    static Theme theme();
    static QString themeKey(Theme t);
    // The app's font at `percent` of the system's size (100: as the system sets it).
    static void applyZoom(int percent);
    static int zoom();

    QMenu* menu() const { return menu_; }
    QAction* zoomInAction() const { return zoomIn_; }
    QAction* zoomOutAction() const { return zoomOut_; }
    QAction* actualSizeAction() const { return actualSize_; }
    QAction* themeAction(Theme t) const;
    // The menu's checks and enabled entries for the theme and zoom applied now (after a static apply).
    void refresh() { updateActions(); }

private:
    void step(int direction);
    void updateActions();

    QMenu* menu_ = nullptr;
    QActionGroup* themes_ = nullptr;
    QAction *zoomIn_ = nullptr, *zoomOut_ = nullptr, *actualSize_ = nullptr;
    bool remember_ = true;
};
