// The layout check's probes for text Qt shortens itself (text_probes.h): each must notice a
// control that is too narrow for its text, and say nothing when it has room.
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHeaderView>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtTest>

#include "text_probes.h"

class TestTextProbes : public QObject {
    Q_OBJECT
private slots:
    void comboBox();
    void button();
    void tableHeader();
    void chartAxis();
};

namespace {

bool mentions(const QStringList& problems, const QString& what) {
    for (const QString& p : problems)
        if (p.contains(what)) return true;
    return false;
}

}  // namespace

void TestTextProbes::comboBox() {
    QWidget host;
    auto* combo = new QComboBox(&host);
    combo->setObjectName(QStringLiteral("sentencePicker"));
    combo->addItem(QStringLiteral("0: ich mochte ein bier P \u2192 S i want a beer ."));
    combo->resize(combo->sizeHint());
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    QVERIFY2(testutil::clippedControlTexts(&host).isEmpty(), qPrintable(testutil::clippedControlTexts(&host).join('\n')));
    combo->resize(80, combo->height());
    QVERIFY(mentions(testutil::clippedControlTexts(&host), QStringLiteral("combo box text cut")));
}

void TestTextProbes::button() {
    QWidget host;
    auto* b = new QPushButton(QStringLiteral("Save checkpoint\u2026"), &host);
    b->resize(b->sizeHint());
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    QVERIFY(testutil::clippedControlTexts(&host).isEmpty());
    b->resize(40, b->height());
    QVERIFY(mentions(testutil::clippedControlTexts(&host), QStringLiteral("button text cut")));
}

void TestTextProbes::tableHeader() {
    QWidget host;
    auto* layout = new QVBoxLayout(&host);
    auto* table = new QTableView;
    layout->addWidget(table);
    QStandardItemModel model(2, 2);
    model.setHorizontalHeaderLabels({QStringLiteral("\u2212log p (expected token)"), QStringLiteral("p")});
    table->setModel(&model);
    table->horizontalHeader()->resizeSection(0, 300);
    host.resize(500, 200);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    QVERIFY(testutil::clippedControlTexts(&host).isEmpty());
    table->horizontalHeader()->resizeSection(0, 30);
    QVERIFY(mentions(testutil::clippedControlTexts(&host), QStringLiteral("table header cut")));
}

void TestTextProbes::chartAxis() {
    auto* set = new QBarSet(QStringLiteral("p"));
    *set << 0.1 << 0.7 << 0.2;
    auto* series = new QBarSeries;
    series->append(set);
    auto* chart = new QChart;
    chart->addSeries(series);
    auto* axis = new QBarCategoryAxis;
    axis->append({QStringLiteral("category one"), QStringLiteral("category two"), QStringLiteral("category three")});
    chart->addAxis(axis, Qt::AlignBottom);
    series->attachAxis(axis);
    chart->legend()->hide();
    QChartView view(chart);
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50);  // the chart lays its labels out on a queued update
    QVERIFY2(testutil::clippedControlTexts(&view).isEmpty(), qPrintable(testutil::clippedControlTexts(&view).join('\n')));
    view.resize(160, 300);
    QTRY_VERIFY(mentions(testutil::clippedControlTexts(&view), QStringLiteral("chart text shortened")));
}

QTEST_MAIN(TestTextProbes)
#include "test_text_probes.moc"
