// Which texts were drawn shortened ("…"): a record the layout check reads
// (tests/ui/test_view_layout.cpp) to fail on any title or label a student cannot read whole.
//
// Widgets that elide go through elidedText() (or drawCachedText, which calls it); while
// recording is off (the app) noting costs one flag test.
#pragma once

#include <vector>

#include <QPointer>
#include <QString>

class QFontMetrics;
class QFontMetricsF;
class QPaintDevice;
class QPainter;
class QWidget;

namespace elision_log {

struct Record {
    QPointer<QWidget> widget;  // the widget painted on (null when it was not a widget)
    QString text;              // the whole text
    QString shown;             // what was drawn instead
};

void setRecording(bool on);
bool recording();
// Notes that `text` was drawn on `device` as `shown`.
void note(QPaintDevice* device, const QString& text, const QString& shown);
// The records since the last take(), and forgets them.
std::vector<Record> take();

// fm.elidedText(text, mode, width), noted when shortened (the painter says on what).
QString elidedText(QPainter& p, const QFontMetrics& fm, const QString& text, int mode, int width);
QString elidedText(QPainter& p, const QFontMetricsF& fm, const QString& text, int mode, qreal width);

}  // namespace elision_log
