#include "app/core_text.h"

#include <QCoreApplication>
#include <QStringList>

namespace {

// substitute_placeholders (message.h) on QStrings: %N is args[N - 1] (one or two digits), in one
// pass; a number without an argument stays as it is.
QString substitute(const QString& tmpl, const QStringList& args) {
    QString out;
    out.reserve(tmpl.size());
    const auto digit = [&](qsizetype i) { return i < tmpl.size() && tmpl[i].isDigit() && tmpl[i].unicode() < 128; };
    for (qsizetype i = 0; i < tmpl.size();) {
        if (tmpl[i] == QLatin1Char('%') && digit(i + 1)) {
            qsizetype end = i + 1;
            qsizetype n = 0;
            while (end < tmpl.size() && end < i + 3 && digit(end)) n = n * 10 + (tmpl[end++].unicode() - '0');
            if (n >= 1 && n <= args.size())
                out += args[n - 1];
            else
                out += tmpl.mid(i, end - i);
            i = end;
            continue;
        }
        out += tmpl[i++];
    }
    return out;
}

}  // namespace

QString coreText(const stepformer::Message& message) {
    if (message.is_plain()) return QString::fromStdString(message.text());
    QStringList args;
    for (const stepformer::MessageArg& a : message.args())
        args << (a.is_message() ? coreText(a.message()) : QString::fromStdString(a.plain()));
    return substitute(QCoreApplication::translate("CoreMessage", message.english()), args);
}

QString coreText(const std::exception& e) {
    if (const stepformer::Message* m = stepformer::carried_message(e)) return coreText(*m);
    return QString::fromStdString(e.what());
}
