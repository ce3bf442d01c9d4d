#include "widgets/elision_log.h"

#include <QFontMetrics>
#include <QPainter>
#include <QWidget>

namespace elision_log {

namespace {
bool on = false;
std::vector<Record>& records() {
    static std::vector<Record> r;
    return r;
}
}  // namespace

void setRecording(bool recording) {
    on = recording;
    if (!on) records().clear();
}

bool recording() { return on; }

void note(QPaintDevice* device, const QString& text, const QString& shown) {
    if (!on || text == shown) return;
    auto* w = dynamic_cast<QWidget*>(device);
    records().push_back(Record{QPointer<QWidget>(w), text, shown});
}

std::vector<Record> take() {
    std::vector<Record> out;
    out.swap(records());
    return out;
}

QString elidedText(QPainter& p, const QFontMetrics& fm, const QString& text, int mode, int width) {
    const QString shown = fm.elidedText(text, Qt::TextElideMode(mode), width);
    if (on && shown != text) note(p.device(), text, shown);
    return shown;
}

QString elidedText(QPainter& p, const QFontMetricsF& fm, const QString& text, int mode, qreal width) {
    const QString shown = fm.elidedText(text, Qt::TextElideMode(mode), width);
    if (on && shown != text) note(p.device(), text, shown);
    return shown;
}

}  // namespace elision_log
