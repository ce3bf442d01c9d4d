#include "app/core_text.h"

#include <string>
#include <vector>

#include <QCoreApplication>

QString coreText(const stepformer::Message& message) {
    if (message.is_plain()) return QString::fromStdString(message.text());
    // Each level in the reader's language, filled in one pass as the core fills the English.
    std::vector<std::string> args;
    for (const stepformer::MessageArg& a : message.args())
        args.push_back(a.is_message() ? coreText(a.message()).toStdString() : a.plain());
    const QString tmpl = QCoreApplication::translate("CoreMessage", message.english());
    return QString::fromStdString(stepformer::substitute_placeholders(tmpl.toStdString(), args));
}

QString coreText(const std::exception& e) {
    if (const stepformer::Message* m = stepformer::carried_message(e)) return coreText(*m);
    return QString::fromStdString(e.what());
}
