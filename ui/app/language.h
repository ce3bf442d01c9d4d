// The UI's language: English (the sources) or 简体中文 (resources/translations/stepformer_zh_CN.ts,
// built into :/i18n/stepformer_zh_CN.qm, with Qt's own qtbase_zh_CN.qm for the standard dialogs).
// The start-up choice is --lang, else the one remembered in QSettings ("ui/language"), else the
// system locale. Switching at run time re-translates every text already on screen: a recording
// translator remembers which source each shown text was translated from (see language.cpp), and
// the widgets that compose their texts rebuild them on QEvent::LanguageChange.
#pragma once

#include <QString>
#include <QStringList>

namespace language {

inline constexpr const char* kSettingsKey = "ui/language";

QStringList codes();                     // "en", "zh_CN"
QString displayName(const QString& code);  // "English", "简体中文" (each in its own language)
QString current();                         // the code applied last ("en" before any)
bool isChinese();

// The language to start in: `requested` (--lang) when not empty, else the remembered one, else
// the system locale's ("zh_CN" for any Chinese locale).
QString startup(const QString& requested);

// Installs the translators for `code` (an unknown code: false, nothing changes), picks a font
// that has the Chinese glyphs for Chinese, re-translates the texts on screen and, with
// `remember`, keeps the choice for the next start.
bool apply(const QString& code, bool remember);

// The explanation page's resource path in the current language: ":/explain/zh_CN/<path>" when
// it exists there and the UI is Chinese, else ":/explain/<path>".
QString explainPath(const QString& path);

}  // namespace language
