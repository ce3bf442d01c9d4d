#include "app/language.h"

#include <mutex>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFont>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHash>
#include <QLabel>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTranslator>
#include <QWidget>

namespace language {

namespace {

QString current_ = QStringLiteral("en");

// Every text a translation gave (or, in English, the source itself) -> its context and source.
// Re-translating a text already on screen looks it up here; a composed text ("layer %1") is not
// here and is rebuilt by its widget on LanguageChange.
struct Origin {
    QByteArray context, source;
};
QHash<QString, Origin>& origins() {
    static QHash<QString, Origin> map;
    return map;
}
// tr() runs on worker threads too (texts composed off the GUI thread) and Qt lets translators be
// asked concurrently: the map, the recorder's inner translator and its loading are guarded
// (unguarded, two inserts at once corrupted the map's texts).
std::mutex& originsMutex() {
    static std::mutex m;
    return m;
}

// Sits last in the translator chain (Qt asks the most recently installed first): it translates
// nothing itself, it records what the others give.
class RecordingTranslator : public QTranslator {
public:
    QString translate(const char* context, const char* source, const char* disambiguation, int n) const override {
        if (!context || !source || !*source) return {};
        const std::lock_guard<std::mutex> lock(originsMutex());
        QString out;
        if (inner_) out = inner_->translate(context, source, disambiguation, n);
        const QString shown = out.isEmpty() ? QString::fromUtf8(source) : out;
        origins().insert(shown, Origin{context, source});
        return out;
    }
    bool isEmpty() const override { return false; }
    void setInner(QTranslator* t) { inner_ = t; }

private:
    QTranslator* inner_ = nullptr;
};

RecordingTranslator* recorder() {
    static auto* r = [] {
        auto* t = new RecordingTranslator;
        QCoreApplication::installTranslator(t);
        return t;
    }();
    return r;
}

QTranslator* appTranslator() {
    static auto* t = new QTranslator;
    return t;
}
QTranslator* qtTranslator() {
    static auto* t = new QTranslator;
    return t;
}

QString retranslated(const QString& text) {
    if (text.isEmpty()) return text;
    Origin origin;
    {
        const std::lock_guard<std::mutex> lock(originsMutex());
        const auto it = origins().constFind(text);
        if (it == origins().constEnd()) return text;
        origin = it.value();
    }
    return QCoreApplication::translate(origin.context.constData(), origin.source.constData());
}

// The texts of `o` that a translation may have given.
void retranslateObject(QObject* o) {
    static const char* const kProps[] = {"text", "toolTip", "windowTitle", "placeholderText", "statusTip",
                                         "whatsThis", "title", "prefix", "suffix", "specialValueText"};
    for (const char* p : kProps) {
        const QVariant v = o->property(p);
        if (v.typeId() != QMetaType::QString) continue;
        const QString now = v.toString(), next = retranslated(now);
        if (next != now) o->setProperty(p, next);
    }
    if (auto* tabs = qobject_cast<QTabWidget*>(o))
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setTabText(i, retranslated(tabs->tabText(i)));
            tabs->setTabToolTip(i, retranslated(tabs->tabToolTip(i)));
        }
    if (auto* combo = qobject_cast<QComboBox*>(o))
        for (int i = 0; i < combo->count(); ++i) combo->setItemText(i, retranslated(combo->itemText(i)));
    if (auto* w = qobject_cast<QWidget*>(o))
        for (QAction* a : w->actions()) retranslateObject(a);
    if (auto* menu = qobject_cast<QMenu*>(o)) menu->setTitle(retranslated(menu->title()));
}

void retranslateAll() {
    for (QWidget* top : QApplication::topLevelWidgets()) {
        retranslateObject(top);
        for (QObject* o : top->findChildren<QObject*>()) retranslateObject(o);
    }
}

}  // namespace

QStringList codes() { return {QStringLiteral("en"), QStringLiteral("zh_CN")}; }

QString displayName(const QString& code) {
    return code == QLatin1String("zh_CN") ? QStringLiteral("简体中文") : QStringLiteral("English");
}

QString current() { return current_; }
bool isChinese() { return current_ == QLatin1String("zh_CN"); }

QString startup(const QString& requested) {
    if (!requested.isEmpty()) return requested;
    const QString saved = QSettings().value(QLatin1String(kSettingsKey)).toString();
    if (codes().contains(saved)) return saved;
    return QLocale::system().language() == QLocale::Chinese ? QStringLiteral("zh_CN") : QStringLiteral("en");
}

bool apply(const QString& code, bool remember) {
    if (!codes().contains(code)) return false;
    RecordingTranslator* rec = recorder();
    QCoreApplication::removeTranslator(appTranslator());
    QCoreApplication::removeTranslator(qtTranslator());
    {
        const std::lock_guard<std::mutex> lock(originsMutex());  // no tr() elsewhere while it changes
        rec->setInner(nullptr);
        // English has a file too: its plural forms ("1 thread", "2 threads"; lupdate -pluralonly).
        if (!appTranslator()->load(QStringLiteral(":/i18n/stepformer_%1.qm").arg(code))) return false;
        rec->setInner(appTranslator());
    }
    // Qt's own (standard buttons, file dialogs); absent without qt6-translations-l10n.
    if (code != QLatin1String("en") &&
        qtTranslator()->load(QStringLiteral("qtbase_%1").arg(code), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qtTranslator());
    current_ = code;
    // Chinese glyphs come from the system's fallback for Han script (fontconfig: Noto Sans CJK SC,
    // which the install script installs), the UI's own family keeping the Latin text as before.
    // Not a second family in the UI font, nor a substitution: Qt then measures every line by the
    // taller CJK font, which makes each Latin label taller and the cells sized by them wider (the
    // all-layers attention no longer fits 1366x768). Without any Chinese font: said once.
    if (qobject_cast<QApplication*>(QCoreApplication::instance())) {
        static const QFont base = QApplication::font();
        QApplication::setFont(base);
        static bool warned = false;
        if (code == QLatin1String("zh_CN") && !warned && QFontDatabase::families(QFontDatabase::SimplifiedChinese).isEmpty()) {
            warned = true;
            qWarning("No font with Chinese glyphs is installed: the Chinese UI shows boxes (install fonts-noto-cjk)");
        }
    }
    // Re-installing the recorder sends LanguageChange to every widget; the texts on screen are
    // re-translated first, so the widgets that rebuild theirs see the new language throughout.
    retranslateAll();
    QCoreApplication::removeTranslator(rec);
    QCoreApplication::installTranslator(rec);
    if (remember) QSettings().setValue(QLatin1String(kSettingsKey), code);
    return true;
}

QString explainPath(const QString& path) {
    if (isChinese()) {
        const QString zh = QStringLiteral(":/explain/zh_CN/%1").arg(path);
        if (QFile::exists(zh)) return zh;
    }
    return QStringLiteral(":/explain/%1").arg(path);
}

}  // namespace language
