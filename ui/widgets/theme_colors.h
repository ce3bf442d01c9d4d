// Colours that follow the theme (View › Appearance: light or dark). Views paint with palette
// roles; these are the few mixes the palette has no role for.
#pragma once

#include <QColor>
#include <QString>

class QWidget;

namespace theme {

// Secondary text (a place, a unit, a hint): the palette's Text 45 % of the way to its Base, so
// it reads on either theme.
QColor quietText();
// `html` with the fixed greys its secondary text was written in (#333 to #888, as the texts and
// their translations carry them) replaced by quietText().
QString themed(const QString& html);
// The label's text in quietText(), again whenever the application's palette changes.
void makeQuiet(QWidget* label);
// Whether the application's palette is dark (its window colour below half lightness).
bool isDark();

}  // namespace theme
