#include "explain/explain_header.h"

#include <QEvent>
#include <QPainter>
#include <QTextOption>

namespace {

constexpr int kMargin = 10;  // the explanation document's margin, so both align

// Lets a dotted trace name wrap after each dot.
QString wrappable(const QString& name) {
    QString s = name;
    s.replace(QLatin1Char('.'), QStringLiteral(".\u200B"));
    return s;
}

}  // namespace

ExplainHeader::ExplainHeader(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("explainHeader"));
    setAccessibleName(tr("Explanation of the step"));
    setAttribute(Qt::WA_OpaquePaintEvent);
    QSizePolicy sp(QSizePolicy::Preferred, QSizePolicy::Minimum);
    sp.setHeightForWidth(true);
    setSizePolicy(sp);
}

void ExplainHeader::setContent(const Content& content) {
    if (content == content_) return;
    const int oldHeight = layoutFor(width());
    content_ = content;
    laidOutWidth_ = -1;
    setAccessibleDescription(plainText());  // what a screen reader reads of the painted text
    if (layoutFor(width()) != oldHeight) updateGeometry();
    update();
}

QString ExplainHeader::plainText() const {
    QStringList lines;
    for (const Paragraph& p : paragraphs()) lines << QString(p.text).remove(QChar(0x200B));
    return lines.join(QLatin1Char('\n'));
}

std::vector<ExplainHeader::Paragraph> ExplainHeader::paragraphs() const {
    std::vector<Paragraph> out;
    if (content_.title.isEmpty() && content_.name.isEmpty()) return out;
    QFont title = font();
    title.setBold(true);
    title.setPointSizeF(font().pointSizeF() * 1.4);
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setStyleHint(QFont::Monospace);
    mono.setPointSizeF(font().pointSizeF() * 0.92);
    const QColor text = palette().color(QPalette::Text);
    QColor soft = text;
    soft.setAlphaF(0.7f);
    out.push_back({content_.title, title, text, 0});
    if (!content_.location.isEmpty()) out.push_back({content_.location, font(), soft, 4});
    out.push_back({wrappable(content_.name), mono, soft, 2});
    if (!content_.shape.isEmpty()) out.push_back({tr("Shape ") + content_.shape, mono, text, 8});
    if (!content_.stats.isEmpty()) out.push_back({content_.stats, font(), text, 2});
    return out;
}

int ExplainHeader::layoutFor(int width) const {
    if (width == laidOutWidth_) return laidOutHeight_;
    layouts_.clear();
    colors_.clear();
    const qreal lineWidth = std::max(40, width - 2 * kMargin);
    qreal y = kMargin;
    QTextOption opt;
    opt.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    const auto paras = paragraphs();
    for (const Paragraph& p : paras) {
        auto layout = std::make_unique<QTextLayout>(p.text, p.font);
        layout->setTextOption(opt);
        layout->setCacheEnabled(true);
        y += p.spaceBefore;
        layout->beginLayout();
        for (QTextLine line = layout->createLine(); line.isValid(); line = layout->createLine()) {
            line.setLineWidth(lineWidth);
            line.setPosition(QPointF(kMargin, y));
            y += line.height();
        }
        layout->endLayout();
        layouts_.push_back(std::move(layout));
        colors_.push_back(p.color);
    }
    laidOutWidth_ = width;
    laidOutHeight_ = paras.empty() ? 0 : int(std::ceil(y)) + 4;
    return laidOutHeight_;
}

int ExplainHeader::heightForWidth(int width) const { return layoutFor(width); }

QSize ExplainHeader::sizeHint() const { return {240, layoutFor(width() > 0 ? width() : 240)}; }
QSize ExplainHeader::minimumSizeHint() const { return {120, 0}; }

void ExplainHeader::paintEvent(QPaintEvent* e) {
    QPainter p(this);
    p.fillRect(e->rect(), palette().color(QPalette::Base));
    layoutFor(width());
    for (size_t i = 0; i < layouts_.size(); ++i) {
        p.setPen(colors_[i]);
        layouts_[i]->draw(&p, QPointF(0, 0));
    }
}

void ExplainHeader::changeEvent(QEvent* e) {
    if (e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange || e->type() == QEvent::StyleChange) {
        laidOutWidth_ = -1;
        updateGeometry();
        update();
    }
    QWidget::changeEvent(e);
}
