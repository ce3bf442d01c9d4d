#include "steps/step_search.h"

#include <algorithm>

#include <QApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QScreen>
#include <QVBoxLayout>

namespace {

QStringList words(const QString& text) {
    static const QRegularExpression split(QStringLiteral("[^\\p{L}\\p{N}]+"));
    return text.toCaseFolded().split(split, Qt::SkipEmptyParts);
}

bool isNumber(const QString& w) {
    return !w.isEmpty() && std::all_of(w.begin(), w.end(), [](QChar c) { return c.isDigit(); });
}

}  // namespace

QStringList matchSteps(const QString& query, const QList<StepText>& steps, int limit) {
    const QStringList asked = words(query);
    const QString whole = query.trimmed().toCaseFolded();
    if (asked.isEmpty()) return {};
    struct Hit {
        int score;
        int order;
        QString name;
    };
    std::vector<Hit> hits;
    for (int i = 0; i < steps.size(); ++i) {
        const StepText& s = steps[i];
        const QStringList have = words(s.name + QLatin1Char(' ') + s.label + QLatin1Char(' ') + s.location);
        bool all = true;
        for (const QString& w : asked) {
            const bool found = std::any_of(have.begin(), have.end(), [&](const QString& h) {
                return isNumber(w) ? h == w : h.startsWith(w);
            });
            if (!found) {
                all = false;
                break;
            }
        }
        // The exact trace name (or its start) always matches, however it is split.
        const bool byName = s.name.toCaseFolded().startsWith(whole);
        if (!all && !byName) continue;
        const int score = byName && s.name.toCaseFolded() == whole ? -1000 : int(have.size()) - int(asked.size());
        hits.push_back({score, i, s.name});
    }
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        return a.score != b.score ? a.score < b.score : a.order < b.order;
    });
    QStringList out;
    for (const Hit& h : hits) {
        if (out.size() >= limit) break;
        out << h.name;
    }
    return out;
}

StepSearchPopup::StepSearchPopup(QWidget* parent) : QFrame(parent, Qt::Popup) {
    setObjectName(QStringLiteral("stepSearchPopup"));
    setFrameShape(QFrame::StyledPanel);
    setAccessibleName(tr("Find a step"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    field_ = new QLineEdit(this);
    field_->setObjectName(QStringLiteral("stepSearchField"));
    field_->setPlaceholderText(tr("Find a step: softmax decoder 3, scores, enc.layers.0…"));
    field_->setClearButtonEnabled(true);
    field_->setAccessibleName(tr("Step to find"));
    field_->installEventFilter(this);
    results_ = new QListWidget(this);
    results_->setObjectName(QStringLiteral("stepSearchResults"));
    results_->setAccessibleName(tr("Matching steps"));
    results_->setUniformItemSizes(true);
    layout->addWidget(field_);
    layout->addWidget(results_);
    auto* hint = new QLabel(tr("Enter: go there · ↑↓: choose · Esc: close"), this);
    hint->setEnabled(false);
    layout->addWidget(hint);
    connect(field_, &QLineEdit::textChanged, this, &StepSearchPopup::refresh);
    connect(results_, &QListWidget::itemActivated, this, &StepSearchPopup::choose);
    connect(results_, &QListWidget::itemClicked, this, &StepSearchPopup::choose);
}

void StepSearchPopup::open(QWidget* anchor, const QList<StepText>& steps) {
    steps_ = steps;
    refresh();
    const int w = std::max(anchor ? anchor->width() : 0, 360);
    resize(w, 320);
    QPoint at = anchor ? anchor->mapToGlobal(QPoint(0, 0)) : QPoint(0, 0);
    if (const QScreen* screen = anchor ? anchor->screen() : QApplication::primaryScreen()) {
        const QRect avail = screen->availableGeometry();
        at.setX(std::clamp(at.x(), avail.left(), std::max(avail.left(), avail.right() - width())));
        at.setY(std::clamp(at.y(), avail.top(), std::max(avail.top(), avail.bottom() - height())));
    }
    move(at);
    show();
    field_->setFocus(Qt::PopupFocusReason);
    field_->selectAll();
}

void StepSearchPopup::refresh() {
    results_->clear();
    const QStringList names = matchSteps(field_->text(), steps_);
    for (const QString& n : names) {
        const auto it = std::find_if(steps_.begin(), steps_.end(), [&](const StepText& s) { return s.name == n; });
        if (it == steps_.end()) continue;
        auto* item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(it->label, it->location), results_);
        item->setData(Qt::UserRole, n);
        item->setToolTip(n);
    }
    if (results_->count() > 0) results_->setCurrentRow(0);
}

void StepSearchPopup::choose() {
    const QListWidgetItem* item = results_->currentItem();
    if (!item) return;
    const QString name = item->data(Qt::UserRole).toString();
    close();
    emit stepChosen(name);
}

bool StepSearchPopup::eventFilter(QObject* watched, QEvent* event) {
    if (watched == field_ && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        const int row = results_->currentRow();
        switch (key->key()) {
        case Qt::Key_Down:
            if (row + 1 < results_->count()) results_->setCurrentRow(row + 1);
            return true;
        case Qt::Key_Up:
            if (row > 0) results_->setCurrentRow(row - 1);
            return true;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            choose();
            return true;
        case Qt::Key_Escape:
            close();
            return true;
        default:
            break;
        }
    }
    return QFrame::eventFilter(watched, event);
}
