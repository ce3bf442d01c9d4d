// A window's saved geometry, restored so that it fits the screen it lands on. Qt restores the
// saved size as it was: a window saved on a large monitor (or one that had grown past its
// screen) came back tens of thousands of pixels wide on a laptop, and every paint then filled all
// of it.
#pragma once

class QByteArray;
class QWidget;

// restoreGeometry(saved), then the window shrunk to its screen's available area and moved into it
// where it sticks out. False (and the window untouched) when `saved` is not a saved geometry.
bool restoreGeometryOnScreen(QWidget* window, const QByteArray& saved);
