// Small text helpers every widget shares: std::string <-> QString, and the minus sign numbers
// are printed with.
#pragma once

#include <string>

#include <QString>

namespace ui_text {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }
inline std::string ss(const QString& s) { return s.toStdString(); }
// U+2212, the typographic minus: "−0.42" lines up with "0.42" where a hyphen would not.
inline const QString kMinus = QStringLiteral("−");

}  // namespace ui_text
