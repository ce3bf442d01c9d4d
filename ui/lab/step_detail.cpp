#include "lab/step_detail.h"
#include "views/view_parts.h"

#include <QCoreApplication>
#include <cmath>

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextDocument>
#include <QVBoxLayout>

#include "lab/lab_steps.h"
#include "lab/tensor_table.h"
#include "lab/module_repr.h"
#include "widgets/colormap.h"
#include "widgets/flow_layout.h"
#include "widgets/wrapped_label.h"

using namespace stepformer;

namespace {

// The panel's texts: word-wrapped labels that never ask for their longest word's width (a plain
// QLabel's minimum is that word — a step's name, a torch call — and through the splitter it
// became the window's, so long names or a large zoom grew the window past the screen).
QLabel* wrapped(QWidget* parent, const char* name) {
    return view_parts::makeRichLabel(QLatin1String(name), parent, view_parts::Selectable::Yes);
}

// A step's dotted name with a place to break after each dot (a zero-width space), so a narrow
// panel wraps "grad.decoder_layer.multihead_attn.masked_scores" instead of cutting it off.
QString breakableName(const std::string& name) {
    QString s = QString::fromStdString(name).toHtmlEscaped();
    s.replace(QLatin1Char('.'), QStringLiteral(".\u200b"));
    return s;
}

// The colour scale: 0..1 for attention weights, white/grey for a mask, else diverging over the
// finite values (one scale for every table of the entry, so colours compare across heads).
Colormap colorsFor(const TraceEntry& e) {
    if (e.role == Role::Softmax) return Colormap(Colormap::Kind::Sequential, 0.0f, 1.0f);
    float lo = 0.0f, hi = 0.0f;
    for (float v : e.value.data)
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    return Colormap(Colormap::Kind::Diverging, lo, hi);
}

QStringList numbered(const QString& word, int64_t n) {
    QStringList out;
    for (int64_t i = 0; i < n; ++i) out << (word.isEmpty() ? QString::number(i) : QStringLiteral("%1 %2").arg(word).arg(i));
    return out;
}

// A short row / column header word for an axis: "pos" for positions, "" (just the index) for features.
QString headerWord(const Axis& a) {
    return a.kind == AxisKind::SrcToken || a.kind == AxisKind::TgtToken ? QCoreApplication::translate("StepDetail", "pos") : QString();
}

}  // namespace

StepDetail::StepDetail(QWidget* parent) : QWidget(parent) {
    auto* outer = view_parts::makeColumn(this, 4, QMargins(8, 6, 8, 6));
    title_ = wrapped(this, "stepTitle");
    QFont tf = title_->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.25);
    tf.setBold(true);
    title_->setFont(tf);
    seed_ = wrapped(this, "stepSeedName");
    shape_ = wrapped(this, "stepShape");
    code_ = wrapped(this, "stepTorchLine");
    axes_ = wrapped(this, "stepAxes");
    legend_ = wrapped(this, "stepLegend");
    for (QLabel* l : {title_, seed_, shape_, code_, axes_, legend_}) outer->addWidget(l);

    // The tables and the print under them scroll together: the print sits right below the
    // numbers it repeats, however tall the window.
    scroll_ = view_parts::named(new QScrollArea(this), "tablesScroll");
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    auto* content = new QWidget(scroll_);
    auto* cv = new QVBoxLayout(content);
    cv->setContentsMargins(0, 0, 0, 0);
    tablesHost_ = new QWidget(content);
    new FlowLayout(tablesHost_, 14, 10);
    cv->addWidget(tablesHost_);
    scroll_->setWidget(content);

    outer->addWidget(scroll_, 1);
    auto* printTitle = new QLabel(tr("print(tensor) in PyTorch (its own layout and number format):"), content);
    printTitle->setWordWrap(true);
    cv->addSpacing(6);
    cv->addWidget(printTitle);
    print_ = view_parts::named(new QPlainTextEdit(content), "torchPrint");
    print_->setReadOnly(true);
    print_->setLineWrapMode(QPlainTextEdit::NoWrap);
    print_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    print_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    cv->addWidget(print_);
    cv->addStretch(1);
}

void StepDetail::clearTables() {
    qDeleteAll(tableBoxes_);
    tableBoxes_.clear();
    tables_.clear();
}

void StepDetail::showMessage(const QString& message) {
    clearTables();
    title_->setText(message.toHtmlEscaped());
    for (QLabel* l : {seed_, shape_, code_, axes_, legend_}) l->clear();
    for (QLabel* l : {seed_, shape_, code_, axes_, legend_}) l->setVisible(false);
    print_->clear();
}

void StepDetail::showEntry(const TraceEntry* e, const Config& c, bool last) {
    if (!e) {
        showMessage(tr("No step selected"));
        return;
    }
    clearTables();
    for (QLabel* l : {seed_, shape_, code_, axes_}) l->setVisible(true);
    title_->setText(breakableName(e->name));
    const QString seed = labsteps::seedName(*e, c, last);
    seed_->setVisible(!seed.isEmpty());
    seed_->setText(tr("Seed 004 calls it <b>%1</b>").arg(seed.toHtmlEscaped()));
    shape_->setText(tr("Shape %1").arg(labsteps::torchShapeText(*e, c).toHtmlEscaped()));
    code_->setText(tr("<b>PyTorch:</b> <code>%1</code>").arg(labsteps::torchLine(*e, c, last).toHtmlEscaped()));

    const Tensor& t = e->value;
    const torchprint::Formatter format(t.data);
    const Colormap colors = colorsFor(*e);
    bool hasInf = false, hasNan = false;
    for (float v : t.data) {
        hasInf = hasInf || (std::isinf(v) && v < 0);
        hasNan = hasNan || std::isnan(v);
    }
    QStringList notes;
    if (hasInf) notes << tr("<span style='background:%1'>&nbsp;-inf&nbsp;</span> masked: the softmax gives it weight 0")
                             .arg(Colormap::maskedColor().name());
    if (hasNan) notes << tr("<span style='background:%1'>&nbsp;nan&nbsp;</span> every key of the row is masked "
                            "(softmax of all -inf): PyTorch 1.13 returns nan, and it spreads to everything after")
                             .arg(Colormap::nanColor().name());
    legend_->setText(notes.join(QStringLiteral("<br>")));
    legend_->setVisible(!notes.isEmpty());

    // Tables: per batch element (and head); rows and columns the entry's last two axes.
    const int rank = t.rank();
    const bool heads = rank == 4;
    const int64_t B = rank >= 3 ? t.dim(0) : 1, H = heads ? t.dim(1) : 1;
    const int64_t rows = rank >= 2 ? t.dim(-2) : 1, cols = rank >= 1 ? t.dim(-1) : 1;
    const Axis rowAxis = rank >= 2 ? e->axes[size_t(rank - 2)] : Axis{AxisKind::Feature, ""};
    const Axis colAxis = rank >= 1 ? e->axes[size_t(rank - 1)] : Axis{AxisKind::Feature, ""};
    axes_->setText(tr("Rows: %1 · columns: %2 · one table per %3")
                       .arg(labsteps::axisWord(rowAxis), labsteps::axisWord(colAxis),
                            heads ? tr("batch element and head") : tr("batch element")));
    const QStringList rowLabels = numbered(headerWord(rowAxis), rows), colLabels = numbered(headerWord(colAxis), cols);
    auto* flow = tablesHost_->layout();
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) {
            auto* box = new QWidget(tablesHost_);
            auto* bl = view_parts::makeColumn(box, 2, 0);
            auto* caption = new QLabel(heads ? tr("batch %1 · head %2").arg(b).arg(h) : tr("batch %1").arg(b), box);
            QFont cf = caption->font();
            cf.setBold(true);
            caption->setFont(cf);
            auto* table = new TensorTable(box);
            table->setObjectName(heads ? QStringLiteral("tensorTable_b%1_h%2").arg(b).arg(h)
                                       : QStringLiteral("tensorTable_b%1").arg(b));
            const float* base = t.data.data() + (b * H + h) * rows * cols;
            table->setValues(base, int(rows), int(cols), cols, 1, rowLabels, colLabels, format, colors);
            bl->addWidget(caption);
            bl->addWidget(table);
            flow->addWidget(box);
            box->show();  // the layout would show it only on the next event loop pass
            tables_ << table;
            tableBoxes_ << box;
        }

    const Tensor torchT = labsteps::torchLayout(*e, c);
    print_->setPlainText(torchprint::repr(torchT) + QLatin1Char('\n') + torchprint::sizeText(torchT.shape));
    fitPrint();
}

// The print box as tall as its lines (the panel scrolls, not the box).
void StepDetail::fitPrint() {
    const int lines = std::max(1, print_->document()->blockCount());
    const int lineH = QFontMetrics(print_->font()).lineSpacing();
    print_->setFixedHeight(lines * lineH + 2 * print_->frameWidth() + 2 * int(print_->document()->documentMargin()) + 4 +
                           print_->horizontalScrollBar()->sizeHint().height());
}

QSize StepDetail::minimumSizeHint() const {
    return {fontMetrics().averageCharWidth() * 24, QWidget::minimumSizeHint().height()};
}

QString StepDetail::printedText() const { return print_->toPlainText(); }
