#include "views/pe_view.h"
#include "views/view_parts.h"

#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QValueAxis>
#include <QVBoxLayout>

#include "views/pe_heatmap.h"
#include "stepformer/model.h"
#include "widgets/number_format.h"

namespace {

constexpr int kMaxLength = 1000;
constexpr int kMaxDModel = 1024;
constexpr int kMaxSeries = 12;

// "0,1,4,5", "0 1 4 5", "0-3, 8": the listed dimensions in order, without duplicates.
// Returns false when some part is not a number or range.
bool parseDims(const QString& text, QList<int>* out) {
    out->clear();
    bool ok = true;
    const QStringList parts = text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    for (const QString& part : parts) {
        const QStringList range = part.split(QLatin1Char('-'));
        bool a = false, b = false;
        if (range.size() == 1) {
            const int v = range[0].toInt(&a);
            if (a && v >= 0) {
                if (!out->contains(v)) out->append(v);
            } else {
                ok = false;
            }
        } else if (range.size() == 2) {
            const int lo = range[0].toInt(&a), hi = range[1].toInt(&b);
            if (a && b && lo >= 0 && hi >= lo && hi - lo < 4096) {
                for (int v = lo; v <= hi; ++v)
                    if (!out->contains(v)) out->append(v);
            } else {
                ok = false;
            }
        } else {
            ok = false;
        }
    }
    return ok;
}

QString dimsToText(const QList<int>& dims) {
    QStringList s;
    for (int d : dims) s << QString::number(d);
    return s.join(QStringLiteral(", "));
}

// A step on the decoder's side (its stack, the output projection, the loss), read from where the
// name places it (either model's names; a gradient's is its forward step's).
bool isDecoderStep(const QString& name) {
    const stepformer::Block b = stepformer::names::parse(name.toStdString()).block;
    return b.stack == stepformer::Stack::Decoder || b.kind == stepformer::BlockKind::Projection ||
           b.kind == stepformer::BlockKind::Loss;
}

}  // namespace

QColor PositionalEncodingView::seriesColor(int index) {
    // Tableau 10: distinct, readable on a projector, none close to the heatmap's white.
    static const QRgb colors[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                  0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return QColor(colors[static_cast<size_t>(index) % (sizeof(colors) / sizeof(colors[0]))]);
}

PositionalEncodingView::PositionalEncodingView(QWidget* parent) : StepView(parent, "peView") {

    // Controls.
    lengthSpin_ = view_parts::named(new QSpinBox(this), "peLengthSpin");
    lengthSpin_->setRange(1, kMaxLength);
    lengthSpin_->setToolTip(tr("Number of positions (rows of the table, points of each curve)"));
    dModelSpin_ = view_parts::named(new QSpinBox(this), "peDModelSpin");
    dModelSpin_->setRange(2, kMaxDModel);
    dModelSpin_->setSingleStep(2);
    dModelSpin_->setToolTip(tr("d_model: number of dimensions (columns of the table)"));
    dimsEdit_ = view_parts::named(new QLineEdit(this), "peDimsEdit");
    dimsEdit_->setPlaceholderText(QStringLiteral("0, 1, 4, 5"));
    dimsEdit_->setToolTip(tr("Dimensions to plot against position, e.g. \"0, 1, 4, 5\" or \"0-3\".\n"
                             "Even dimensions are sines, odd ones cosines. Clicking a column of the table "
                             "adds or removes it."));
    dimsEdit_->setMinimumWidth(120);
    dimsHint_ = view_parts::named(new QLabel(this), "peDimsHint");
    resetButton_ = view_parts::named(new QPushButton(tr("Reset"), this), "peResetButton");
    resetButton_->setToolTip(tr("Back to the length and d_model of the current trace"));

    auto* controls = new QHBoxLayout;
    view_parts::addLabelled(controls, tr("Positions:"), lengthSpin_);
    controls->addSpacing(8);
    view_parts::addLabelled(controls, tr("d_model:"), dModelSpin_);
    controls->addSpacing(8);
    controls->addWidget(resetButton_);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("Plot dimensions:"), this));
    controls->addWidget(dimsEdit_, 1);
    controls->addWidget(dimsHint_);

    auto* formula = formula_ = view_parts::named(new QLabel(this), "peFormula");
    formula->setTextFormat(Qt::RichText);

    // Table heatmap.
    tableMap_ = view_parts::named(new PeHeatmap(this), "peTableHeatmap");
    tableMap_->setRowAxisTitle(tr("position"));
    tableMap_->setColAxisTitle(tr("dimension (click a column to plot it)"));
    tableMap_->setValueRange(1.0f);
    tableMap_->setTooltipFn([this](int pos, int dim, float v) {
        if (learned_) return tr("wpe[pos %1, dim %2] = %3: learned, no formula").arg(pos).arg(dim).arg(numfmt::fourDigits(v));
        const int D = dModel();
        const QString fn = dim % 2 == 0 ? QStringLiteral("sin") : QStringLiteral("cos");
        const int i2 = dim - dim % 2;
        return tr("PE[pos %1, dim %2] = %3(%1 / 10000^(%4/%5)) = %6").arg(pos).arg(dim).arg(fn).arg(i2).arg(D).arg(numfmt::fourDigits(v));
    });
    connect(tableMap_, &PeHeatmap::columnClicked, this, &PositionalEncodingView::toggleDimension);

    // Chart.
    chart_ = new QChart;
    chart_->setTitle(tr("PE value against position, per dimension"));
    chart_->legend()->setVisible(true);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    chart_->setBackgroundRoundness(0);
    chart_->legend()->setAlignment(Qt::AlignRight);
    chart_->legend()->setShowToolTips(true);
    {
        QFont lf = chart_->legend()->font();
        lf.setPointSizeF(std::max(7.0, lf.pointSizeF() - 1.0));
        chart_->legend()->setFont(lf);
    }
    axisX_ = new QValueAxis;
    axisX_->setTitleText(tr("position"));
    axisX_->setLabelFormat(QStringLiteral("%d"));
    axisY_ = new QValueAxis;
    axisY_->setTitleText(tr("PE value"));
    axisY_->setRange(-1.1, 1.1);
    axisY_->setTickCount(5);
    axisY_->setLabelFormat(QStringLiteral("%.1f"));
    chart_->addAxis(axisX_, Qt::AlignBottom);
    chart_->addAxis(axisY_, Qt::AlignLeft);
    chartView_ = view_parts::named(new QChartView(chart_, this), "peChartView");
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumSize(240, 180);

    auto* top = new QSplitter(Qt::Horizontal, this);
    top->setChildrenCollapsible(false);
    top->addWidget(tableMap_);
    top->addWidget(chartView_);
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 1);
    top->setSizes({1000, 1000});

    // The sum embedding + PE = input.
    auto* sumBox = new QWidget(this);
    auto* sumLayout = new QVBoxLayout(sumBox);
    sumLayout->setContentsMargins(0, 0, 0, 0);
    sumCaption_ = view_parts::makeWrappingLabel(QStringLiteral("peSumCaption"), sumBox);
    sumLayout->addWidget(sumCaption_);
    auto* row = new QHBoxLayout;
    static const char* const names[] = {"peSumEmbedding", "peSumPe", "peSumOut"};
    for (int i = 0; i < 3; ++i) {
        sumMaps_[i] = new PeHeatmap(sumBox);
        sumMaps_[i]->setObjectName(QLatin1String(names[i]));
        sumMaps_[i]->setMinimumSize(140, 110);
        sumMaps_[i]->setColAxisTitle(tr("dimension"));
        sumMaps_[i]->setPlaceholderText(tr("Run a forward pass to see the sum for the current sentence"));
        row->addWidget(sumMaps_[i], 1);
        if (i < 2) {
            auto* op = new QLabel(i == 0 ? QStringLiteral("+") : QStringLiteral("="), sumBox);
            QFont f = op->font();
            f.setPointSizeF(f.pointSizeF() * 2.2);
            f.setBold(true);
            op->setFont(f);
            op->setAlignment(Qt::AlignCenter);
            row->addWidget(op);
        }
    }
    sumLayout->addLayout(row, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(top);
    split->addWidget(sumBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(formula);
    layout->addWidget(split, 1);

    // Defaults: the tutorial's config until a trace arrives.
    const stepformer::Config c = stepformer::Config::tutorial();
    config_ = c;
    defaultLength_ = std::max(c.src_len, c.tgt_len);
    defaultDModel_ = c.d_model;
    {
        const QSignalBlocker b1(lengthSpin_), b2(dModelSpin_);
        lengthSpin_->setValue(defaultLength_);
        dModelSpin_->setValue(defaultDModel_);
    }
    dims_ = {0, 1, 4, 5};
    dimsEdit_->setText(dimsToText(dims_));

    connect(lengthSpin_, &QSpinBox::valueChanged, this, &PositionalEncodingView::onTableParamsChanged);
    connect(dModelSpin_, &QSpinBox::valueChanged, this, &PositionalEncodingView::onTableParamsChanged);
    connect(dimsEdit_, &QLineEdit::textChanged, this, &PositionalEncodingView::onDimsEdited);
    connect(resetButton_, &QPushButton::clicked, this, &PositionalEncodingView::resetToDefaults);

    showKind();
    onTableParamsChanged();
    rebuildSum();
}

PositionalEncodingView::~PositionalEncodingView() = default;

// The words of the table's kind: the sinusoid's formula, or a learned table's.
void PositionalEncodingView::showKind() {
    formula_->setText(learned_ ? tr("<b>Learned positions</b>: wpe is a weight [block_size × n_embd] trained like any "
                                    "other,<br>one row per position — no formula; the pass adds its first %1 rows.")
                                     .arg(learnedTable_.rank() == 2 ? learnedTable_.dim(0) : 0)
                               : tr("PE(pos, 2i) = sin(pos / 10000<sup>2i/d_model</sup>) &nbsp;&nbsp; "
                                    "PE(pos, 2i+1) = cos(pos / 10000<sup>2i/d_model</sup>)"));
    chart_->setTitle(learned_ ? tr("Learned value against position, per dimension") : tr("PE value against position, per dimension"));
    lengthSpin_->setEnabled(!learned_);
    dModelSpin_->setEnabled(!learned_);
    resetButton_->setEnabled(!learned_);
}

void PositionalEncodingView::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    StepView::setTrace(std::move(trace), config);
    encoderLength_ = decoderLength_ = 0;
    learned_ = false;
    learnedTable_ = {};
    if (trace_) {
        for (const stepformer::Block& b : trace_->blocks())  // the stacks' tables, whatever the model names them
            if (b.kind == stepformer::BlockKind::Input)
                if (const auto* e = stepformer::graph::find(*trace_, b, stepformer::Role::PositionalTable); e && e->value.rank() == 2) {
                    (b.stack == stepformer::Stack::Decoder ? decoderLength_ : encoderLength_) = static_cast<int>(e->value.dim(0));
                    if (e->op != stepformer::Op::PositionalTable && !e->value.data.empty()) {  // rows of a learned table
                        learned_ = true;
                        learnedTable_ = e->value;
                    }
                }
    }
    showKind();
    if (learned_) defaultLength_ = -1;  // the table comes from the trace: fill it again
    followTable();
    rebuildSum();
}

// The table as long as the one the current step's stack adds (the encoder's or the decoder's),
// so the view and the step's explanation agree on the number of positions.
void PositionalEncodingView::followTable() {
    const bool dec = sumSource_ == QLatin1String("decoder");
    int L = dec ? decoderLength_ : encoderLength_;
    if (L <= 0) L = dec ? encoderLength_ : decoderLength_;
    if (L <= 0) L = dec ? config_.tgt_len : config_.src_len;
    const int D = config_.d_model;
    if (L != defaultLength_ || D != defaultDModel_) {
        defaultLength_ = L;
        defaultDModel_ = D;
        resetToDefaults();
    }
}

void PositionalEncodingView::setStep(const QString& traceName) {
    StepView::setStep(traceName);
    const QString side = isDecoderStep(traceName) ? QStringLiteral("decoder") : QStringLiteral("encoder");
    if (side == sumSource_) return;
    sumSource_ = side;
    followTable();
    rebuildSum();
}

int PositionalEncodingView::length() const { return lengthSpin_->value(); }
int PositionalEncodingView::dModel() const { return dModelSpin_->value(); }
void PositionalEncodingView::setLength(int length) { lengthSpin_->setValue(length); }
void PositionalEncodingView::setDModel(int dModel) { dModelSpin_->setValue(dModel); }

QList<int> PositionalEncodingView::plottedDimensions() const {
    QList<int> out;
    const int D = dModel();
    for (int d : dims_)
        if (d < D && out.size() < kMaxSeries) out.append(d);
    return out;
}

void PositionalEncodingView::setDimensions(const QList<int>& dims) { dimsEdit_->setText(dimsToText(dims)); }

float PositionalEncodingView::tableValue(int pos, int dim) const {
    if (table_.rank() != 2 || pos < 0 || dim < 0 || pos >= table_.dim(0) || dim >= table_.dim(1)) return std::nanf("");
    return table_.at({pos, dim});
}

PeHeatmap* PositionalEncodingView::sumHeatmap(int i) const { return i >= 0 && i < 3 ? sumMaps_[i] : nullptr; }

void PositionalEncodingView::resetToDefaults() {
    {
        const QSignalBlocker b1(lengthSpin_), b2(dModelSpin_);
        lengthSpin_->setValue(std::clamp(defaultLength_, 1, kMaxLength));
        dModelSpin_->setValue(std::clamp(defaultDModel_, 2, kMaxDModel));
    }
    onTableParamsChanged();
}

void PositionalEncodingView::onTableParamsChanged() {
    const int L = learned_ ? int(learnedTable_.dim(0)) : length(), D = learned_ ? int(learnedTable_.dim(1)) : dModel();
    table_ = learned_ ? learnedTable_ : stepformer::positional_table(L, D);
    tableMap_->setTitle(learned_ ? tr("Learned position table wpe  [first %1 positions × n_embd %2]").arg(L).arg(D)
                                 : tr("Positional encoding table PE  [%1 positions × d_model %2]").arg(L).arg(D));
    float amax = 1.0f;  // a sinusoid's range; a learned table's own
    if (learned_) {
        amax = 1e-6f;
        for (float v : table_.data)
            if (std::isfinite(v)) amax = std::max(amax, std::abs(v));  // (weights from a file may hold NaN)
    }
    tableMap_->setValueRange(amax);
    axisY_->setRange(-1.1 * amax, 1.1 * amax);
    tableMap_->setMatrix(L, D, table_.data);
    onDimsEdited();  // the valid dimensions depend on d_model
}

void PositionalEncodingView::onDimsEdited() {
    QList<int> parsed;
    const bool ok = parseDims(dimsEdit_->text(), &parsed);
    dims_ = parsed;
    const int D = dModel();
    QStringList problems;
    if (!ok) problems << tr("use numbers like 0, 1, 4, 5 or 0-3");
    QList<int> dropped;
    for (int d : dims_)
        if (d >= D) dropped << d;
    if (!dropped.isEmpty()) problems << tr("ignored %1 (d_model = %2)").arg(dimsToText(dropped)).arg(D);
    int inRange = 0;
    for (int d : dims_) inRange += d < D ? 1 : 0;
    if (inRange > kMaxSeries) problems << tr("only the first %1 are plotted").arg(kMaxSeries);
    dimsHint_->setText(problems.join(QStringLiteral("; ")));
    dimsHint_->setStyleSheet(problems.isEmpty() ? QString() : QStringLiteral("color: #b00020;"));
    rebuildChart();
}

void PositionalEncodingView::toggleDimension(int dim) {
    QList<int> dims = dims_;
    if (dims.contains(dim))
        dims.removeAll(dim);
    else
        dims.append(dim);
    setDimensions(dims);
}

void PositionalEncodingView::rebuildChart() {
    chart_->removeAllSeries();
    const int L = length(), D = dModel();
    const int span = std::max(1, L - 1);
    axisX_->setRange(0, span);
    axisX_->setTickCount(std::min(span, 10) + 1);
    if (span > 10) axisX_->applyNiceNumbers();
    QValueAxis* ax = axisX_;
    QValueAxis* ay = axisY_;

    QHash<int, QColor> markers;
    const QList<int> dims = plottedDimensions();
    for (int k = 0; k < dims.size(); ++k) {
        const int d = dims[k];
        auto* s = new QLineSeries;
        s->setName(learned_ ? tr("dim %1").arg(d) : tr("dim %1 %2").arg(d).arg(d % 2 == 0 ? QStringLiteral("sin") : QStringLiteral("cos")));
        QList<QPointF> pts;
        pts.reserve(L);
        for (int pos = 0; pos < L; ++pos) {
            const float v = table_.data[size_t(pos) * D + d];
            if (std::isfinite(v)) pts.append(QPointF(pos, double(v)));  // Qt Charts warns on NaN and ∞
        }
        s->replace(pts);
        const QColor c = seriesColor(k);
        QPen pen(c);
        pen.setWidthF(2.0);
        s->setPen(pen);
        s->setPointsVisible(L <= 40);
        chart_->addSeries(s);
        s->attachAxis(ax);
        s->attachAxis(ay);
        markers.insert(d, c);
    }
    tableMap_->setColumnMarkers(markers);
}

void PositionalEncodingView::rebuildSum() {
    const bool dec = sumSource_ == QLatin1String("decoder");
    // The stack's input block as the trace has it (the tutorial's names, or PyTorch's
    // src_tok_emb / src_positional_encoding); the tutorial's names before a trace.
    using stepformer::Role;
    const stepformer::Stack stack = dec ? stepformer::Stack::Decoder : stepformer::Stack::Encoder;
    const stepformer::TraceEntry* e[3] = {nullptr, nullptr, nullptr};
    // A stack that normalises the sum before layer 0 (attention-is-all-you-need-pytorch's
    // <stack>.layer_norm): its input block has a LayerNorm step.
    bool normed = false;
    if (trace_)
        for (const stepformer::Block& b : trace_->blocks())
            if (b.stack == stack && b.kind == stepformer::BlockKind::Input) {
                normed = stepformer::graph::find(*trace_, b, Role::LayerNorm) != nullptr;
                e[0] = stepformer::graph::find(*trace_, b, Role::Embedding);
                e[1] = stepformer::graph::find(*trace_, b, Role::PositionalTable);
                e[2] = stepformer::graph::find(*trace_, b, Role::PositionalAdd);
                break;
            }
    const auto nameOr = [](const stepformer::TraceEntry* x, const char* tutorial) {
        return x ? QString::fromStdString(x->name) : QString::fromLatin1(tutorial);
    };
    const QString embName = nameOr(e[0], dec ? "decoder.tgt_emb.out" : "encoder.src_emb.out");
    const QString peName = nameOr(e[1], dec ? "decoder.pos_emb.pe" : "encoder.pos_emb.pe");
    const QString outName = nameOr(e[2], dec ? "decoder.pos_emb.out" : "encoder.pos_emb.out");
    // The table may have more rows than the sentence (PyTorch's pos_embedding has maxlen): its first rows are added.
    const bool have = e[0] && e[1] && e[2] && e[0]->value.rank() == 3 && e[1]->value.rank() == 2 &&
                      e[2]->value.rank() == 3 && e[0]->value.shape == e[2]->value.shape &&
                      e[1]->value.dim(0) >= e[0]->value.dim(1) && e[1]->value.dim(1) == e[0]->value.dim(2) &&
                      e[0]->value.dim(0) >= 1;
    const QString which = dec ? tr("Decoder") : tr("Encoder");
    if (!have) {
        for (PeHeatmap* m : sumMaps_) m->clear();
        sumMaps_[0]->setTitle(tr("Token embedding\n%1").arg(embName));
        sumMaps_[1]->setTitle(tr("Positional encoding\n%1").arg(peName));
        sumMaps_[2]->setTitle(tr("%1 input\n%2").arg(which, outName));
        sumCaption_->setText(tr("<b>%1 input = token embedding + positional encoding</b> (no trace yet)").arg(which));
        return;
    }
    const int L = static_cast<int>(e[0]->value.dim(1)), D = static_cast<int>(e[0]->value.dim(2));
    const size_t n = static_cast<size_t>(L) * static_cast<size_t>(D);
    std::vector<float> emb(e[0]->value.data.begin(), e[0]->value.data.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<float> pe(e[1]->value.data.begin(), e[1]->value.data.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<float> out(e[2]->value.data.begin(), e[2]->value.data.begin() + static_cast<std::ptrdiff_t>(n));

    // Token labels of sentence 0.
    const auto& toks = dec ? trace_->tgt_tokens : trace_->src_tokens;
    QStringList labels, words;
    for (int p = 0; p < L; ++p) {
        const QString t = !toks.empty() && p < static_cast<int>(toks[0].size()) ? QString::fromStdString(toks[0][size_t(p)]) : QString();
        labels << (t.isEmpty() ? QString::number(p) : QStringLiteral("%1 %2").arg(p).arg(t));
        words << (t.isEmpty() ? QStringLiteral("?") : t);
    }
    // One colour scale for all three, so the sizes compare (the tutorial does not scale the
    // embedding by sqrt(d_model): the PE is small next to N(0,1) embeddings).
    float amax = 0.0f;
    bool dropout = false;
    for (size_t i = 0; i < n; ++i) {
        amax = std::max({amax, std::fabs(emb[i]), std::fabs(pe[i]), std::fabs(out[i])});
        if (std::fabs(emb[i] + pe[i] - out[i]) > 1e-4f * std::max(1.0f, std::fabs(out[i]))) dropout = true;
    }
    if (!(amax > 0.0f)) amax = 1.0f;
    const QString titles[3] = {tr("Token embedding\n%1[0]").arg(embName), tr("Positional encoding\n%1").arg(peName),
                               tr("%1 input\n%2[0]").arg(which, outName)};
    std::vector<float>* data[3] = {&emb, &pe, &out};
    for (int i = 0; i < 3; ++i) {
        sumMaps_[i]->setTitle(titles[i]);
        sumMaps_[i]->setRowLabels(labels);
        sumMaps_[i]->setValueRange(amax);
        sumMaps_[i]->setMatrix(L, D, *data[i]);
        sumMaps_[i]->setShowColorBar(true);
    }
    // Tooltips show the addition for the cell in all three maps.
    auto tip = [this, labels](int r, int c, float) {
        const float a = sumMaps_[0]->value(r, c), b = sumMaps_[1]->value(r, c), s = sumMaps_[2]->value(r, c);
        return tr("%1, dim %2\nembedding %3 + PE %4 = %5").arg(labels.value(r)).arg(c).arg(numfmt::fourDigits(a), numfmt::fourDigits(b), numfmt::fourDigits(s));
    };
    for (PeHeatmap* m : sumMaps_) m->setTooltipFn(tip);
    QString cap = normed
                      ? tr("<b>%1 input for the current sentence</b> (batch item 0: <i>%2</i>): token embedding + "
                           "positional encoding; dropout and <tt>%3.layer_norm</tt> follow before layer 0. One colour scale "
                           "for all three.")
                            .arg(which, words.join(QLatin1Char(' ')).toHtmlEscaped(), which.toLower())
                      : tr("<b>%1 input for the current sentence</b> (batch item 0: <i>%2</i>): "
                           "token embedding + positional encoding = input of layer 0. One colour scale for all three.")
                            .arg(which, words.join(QLatin1Char(' ')).toHtmlEscaped());
    if (dropout) cap += tr(" <span style='color:#b00020'>Dropout was active in this pass: the input is dropout(embedding + PE).</span>");
    sumCaption_->setText(cap);
}
