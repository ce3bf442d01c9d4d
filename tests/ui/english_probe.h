// English left in a Chinese UI (issue 30): every text a user sees or hovers under a widget —
// labels, buttons, tool tips, tabs, group titles, combo items, headers, item views' texts and
// tips, chart titles and axes, the heatmaps' titles, axis titles, legend captions and a few cell
// tool tips — checked for English words. Names, numbers, tokens and code are not English words
// here: identifiers (with "_", ".", digits or inner capitals), all-capital abbreviations, text
// in <tt>/<code>, the model's tokens and the words in `allowed`.
#pragma once

#include <QSet>
#include <QStringList>

class QMenu;
class QWidget;

namespace testutil {

// The English words left in `text` (HTML or plain), in order, each once.
QStringList englishWords(const QString& text, const QSet<QString>& allowed);

// One line per text with English words under `root` (visible widgets; the widget itself
// included): "where: "text" (words)". `cellTips`: also the first and last cells' tool tips of
// every visible heatmap.
QStringList untranslatedTexts(QWidget* root, const QSet<QString>& allowed, bool cellTips = true);

// The same for a menu's actions (texts, tool tips, status tips), submenus included.
QStringList untranslatedMenuTexts(const QMenu* menu, const QSet<QString>& allowed);

// What is not English though it reads as letters: product and library names, functions
// written as in code (softmax, argmax, exp), PyTorch's module names.
QSet<QString> namesAndCode();

}  // namespace testutil
