// QProgressBar::setValue paints the bar at once (a synchronous repaint whenever the drawn bar
// changes). Called for every step of a training run, that is a paint per step in the middle of
// whatever the event loop is handling; the monkey test caught one waiting for the raster
// engine's helper threads while background passes held the cores. setProgressValue sets the
// value and leaves the paint to the window's next one, with everything else that changed.
#pragma once

#include <QProgressBar>

inline void setProgressValue(QProgressBar* bar, int value) {
    if (bar->value() == value) return;
    bar->setUpdatesEnabled(false);  // (repaint() does nothing while updates are off)
    bar->setValue(value);
    bar->setUpdatesEnabled(true);   // schedules an update()
}
