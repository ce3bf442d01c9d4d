#include "app/appearance.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QFont>
#include <QMenu>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QWidget>

namespace {

const QString kThemeKey = QStringLiteral("view/theme");
const QString kZoomKey = QStringLiteral("view/zoom");

// What the platform gave before any theme or zoom was applied (captured on first use).
const QPalette& systemPalette() {
    static const QPalette p = QApplication::palette();
    return p;
}
const QFont& systemFont() {
    static const QFont f = QApplication::font();
    return f;
}

Appearance::Theme g_theme = Appearance::Theme::System;
int g_zoom = 100;

// A dark palette with the contrast a projector needs: text at ~90 % white on ~18 % grey.
QPalette darkPalette() {
    QPalette p;
    const QColor window(46, 47, 50), base(32, 33, 36), text(232, 232, 232), button(58, 59, 63);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(40, 41, 44));
    p.setColor(QPalette::ToolTipBase, QColor(62, 63, 68));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 110, 110));
    p.setColor(QPalette::Light, QColor(88, 89, 94));
    p.setColor(QPalette::Midlight, QColor(72, 73, 78));
    p.setColor(QPalette::Mid, QColor(96, 97, 102));
    p.setColor(QPalette::Dark, QColor(24, 24, 27));
    p.setColor(QPalette::Shadow, QColor(10, 10, 12));
    p.setColor(QPalette::Highlight, QColor(52, 120, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(120, 175, 255));
    p.setColor(QPalette::LinkVisited, QColor(180, 150, 255));
    for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, QColor(128, 128, 128));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
    return p;
}

}  // namespace

QString Appearance::themeKey(Theme t) {
    switch (t) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

void Appearance::applyTheme(Theme theme) {
    (void)systemPalette();
    g_theme = theme;
    if (theme == Theme::Dark)
        QApplication::setPalette(darkPalette());
    else if (theme == Theme::Light)
        QApplication::setPalette(QApplication::style()->standardPalette());
    else
        QApplication::setPalette(systemPalette());
}

Appearance::Theme Appearance::theme() { return g_theme; }

namespace {
QFont scaled(QFont f, double ratio) {
    if (f.pointSizeF() > 0)
        f.setPointSizeF(f.pointSizeF() * ratio);
    else
        f.setPixelSize(std::max(1, int(std::lround(f.pixelSize() * ratio))));
    return f;
}

// A chart's texts have fonts of their own, taken when it was made: its title, legend, axes and
// bar labels follow the zoom by the same factor.
void scaleChartFonts(QChart* c, double ratio) {
    if (!c) return;
    c->setTitleFont(scaled(c->titleFont(), ratio));
    c->legend()->setFont(scaled(c->legend()->font(), ratio));
    for (QAbstractAxis* a : c->axes()) {
        a->setLabelsFont(scaled(a->labelsFont(), ratio));
        a->setTitleFont(scaled(a->titleFont(), ratio));
    }
    for (QAbstractSeries* s : c->series())
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s))
            for (QBarSet* set : bars->barSets()) set->setLabelFont(scaled(set->labelFont(), ratio));
}
}  // namespace

void Appearance::applyZoom(int percent) {
    const QFont& base = systemFont();
    g_zoom = std::clamp(percent, kZoomSteps[0], kZoomSteps[std::size(kZoomSteps) - 1]);
    QFont f = base;
    if (base.pointSizeF() > 0)
        f.setPointSizeF(base.pointSizeF() * g_zoom / 100.0);
    else
        f.setPixelSize(std::max(1, base.pixelSize() * g_zoom / 100));
    const QFont before = QApplication::font();
    QApplication::setFont(f);
    // A widget whose font has a size of its own (a view's title, a dock's caption, the bold Start
    // button) does not follow the application's font: it grows and shrinks by the same factor.
    const double ratio = before.pointSizeF() > 0 && f.pointSizeF() > 0 ? f.pointSizeF() / before.pointSizeF()
                         : before.pixelSize() > 0 && f.pixelSize() > 0 ? double(f.pixelSize()) / before.pixelSize()
                                                                          : 1.0;
    if (ratio == 1.0) return;
    for (QWidget* w : QApplication::allWidgets()) {
        if (auto* view = qobject_cast<QChartView*>(w)) scaleChartFonts(view->chart(), ratio);
        if (!w->testAttribute(Qt::WA_SetFont) || !(w->font().resolveMask() & QFont::SizeResolved)) continue;
        w->setFont(scaled(w->font(), ratio));
    }
}

int Appearance::zoom() { return g_zoom; }

Appearance::Appearance(QWidget* window, QMenu* viewMenu, bool restore) : QObject(window), remember_(restore) {
    setObjectName(QStringLiteral("appearance"));
    menu_ = new QMenu(tr("&Appearance"), window);
    menu_->setObjectName(QStringLiteral("menuAppearance"));
    themes_ = new QActionGroup(menu_);
    themes_->setExclusive(true);
    const struct {
        Theme theme;
        QString text, tip;
    } kThemes[] = {
        {Theme::System, tr("&System Theme"), tr("The colours of the desktop")},
        {Theme::Light, tr("&Light Theme"), tr("Dark text on light backgrounds")},
        {Theme::Dark, tr("&Dark Theme"), tr("Light text on dark backgrounds: easier on the eyes in a dim room")},
    };
    for (const auto& t : kThemes) {
        auto* a = menu_->addAction(t.text);
        a->setObjectName(QStringLiteral("actionTheme_%1").arg(themeKey(t.theme)));
        a->setCheckable(true);
        a->setToolTip(t.tip);
        a->setStatusTip(t.tip);
        a->setData(int(t.theme));
        themes_->addAction(a);
        connect(a, &QAction::triggered, this, [this, theme = t.theme] {
            applyTheme(theme);
            if (remember_) QSettings().setValue(kThemeKey, themeKey(theme));
            updateActions();
        });
    }
    menu_->addSeparator();
    zoomIn_ = menu_->addAction(tr("Zoom &In"));
    zoomIn_->setObjectName(QStringLiteral("actionZoomIn"));
    zoomIn_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    zoomIn_->setToolTip(tr("Larger text, labels and cells, for presenting (Ctrl++)"));
    zoomOut_ = menu_->addAction(tr("Zoom &Out"));
    zoomOut_->setObjectName(QStringLiteral("actionZoomOut"));
    zoomOut_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
    zoomOut_->setToolTip(tr("Back towards the desktop's text size (Ctrl+-)"));
    actualSize_ = menu_->addAction(tr("&Actual Size"));
    actualSize_->setObjectName(QStringLiteral("actionZoomReset"));
    actualSize_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    for (QAction* a : {zoomIn_, zoomOut_, actualSize_}) {
        a->setStatusTip(a->toolTip());
        window->addAction(a);  // the shortcuts work in full screen without the menu bar too
    }
    connect(zoomIn_, &QAction::triggered, this, [this] { step(+1); });
    connect(zoomOut_, &QAction::triggered, this, [this] { step(-1); });
    connect(actualSize_, &QAction::triggered, this, [this] { step(0); });
    if (viewMenu) viewMenu->addMenu(menu_);

    if (restore) {
        const QSettings s;
        const QString key = s.value(kThemeKey).toString();
        for (Theme t : {Theme::Light, Theme::Dark})
            if (key == themeKey(t)) applyTheme(t);
        const int z = s.value(kZoomKey, 100).toInt();
        if (z != 100) applyZoom(z);
    }
    updateActions();
}

QAction* Appearance::themeAction(Theme t) const {
    for (QAction* a : themes_->actions())
        if (a->data().toInt() == int(t)) return a;
    return nullptr;
}

void Appearance::step(int direction) {
    const int* begin = std::begin(kZoomSteps);
    const int* end = std::end(kZoomSteps);
    int next = 100;
    if (direction > 0) {
        const int* it = std::upper_bound(begin, end, g_zoom);
        next = it == end ? *(end - 1) : *it;
    } else if (direction < 0) {
        const int* it = std::lower_bound(begin, end, g_zoom);
        next = it == begin ? *begin : *(it - 1);
    }
    applyZoom(next);
    if (remember_) QSettings().setValue(kZoomKey, g_zoom);
    updateActions();
}

void Appearance::updateActions() {
    if (QAction* a = themeAction(g_theme)) a->setChecked(true);
    zoomIn_->setEnabled(g_zoom < kZoomSteps[std::size(kZoomSteps) - 1]);
    zoomOut_->setEnabled(g_zoom > kZoomSteps[0]);
    actualSize_->setEnabled(g_zoom != 100);
    actualSize_->setText(tr("&Actual Size (now %1 %)").arg(g_zoom));
}
