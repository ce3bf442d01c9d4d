// Paints the step tree's rows with the style's background, selection and icon, and the text from
// the prepared-text cache (static_text_cache.h). The style's own item painting lays every row's
// text out and elides it on every repaint: measured ~20% of a step switch in the backward list,
// whose long rows ("∂loss/∂ Q (queries) · Decoder layer 5 › …") are all elided.
#pragma once

#include <QStyledItemDelegate>

class StepItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};
