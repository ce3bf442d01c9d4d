// Text a widget drew shortened where the elision log (widgets/elision_log.h, our own painting)
// cannot see it: Qt's controls and Qt Charts elide on their own. For the layout check.
#pragma once

#include <QStringList>

class QWidget;

namespace testutil {

// One line per clipped text under `root` (visible widgets only): a combo box whose current text is
// wider than its field, a header section narrower than its title, a button narrower than its
// label, a chart whose axis labels or title Qt Charts shortened to "...".
QStringList clippedControlTexts(QWidget* root);

}  // namespace testutil
