// The helpers behind fast step switching: the flat scroll bars, the prepared-text cache, the
// pool-thread image, the wrapped label, the explain header, shared heatmap numbers.
#include <QtTest>

#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QStyleFactory>
#include <QStyleOptionSlider>

#include <memory>

#include "app/app_style.h"
#include "explain/explain_header.h"
#include "widgets/heatmap_widget.h"
#include "widgets/offthread_paint.h"
#include "widgets/static_text_cache.h"
#include "widgets/wrapped_label.h"

namespace {

// The bounding box of the pixels that are not white.
QRect inkBox(const QImage& img) {
    QRect box;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if ((img.pixel(x, y) & 0xffffff) != 0xffffff) box |= QRect(x, y, 1, 1);
    return box;
}

QImage whiteImage(int w, int h) {
    QImage img(w, h, QImage::Format_RGB32);
    img.fill(Qt::white);
    return img;
}

}  // namespace

class TestPaintHelpers : public QObject {
    Q_OBJECT
private slots:
    void cachedTextLandsWhereDrawTextDoes_data();
    void cachedTextLandsWhereDrawTextDoes();
    void cachedTextElidesAndRotates();
    void poolImageHoldsWhatWasPainted();
    void flatScrollBarKeepsFusionGeometry();
    void wrappedLabelHeightFollowsText();
    void explainHeaderLinesAndHeight();
    void sharedNumbersColourByTheirOwnRange();
};

void TestPaintHelpers::cachedTextLandsWhereDrawTextDoes_data() {
    QTest::addColumn<int>("align");
    QTest::addColumn<QString>("text");
    QTest::newRow("left-vcenter") << int(Qt::AlignLeft | Qt::AlignVCenter) << QStringLiteral("mochte");
    QTest::newRow("right-vcenter") << int(Qt::AlignRight | Qt::AlignVCenter) << QStringLiteral("511");
    QTest::newRow("center") << int(Qt::AlignCenter) << QStringLiteral("\u22120.25");
    QTest::newRow("hcenter-bottom") << int(Qt::AlignHCenter | Qt::AlignBottom) << QStringLiteral("bier");
}

// The same pixels, give or take one, as QPainter::drawText for one line in a rect.
void TestPaintHelpers::cachedTextLandsWhereDrawTextDoes() {
    QFETCH(int, align);
    QFETCH(QString, text);
    const QRect rect(10, 8, 120, 30);
    QImage a = whiteImage(160, 50), b = whiteImage(160, 50);
    {
        QPainter p(&a);
        p.setPen(Qt::black);
        p.drawText(rect, align, text);
    }
    {
        QPainter p(&b);
        p.setPen(Qt::black);
        drawCachedText(p, rect, align, text);
        drawCachedText(p, rect, align, text);  // from the cache the second time: same place
    }
    const QRect ia = inkBox(a), ib = inkBox(b);
    QVERIFY(!ia.isEmpty());
    QVERIFY2(std::abs(ia.left() - ib.left()) <= 1 && std::abs(ia.top() - ib.top()) <= 1 &&
                 std::abs(ia.width() - ib.width()) <= 1 && std::abs(ia.height() - ib.height()) <= 1,
             qPrintable(QStringLiteral("drawText %1,%2 %3x%4 vs cached %5,%6 %7x%8")
                            .arg(ia.x()).arg(ia.y()).arg(ia.width()).arg(ia.height())
                            .arg(ib.x()).arg(ib.y()).arg(ib.width()).arg(ib.height())));
}

void TestPaintHelpers::cachedTextElidesAndRotates() {
    // Elided to the width: no ink beyond it.
    QImage img = whiteImage(300, 40);
    {
        QPainter p(&img);
        p.setPen(Qt::black);
        drawCachedText(p, QRect(0, 0, 300, 40), Qt::AlignLeft | Qt::AlignVCenter,
                       QStringLiteral("encoder.layers.0.enc_self_attn.masked_scores"), 60);
    }
    const QRect ink = inkBox(img);
    QVERIFY(!ink.isEmpty());
    QVERIFY2(ink.right() < 62, qPrintable(QString::number(ink.right())));
    // Turned a quarter (the vertical column labels): the text runs upwards.
    QImage rot = whiteImage(40, 200);
    {
        QPainter p(&rot);
        p.setPen(Qt::black);
        p.translate(20, 190);
        p.rotate(-90);
        drawCachedText(p, QRect(0, -10, 180, 20), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("source token"));
    }
    const QRect r = inkBox(rot);
    QVERIFY(!r.isEmpty());
    QVERIFY2(r.height() > 3 * r.width(), qPrintable(QStringLiteral("%1x%2").arg(r.width()).arg(r.height())));
}

void TestPaintHelpers::poolImageHoldsWhatWasPainted() {
    const QImage img = paintImageInPool(QSize(120, 300), 1.0, [](QPainter& p) {
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(QPen(QColor(31, 119, 180, 200), 3.0));
        p.drawLine(QPointF(5, 5), QPointF(115, 295));  // tall enough for Qt to split the fill
    });
    QCOMPARE(img.size(), QSize(120, 300));
    QCOMPARE(img.format(), QImage::Format_ARGB32_Premultiplied);
    QCOMPARE(qAlpha(img.pixel(2, 290)), 0);             // transparent away from the line
    QVERIFY(qAlpha(img.pixel(60, 150)) > 100);          // the line's middle
    QVERIFY(qBlue(img.pixel(60, 150)) > qRed(img.pixel(60, 150)));
}

void TestPaintHelpers::flatScrollBarKeepsFusionGeometry() {
    QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
    QVERIFY(fusion);
    AppStyle style(QStyleFactory::create(QStringLiteral("Fusion")));
    QScrollBar bar(Qt::Vertical);
    bar.setStyle(&style);
    bar.setRange(0, 100);
    bar.setPageStep(20);
    bar.setValue(40);
    bar.resize(16, 300);
    QStyleOptionSlider opt;
    opt.initFrom(&bar);
    opt.orientation = Qt::Vertical;
    opt.minimum = 0;
    opt.maximum = 100;
    opt.pageStep = 20;
    opt.sliderPosition = opt.sliderValue = 40;
    opt.subControls = QStyle::SC_All;
    // Hit testing is Fusion's: only the drawing changed.
    const QRect handle = style.subControlRect(QStyle::CC_ScrollBar, &opt, QStyle::SC_ScrollBarSlider, &bar);
    QCOMPARE(handle, fusion->subControlRect(QStyle::CC_ScrollBar, &opt, QStyle::SC_ScrollBarSlider, &bar));
    QVERIFY(handle.height() > 20);
    const QImage img = bar.grab().toImage().convertToFormat(QImage::Format_RGB32);
    // The handle is one solid colour, darker than the groove around it.
    const QPoint mid = handle.center();
    const QRgb h = img.pixel(mid), h2 = img.pixel(mid.x(), mid.y() + handle.height() / 4);
    QCOMPARE(h, h2);
    const QRgb groove = img.pixel(mid.x(), handle.bottom() + 20);
    QVERIFY2(qGray(h) < qGray(groove), qPrintable(QStringLiteral("%1 vs %2").arg(qGray(h)).arg(qGray(groove))));
    delete fusion;
}

void TestPaintHelpers::wrappedLabelHeightFollowsText() {
    WrappedLabel label;
    QLabel reference;
    reference.setWordWrap(true);
    const QString shortText = QStringLiteral("<b>scores</b> = Q·Kᵀ/√d_k");
    const QString longText = shortText + QStringLiteral(": how well each query (row) matches each key (column). ").repeated(6);
    for (const QString& t : {shortText, longText}) {
        label.setText(t);
        reference.setText(t);
        for (int w : {200, 600}) QCOMPARE(label.heightForWidth(w), reference.heightForWidth(w));
    }
    label.setText(shortText);
    const int shortH = label.heightForWidth(300);
    label.setText(longText);  // a new text: no stale height
    QVERIFY(label.heightForWidth(300) > 2 * shortH);
    label.resize(300, 10);
    QCOMPARE(label.sizeHint().height(), label.heightForWidth(300));
    QVERIFY(label.hasHeightForWidth());
}

void TestPaintHelpers::explainHeaderLinesAndHeight() {
    ExplainHeader header;
    ExplainHeader::Content c;
    c.title = QStringLiteral("scores = QKᵀ/√d_k");
    c.location = QStringLiteral("Encoder layer 0 › Self-attention");
    c.name = QStringLiteral("encoder.layers.0.enc_self_attn.scores");
    c.shape = QStringLiteral("[batch_size=1, n_heads=8, len_q=5, len_k=5]");
    c.stats = QStringLiteral("200 values, min -1.472, max 1.351, mean 0.07657");
    header.setContent(c);
    const QStringList lines = header.plainText().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines[2], c.name);  // no wrap marks left in the text
    QVERIFY(lines[3].contains(c.shape));
    // Narrower: more lines, taller.
    QVERIFY(header.heightForWidth(160) > header.heightForWidth(600));
    header.resize(320, header.heightForWidth(320));
    const QImage img = header.grab().toImage();
    QVERIFY(!inkBox(img.convertToFormat(QImage::Format_RGB32)).isEmpty());
    header.setContent({});
    QCOMPARE(header.heightForWidth(320), 0);
}

// Two owners' numbers, shown one after the other: each colours by its own range (the scan of
// shared numbers is remembered per owner, never reused for another one).
void TestPaintHelpers::sharedNumbersColourByTheirOwnRange() {
    HeatmapWidget w;
    w.resize(300, 200);
    auto owner1 = std::make_shared<std::vector<float>>(5000, 0.5f);
    (*owner1)[0] = -1.0f;
    (*owner1)[1] = 1.0f;
    w.setMatrix(50, 100, std::shared_ptr<const std::vector<float>>(owner1));
    const QColor c1 = w.colorAt(0, 2);  // 0.5 of a ±1 scale
    owner1.reset();
    w.setMatrix(0, 0, std::vector<float>());
    auto owner2 = std::make_shared<std::vector<float>>(5000, 0.5f);
    (*owner2)[0] = -8.0f;
    (*owner2)[1] = 8.0f;
    w.setMatrix(50, 100, std::shared_ptr<const std::vector<float>>(owner2));
    const QColor c2 = w.colorAt(0, 2);  // 0.5 of a ±8 scale: much paler
    QVERIFY2(c2.lightness() > c1.lightness() + 20, qPrintable(QStringLiteral("%1 vs %2").arg(c2.lightness()).arg(c1.lightness())));
    // The same owner again: the same colours.
    w.setMatrix(0, 0, std::vector<float>());
    w.setMatrix(50, 100, std::shared_ptr<const std::vector<float>>(owner2));
    QCOMPARE(w.colorAt(0, 2), c2);
}

QTEST_MAIN(TestPaintHelpers)
#include "test_paint_helpers.moc"
