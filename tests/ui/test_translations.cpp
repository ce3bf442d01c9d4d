// The Chinese UI stays whole (issue 30): lupdate over the sources finds no text the committed
// resources/translations/stepformer_zh_CN.ts lacks or no longer has (a new string without its
// translation fails here); every English explanation page has its Chinese page with the same
// placeholders and code; and switching the language re-translates what is on screen and back.
#include <QtTest>

#include <QAction>
#include <QApplication>
#include <QDirIterator>
#include <QFile>
#include <QMenu>
#include <QProcess>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include "app/language.h"
#include "test_util.h"

namespace {

struct TsCounts {
    int messages = 0;
    QStringList unfinished, vanished;
};

TsCounts readTs(const QString& path) {
    TsCounts c;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return c;
    QXmlStreamReader x(&f);
    QString context, source;
    while (!x.atEnd()) {
        if (!x.readNextStartElement()) continue;
        if (x.name() == QLatin1String("name")) context = x.readElementText();
        else if (x.name() == QLatin1String("message")) ++c.messages;
        else if (x.name() == QLatin1String("source")) source = x.readElementText();
        else if (x.name() == QLatin1String("translation")) {
            const QString type = x.attributes().value(QLatin1String("type")).toString();
            const QString text = x.readElementText(QXmlStreamReader::IncludeChildElements);  // plurals: <numerusform>s
            const QString where = context + QStringLiteral(": ") + source.left(80);
            if (type == QLatin1String("vanished") || type == QLatin1String("obsolete")) c.vanished << where;
            else if (type == QLatin1String("unfinished") || text.isEmpty()) c.unfinished << where;
        }
    }
    return c;
}

QStringList placeholders(const QString& text) {
    QStringList out;
    auto it = QRegularExpression(QStringLiteral("\\{[a-z_0-9]+\\}")).globalMatch(text);
    while (it.hasNext()) out << it.next().captured();
    out.sort();
    out.removeDuplicates();
    return out;
}

QStringList codeBlocks(const QString& text) {
    QStringList out;
    auto it = QRegularExpression(QStringLiteral("```.*?```"), QRegularExpression::DotMatchesEverythingOption).globalMatch(text);
    while (it.hasNext()) out << it.next().captured();
    return out;
}

}  // namespace

class TestTranslations : public QObject {
    Q_OBJECT
private slots:
    void tsMatchesTheSources();
    void englishPluralsMatchTheSources();
    void everyPageHasItsChinesePage();
    void switchingRetranslatesAndBack();
};

// lupdate over the sources into a copy of `committed` (with `options`): what it adds is
// unfinished, what the sources no longer have vanishes. The committed file has neither, and the
// copy is the committed file. "" when so, else what differs (`howToFix` says what to run).
[[nodiscard]] static QString lupdateDrift(const QString& committed, const QStringList& options, int atLeast, const QString& howToFix) {
    const TsCounts before = readTs(committed);
    if (before.messages < atLeast) return QStringLiteral("%1 holds %2 texts").arg(committed).arg(before.messages);
    if (!before.unfinished.isEmpty()) return QStringLiteral("unfinished in %1:\n").arg(committed) + before.unfinished.join(u'\n');
    if (!before.vanished.isEmpty()) return QStringLiteral("vanished in %1:\n").arg(committed) + before.vanished.join(u'\n');
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("check.ts"));
    if (!dir.isValid() || !QFile::copy(committed, copy)) return QStringLiteral("no temporary copy");
    QProcess lupdate;
    lupdate.setProcessChannelMode(QProcess::MergedChannels);
    lupdate.start(QStringLiteral(STEPFORMER_LUPDATE), QStringList{QStringLiteral("-silent"), QStringLiteral("-locations"), QStringLiteral("none")} +
                                                          options + QStringList{QStringLiteral(STEPFORMER_SOURCE_DIR "/ui"), QStringLiteral("-ts"), copy});
    if (!lupdate.waitForFinished(120000) || lupdate.exitCode() != 0) return QStringLiteral("lupdate failed: ") + QString::fromUtf8(lupdate.readAll());
    const TsCounts after = readTs(copy);
    if (!after.unfinished.isEmpty())
        return QStringLiteral("texts without a translation (%1):\n").arg(howToFix) + after.unfinished.join(u'\n');
    if (!after.vanished.isEmpty())
        return QStringLiteral("texts the sources no longer have (%1, and drop them):\n").arg(howToFix) + after.vanished.join(u'\n');
    if (after.messages != before.messages) return QStringLiteral("%1 texts, lupdate makes %2").arg(before.messages).arg(after.messages);
    return {};
}

void TestTranslations::tsMatchesTheSources() {
    VERIFY_HELPER(lupdateDrift(QStringLiteral(STEPFORMER_SOURCE_DIR "/resources/translations/stepformer_zh_CN.ts"), {}, 1000,
                               QStringLiteral("cmake --build build --target update_translations, then translate them")));
}

// English's file holds the plural forms only ("%n threads": "1 thread" / "2 threads"): complete
// and current too.
void TestTranslations::englishPluralsMatchTheSources() {
    VERIFY_HELPER(lupdateDrift(QStringLiteral(STEPFORMER_SOURCE_DIR "/resources/translations/stepformer_en.ts"),
                               {QStringLiteral("-pluralonly")}, 5,
                               QStringLiteral("lupdate -pluralonly ui -ts resources/translations/stepformer_en.ts, then fill "
                                              "both forms")));
    QVERIFY(language::apply(QStringLiteral("en"), false));
    QCOMPARE(QCoreApplication::translate("ComputeDevices", "%n threads", nullptr, 1), QStringLiteral("1 thread"));
    QCOMPARE(QCoreApplication::translate("ComputeDevices", "%n threads", nullptr, 2), QStringLiteral("2 threads"));
    QVERIFY(language::apply(QStringLiteral("zh_CN"), false));
    QCOMPARE(QCoreApplication::translate("ComputeDevices", "%n threads", nullptr, 2), QStringLiteral("2 个线程"));
    QVERIFY(language::apply(QStringLiteral("en"), false));
}

void TestTranslations::everyPageHasItsChinesePage() {
    int pages = 0;
    QDirIterator it(QStringLiteral(":/explain"), {QStringLiteral("*.md")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString en = it.next();
        if (en.startsWith(QLatin1String(":/explain/zh_CN/"))) continue;
        ++pages;
        const QString zh = QStringLiteral(":/explain/zh_CN/") + en.mid(QStringLiteral(":/explain/").size());
        QFile fe(en), fz(zh);
        QVERIFY2(fz.open(QIODevice::ReadOnly), qPrintable(QStringLiteral("no Chinese page for ") + en));
        QVERIFY(fe.open(QIODevice::ReadOnly));
        const QString e = QString::fromUtf8(fe.readAll()), z = QString::fromUtf8(fz.readAll());
        QCOMPARE(placeholders(z), placeholders(e));
        QCOMPARE(codeBlocks(z), codeBlocks(e));
        QVERIFY2(z.contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]"))), qPrintable(zh));
    }
    QVERIFY2(pages > 100, qPrintable(QString::number(pages)));
}

void TestTranslations::switchingRetranslatesAndBack() {
    QVERIFY(language::apply(QStringLiteral("en"), false));
    QTabWidget tabs;
    tabs.addTab(new QWidget, QCoreApplication::translate("MainWindow", "Tensor"));
    QMenu menu(QCoreApplication::translate("WindowMenus", "&Language"));
    QAction* act = menu.addAction(QCoreApplication::translate("HelpDialogs", "Keyboard Shortcuts"));
    const QString enTab = tabs.tabText(0), enMenu = menu.title(), enAct = act->text();
    QCOMPARE(language::explainPath(QStringLiteral("softmax.md")), QStringLiteral(":/explain/softmax.md"));

    QVERIFY(language::apply(QStringLiteral("zh_CN"), false));
    QVERIFY(language::isChinese());
    QCOMPARE(menu.title(), QStringLiteral("语言(&L)"));
    QVERIFY2(act->text() != enAct && !act->text().isEmpty(), qPrintable(act->text()));
    QVERIFY2(tabs.tabText(0) != enTab, qPrintable(tabs.tabText(0)));
    QCOMPARE(language::explainPath(QStringLiteral("softmax.md")), QStringLiteral(":/explain/zh_CN/softmax.md"));

    QVERIFY(language::apply(QStringLiteral("en"), false));
    QCOMPARE(menu.title(), enMenu);
    QCOMPARE(act->text(), enAct);
    QCOMPARE(tabs.tabText(0), enTab);
    QVERIFY(!language::apply(QStringLiteral("xx"), false));
    QCOMPARE(language::current(), QStringLiteral("en"));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestTranslations t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_translations.moc"
