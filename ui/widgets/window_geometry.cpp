#include "widgets/window_geometry.h"

#include <algorithm>

#include <QByteArray>
#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

bool restoreGeometryOnScreen(QWidget* window, const QByteArray& saved) {
    if (saved.isEmpty() || !window->restoreGeometry(saved)) return false;
    if (window->isMaximized() || window->isFullScreen()) return true;  // the platform sizes those
    QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) return true;
    const QRect avail = screen->availableGeometry();
    // The frame's decorations count against the screen too.
    const QSize frameExtra = window->frameGeometry().size() - window->geometry().size();
    const QSize fit(std::max(window->minimumWidth(), avail.width() - frameExtra.width()),
                    std::max(window->minimumHeight(), avail.height() - frameExtra.height()));
    if (window->width() > fit.width() || window->height() > fit.height()) window->resize(window->size().boundedTo(fit));
    QRect frame = window->frameGeometry();
    if (!avail.contains(frame)) {
        frame.moveLeft(std::clamp(frame.left(), avail.left(), std::max(avail.left(), avail.right() + 1 - frame.width())));
        frame.moveTop(std::clamp(frame.top(), avail.top(), std::max(avail.top(), avail.bottom() + 1 - frame.height())));
        window->move(frame.topLeft());
    }
    return true;
}
