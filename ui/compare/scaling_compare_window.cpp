#include "compare/scaling_compare_window.h"
#include "views/view_parts.h"

#include "models/model_registry.h"

#include <cmath>

#include <QKeyEvent>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/session.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"

using scaling::Comparison;
using stepformer::Naming;

namespace {

QStringList toLabels(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

HeatmapWidget* makeMap(const QString& name, QWidget* parent) {
    auto* h = new HeatmapWidget(parent);
    h->setObjectName(name);
    h->setRowAxisTitle(QObject::tr("query token"));
    h->setColAxisTitle(QObject::tr("key token"));
    h->setMinimumSize(260, 200);
    return h;
}

// Which model the trace is, and which order it uses (the seeds' code, not Stepformer's).
QString modelSentence(Naming n) { return models::presentation(n).scalingSentence(); }

QString agreementText(const scaling::Agreement& g, int total) {
    if (g.equal()) return QObject::tr("equal bit for bit");
    return QObject::tr("differs in %1 of %2 numbers by ≤ %3 ulp (max |Δ| = %4)")
        .arg(g.differing)
        .arg(total)
        .arg(g.maxUlp)
        .arg(numfmt::exact(g.maxAbs));
}

}  // namespace

ScalingCompareWindow::ScalingCompareWindow(QWidget* parent) : QWidget(parent, Qt::Window) {
    setObjectName(QStringLiteral("scalingCompareWindow"));
    setWindowTitle(tr("Compare Score Scaling — (q/√dₖ)·kᵀ vs (q·kᵀ)/√dₖ"));
    setAttribute(Qt::WA_DeleteOnClose, false);

    auto* controls = new QHBoxLayout;
    block_ = view_parts::named(new QComboBox(this), "scalingBlock");
    block_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    head_ = view_parts::named(new QSpinBox(this), "scalingHead");
    sentence_ = view_parts::named(new QSpinBox(this), "scalingSentence");
    view_parts::addLabelled(controls, tr("Attention block:"), block_);
    controls->addSpacing(12);
    view_parts::addLabelled(controls, tr("Head:"), head_);
    controls->addSpacing(12);
    view_parts::addLabelled(controls, tr("Sentence:"), sentence_);
    controls->addStretch(1);

    a_ = makeMap(QStringLiteral("scalingA"), this);
    b_ = makeMap(QStringLiteral("scalingB"), this);
    diff_ = makeMap(QStringLiteral("scalingDiff"), this);
    traced_ = makeMap(QStringLiteral("scalingTrace"), this);
    diff_->setColorMode(HeatmapWidget::ColorMode::Diverging);
    diff_->setLegendCaption(tr("A − B (ulp)"));
    auto* grid = new QGridLayout;
    grid->addWidget(a_, 0, 0);
    grid->addWidget(b_, 0, 1);
    grid->addWidget(diff_, 1, 0);
    grid->addWidget(traced_, 1, 1);

    auto makeText = [this](const QString& name) {
        auto* l = new QLabel(this);
        l->setObjectName(name);
        l->setWordWrap(true);
        l->setTextFormat(Qt::RichText);
        l->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        return l;
    };
    summary_ = makeText(QStringLiteral("scalingSummary"));
    verdict_ = makeText(QStringLiteral("scalingTraceVerdict"));
    explanation_ = makeText(QStringLiteral("scalingExplanation"));
    auto* textBox = new QWidget(this);
    auto* text = new QVBoxLayout(textBox);
    text->setContentsMargins(0, 0, 0, 0);
    text->addWidget(summary_);
    text->addWidget(verdict_);
    text->addWidget(explanation_);
    text->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(textBox);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(340);
    scroll->setMaximumWidth(420);

    auto* body = new QHBoxLayout;
    body->addLayout(grid, 1);
    body->addWidget(scroll);
    auto* top = new QVBoxLayout(this);
    top->addLayout(controls);
    top->addLayout(body, 1);
    resize(1280, 700);

    connect(block_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    connect(head_, &QSpinBox::valueChanged, this, [this] { recompute(); });
    connect(sentence_, &QSpinBox::valueChanged, this, [this] { recompute(); });
}

void ScalingCompareWindow::setTrace(std::shared_ptr<const stepformer::Trace> trace, const QString& currentStep) {
    const QString keep = currentStep.isEmpty() || !trace
                             ? block_->currentText()
                             : QString::fromStdString(scaling::blockOf(*trace, currentStep.toStdString()));
    trace_ = std::move(trace);
    {
        const QSignalBlocker blocker(block_);
        block_->clear();
        if (trace_)
            for (const auto& p : scaling::attentionBlocks(*trace_)) block_->addItem(QString::fromStdString(p));
        const int at = block_->findText(keep);
        block_->setCurrentIndex(at >= 0 ? at : 0);
    }
    recompute();
}

void ScalingCompareWindow::followSession(Session* session, const QString& currentStep) {
    if (!session) return;
    setTrace(session->trace(), currentStep);
    if (property("followsSession").toBool()) return;
    setProperty("followsSession", true);
    auto update = [this, session] { setTrace(session->trace()); };
    connect(session, &Session::traceChanged, this, update);
    connect(session, &Session::liveTraceChanged, this, update);
}

bool ScalingCompareWindow::setBlock(const QString& prefix) {
    const int at = block_->findText(prefix);
    if (at < 0) return false;
    block_->setCurrentIndex(at);
    return true;
}

void ScalingCompareWindow::setHead(int head) { head_->setValue(head); }
void ScalingCompareWindow::setSentence(int sentence) { sentence_->setValue(sentence); }

void ScalingCompareWindow::recompute() {
    cmp_ = {};
    if (!trace_ || block_->currentIndex() < 0) {
        cmp_.error = "no attention block in this trace";
    } else {
        const std::string p = block_->currentText().toStdString();
        if (const auto* q = trace_->find(p + ".Q"); q && q->value.rank() == 4) {
            const QSignalBlocker bh(head_), bs(sentence_);
            head_->setRange(0, int(q->value.dim(1)) - 1);
            sentence_->setRange(0, int(q->value.dim(0)) - 1);
        }
        cmp_ = scaling::compare(*trace_, p, sentence_->value(), head_->value());
    }
    refill();
}

QString ScalingCompareWindow::summaryText() const {
    if (!cmp_.ok()) return QString::fromStdString(cmp_.error);
    const int total = cmp_.rows * cmp_.cols;
    if (cmp_.aVsB.equal())
        return tr("<b>0 of %1 numbers differ</b>: A and B are equal bit for bit, and so is the softmax that follows "
                  "(max |Δ| = %2).")
            .arg(total)
            .arg(numfmt::exact(cmp_.softmaxMaxAbs));
    return tr("<b>%1 of %2 numbers differ, at most %3 ulp</b> (max |Δ| = %4); the softmax that follows changes "
              "by at most %5.")
        .arg(cmp_.aVsB.differing)
        .arg(total)
        .arg(cmp_.aVsB.maxUlp)
        .arg(numfmt::exact(cmp_.aVsB.maxAbs))
        .arg(numfmt::exact(cmp_.softmaxMaxAbs));
}

QString ScalingCompareWindow::traceVerdictText() const {
    if (!cmp_.ok()) return {};
    const int total = cmp_.rows * cmp_.cols;
    const bool eA = cmp_.traceVsEngineA.equal(), eB = cmp_.traceVsEngineB.equal();
    QString v;
    if (eA && eB)
        v = tr("The trace's own <b>P.scores</b> is what both orders give here, bit for bit, in Stepformer's engine "
               "(Eigen's product, then × fl(1/√d<sub>k</sub>), or the query × fl(1/√d<sub>k</sub>) first).");
    else if (eB)
        v = tr("The trace's own <b>P.scores</b> is <b>B</b>'s rounding: bit for bit what Stepformer's engine gives for "
               "(q·kᵀ) × fl(1/√d<sub>k</sub>) (Eigen's product); the engine's query-first order "
               "%1.")
                .arg(agreementText(cmp_.traceVsEngineA, total));
    else if (eA)
        v = tr("The trace's own <b>P.scores</b> is <b>A</b>'s rounding: bit for bit what Stepformer's engine gives for "
               "(q × fl(1/√d<sub>k</sub>))·kᵀ (Eigen's product); the engine's product-first order "
               "%1.")
                .arg(agreementText(cmp_.traceVsEngineB, total));
    else
        v = tr("The trace's own <b>P.scores</b> is neither of Stepformer's CPU orders bit for bit (a trace computed on "
               "a GPU sums in its own order): against the query-first one it %1, against the product-first one %2.")
                .arg(agreementText(cmp_.traceVsEngineA, total), agreementText(cmp_.traceVsEngineB, total));
    v += QStringLiteral(" ") +
         tr("Against the plain loops of the panels it %1 (A) and %2 (B): a matrix product sums in its own order "
            "(in SIMD packets, with fused multiply-adds where the CPU has them), and that moves the last bits as much as the place of the scale.")
             .arg(agreementText(cmp_.traceVsA, total), agreementText(cmp_.traceVsB, total));
    v += QStringLiteral(" ") + tr("This trace is %1.").arg(modelSentence(cmp_.naming));
    return v;
}

QString ScalingCompareWindow::explanationText() const {
    if (!cmp_.ok()) return {};
    const QString dk = QString::number(cmp_.dk);
    QString t;
    if (cmp_.sqrtIsPowerOfTwo)
        t += tr("<p><b>Why they are identical here:</b> d<sub>k</sub> = %1 is a power of 4, so √d<sub>k</sub> = %2 is a "
                "power of two. Dividing a float by a power of two only lowers its exponent: it is exact, nothing rounds. "
                "Scaling before or after the product then gives the same bits (as for the tutorial's d<sub>k</sub> = 64, "
                "√64 = 8). The difference shows with a d<sub>k</sub> that is not a power of 4 (8, 32, 128) — "
                "d<sub>k</sub> is the model's, not a setting of this window.</p>")
                 .arg(dk, numfmt::exact(cmp_.sqrtDk));
    t += tr("<p><b>Same maths, two roundings.</b> Dividing by √d<sub>k</sub> before or after the dot "
                   "product is the same number on paper: (q/√d<sub>k</sub>)·kᵀ = (q·kᵀ)/√d<sub>k</sub>. "
                   "In float32 every operation rounds to 24 bits, and the two orders round at different places, "
                   "so the last bit or two can differ. One <i>ulp</i> is the gap between a float and the next one.</p>"
                   "<p><b>A</b> = (q/√d<sub>k</sub>)·kᵀ, the query scaled first: attention-is-all-you-need-pytorch "
                   "(seed 003: <tt>q / temperature</tt>, <tt>temperature = d_k ** 0.5</tt>) and PyTorch's nn.MultiheadAttention "
                   "(seeds 002 and 004; 1.13: <tt>q / math.sqrt(head_dim)</tt>).<br>"
                   "<b>B</b> = (q·kᵀ)/√d<sub>k</sub>, the product scaled: the tutorial (seed 001: "
                   "<tt>matmul(Q, K.transpose(-1, -2)) / np.sqrt(d_k)</tt>).</p>"
                   "<p>Both are computed here from the trace's P.Q and P.K in float32, in one loop that sums the same "
                   "products in the same order (i = 0 … d<sub>k</sub>−1) without fused multiply-adds, and divide by "
                   "√d<sub>k</sub> rounded to float32 (%1), as torch does with a Python or NumPy float; so only the place of "
                   "the division differs. A real GEMM (PyTorch's, Eigen's) sums in its own order and may fuse, which moves "
                   "the last bits again.</p>")
                    .arg(numfmt::exact(cmp_.sqrtDk));
    if (!cmp_.sqrtIsPowerOfTwo)
        t += tr("<p>d<sub>k</sub> = %1: √d<sub>k</sub> = %2 is not a power of two, so each division rounds, and "
                "rounding the d<sub>k</sub> scaled query entries before the sum is not rounding the one sum after it. "
                "A score near 0 can show tens of ulps: its terms cancel, so its own ulp is tiny while the terms' "
                "rounding errors (a few 1e−8) remain — |Δ| stays that small. The softmax line shows what "
                "reaches the attention weights: far below what a student can see.</p>")
                 .arg(dk, numfmt::exact(double(cmp_.sqrtDk)));
    return t;
}

void ScalingCompareWindow::refill() {
    summary_->setText(summaryText());
    verdict_->setText(traceVerdictText());
    explanation_->setText(explanationText());
    if (!cmp_.ok()) {
        for (auto* h : {a_, b_, diff_, traced_}) {
            h->clear();
            h->setEmptyMessage(QString::fromStdString(cmp_.error));
        }
        return;
    }
    const QStringList rows = toLabels(cmp_.rowTokens), cols = toLabels(cmp_.colTokens);
    auto fill = [&](HeatmapWidget* h, const QString& title, std::vector<float> values) {
        const HeatmapWidget::Batch batch(h);
        h->setMatrix(cmp_.rows, cmp_.cols, std::move(values));
        h->setRowLabels(rows);
        h->setColLabels(cols);
        h->setTitle(title);
    };
    const QString block = QString::fromStdString(cmp_.block);
    fill(a_, tr("A: (q/√dₖ)·kᵀ — query scaled first"), cmp_.a);
    fill(b_, tr("B: (q·kᵀ)/√dₖ — product scaled"), cmp_.b);
    std::vector<float> signedUlps(cmp_.ulps.size());
    for (size_t i = 0; i < signedUlps.size(); ++i)
        signedUlps[i] = float(cmp_.diff[i] < 0 ? -double(cmp_.ulps[i]) : double(cmp_.ulps[i]));
    fill(diff_, tr("A − B in ulps (%1 of %2 differ)").arg(cmp_.aVsB.differing).arg(cmp_.rows * cmp_.cols),
         std::move(signedUlps));
    const float worst = std::max(1.0f, float(cmp_.aVsB.maxUlp));
    diff_->setValueRange(-worst, worst);
    diff_->setValueText(HeatmapWidget::ValueText::Always);
    const Comparison* c = &cmp_;
    diff_->setTooltipFunction([c, this](int r, int col) {
        const size_t at = size_t(r) * c->cols + col;
        if (at >= c->a.size()) return QString();
        return tr("A = %1<br>B = %2<br>A − B = %3 (%4 ulp)")
            .arg(numfmt::exact(c->a[at]), numfmt::exact(c->b[at]), numfmt::exact(c->diff[at]))
            .arg(c->ulps[at]);
    });
    const bool eA = cmp_.traceVsEngineA.equal(), eB = cmp_.traceVsEngineB.equal();
    const QString which = eA && eB ? tr("both orders' bits")
                          : eB     ? tr("B's rounding")
                          : eA     ? tr("A's rounding")
                                   : tr("neither order's bits");
    fill(traced_, tr("The trace's P.scores: %1").arg(which), cmp_.traced);
    traced_->setToolTip(tr("%1.scores, as the trace holds it").arg(block));
    // The cells print about three digits, where A and B agree: the tooltips give every digit.
    auto exactTip = [c](const std::vector<float>* v, const QString& what) {
        return [c, v, what](int r, int col) {
            const size_t at = size_t(r) * c->cols + col;
            if (at >= v->size()) return QString();
            return tr("%1 = %2<br>A = %3<br>B = %4 (%5 ulp apart)")
                .arg(what, numfmt::exact((*v)[at]), numfmt::exact(c->a[at]), numfmt::exact(c->b[at]))
                .arg(c->ulps[at]);
        };
    };
    a_->setTooltipFunction(exactTip(&cmp_.a, QStringLiteral("A")));
    b_->setTooltipFunction(exactTip(&cmp_.b, QStringLiteral("B")));
    traced_->setTooltipFunction(exactTip(&cmp_.traced, tr("P.scores")));
}

ScalingCompareWindow* ScalingCompareWindow::showFor(QWidget* owner, Session* session, const QString& currentStep) {
    auto* w = owner->findChild<ScalingCompareWindow*>(QStringLiteral("scalingCompareWindow"), Qt::FindDirectChildrenOnly);
    if (!w) w = new ScalingCompareWindow(owner);
    w->followSession(session, currentStep);
    w->show();
    w->raise();
    w->activateWindow();
    return w;
}

// A window of its own closes with Escape, as a dialog does (what its controls leave unused reaches it).
void ScalingCompareWindow::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape && e->modifiers() == Qt::NoModifier) {
        close();
        return;
    }
    QWidget::keyPressEvent(e);
}
