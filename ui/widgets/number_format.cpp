#include "widgets/number_format.h"
#include "widgets/text_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <QCoreApplication>

namespace numfmt {

namespace {

using ui_text::kMinus;

QString tr(const char* text) { return QCoreApplication::translate("numfmt", text); }

// Every number the UI prints ends here, so they all read alike: "1e-07" / "-1e+09" -> "1e−7" /
// "−1e9" (no plus, no leading zeros in the exponent), the typographic minus, "NaN", "∞", and no
// sign on a number that rounds to zero ("-0.0000" -> "0.0000").
QString finish(QString s) {
    const bool negative = s.startsWith(QLatin1Char('-'));
    const QString body = negative ? s.mid(1) : s;
    if (body.compare(QLatin1String("nan"), Qt::CaseInsensitive) == 0) return QStringLiteral("NaN");
    if (body.compare(QLatin1String("inf"), Qt::CaseInsensitive) == 0)
        return negative ? kMinus + QStringLiteral("∞") : QStringLiteral("∞");
    const int e = s.indexOf(QLatin1Char('e'));
    if (e >= 0) {
        const QString mant = s.left(e);
        QString ex = s.mid(e + 1);
        const bool neg = ex.startsWith(QLatin1Char('-'));
        if (neg || ex.startsWith(QLatin1Char('+'))) ex.remove(0, 1);
        while (ex.size() > 1 && ex.startsWith(QLatin1Char('0'))) ex.remove(0, 1);
        s = mant + QLatin1Char('e') + (neg ? QStringLiteral("-") : QString()) + ex;
    } else if (negative && std::all_of(body.begin(), body.end(), [](QChar c) { return c == u'0' || c == u'.'; })) {
        s = body;
    }
    s.replace(QLatin1Char('-'), kMinus);
    return s;
}

QString parenthesizedIfNegative(double v, const QString& text) {
    return v < 0 ? QStringLiteral("(") + text + QStringLiteral(")") : text;
}

}  // namespace

QString exact(double value) {
    const float v = static_cast<float>(value);
    if (std::isnan(v)) return QStringLiteral("NaN");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("+∞") : kMinus + QStringLiteral("∞");
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back as v
    return finish(QString::fromLatin1(buf, static_cast<int>(res.ptr - buf)));
}

QString exactOperand(double v) { return parenthesizedIfNegative(v, exact(v)); }

QString cell(double value) {
    const float v = static_cast<float>(value);
    if (std::isnan(v)) return QStringLiteral("NaN");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : kMinus + QStringLiteral("∞");
    if (v == 0.0f) return QStringLiteral("0");
    const float a = std::fabs(v);
    QString s;
    if (a >= 1e4f || a < 0.005f)
        s = QString::number(double(v), 'e', 0);
    else if (a >= 100.0f)
        s = QString::number(double(v), 'f', 0);
    else if (a >= 10.0f)
        s = QString::number(double(v), 'f', 1);
    else
        s = QString::number(double(v), 'f', 2);
    return finish(s);
}

QString cellOperand(double v) { return parenthesizedIfNegative(v, cell(v)); }

QString wholeCell(double v) { return QString::number(static_cast<qint64>(v)).replace(QLatin1Char('-'), kMinus); }

QString colorBarTick(double v) {
    if (v == 0.0) return QStringLiteral("0");
    QString s = std::fabs(v) < 0.01 ? QString::number(v, 'e', 2) : QString::number(v, 'g', 3);
    const int e = s.indexOf(QLatin1Char('e'));
    if (e >= 0 && s.left(e).contains(QLatin1Char('.'))) {  // 1.20e-05 -> 1.2e-05
        QString mant = s.left(e);
        while (mant.endsWith(QLatin1Char('0'))) mant.chop(1);
        if (mant.endsWith(QLatin1Char('.'))) mant.chop(1);
        s = mant + s.mid(e);
    }
    return finish(s);
}

QString tensorStat(double v) {
    if (v != 0.0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e4)) return finish(QString::number(v, 'e', 2));
    return finish(QString::number(v, 'g', 4));
}

QString gradientStat(double v) {
    if (!std::isfinite(v)) return QStringLiteral("—");
    return tensorStat(v);
}

QString fourDigits(double v) { return finish(QString::number(v, 'g', 4)); }

QString decimals(double v, int places) {
    if (std::isnan(v)) return QStringLiteral("—");
    return finish(QString::number(v, 'f', places));
}

int decimalsForTerms(const std::vector<double>& terms, int atLeast) {
    int places = atLeast;
    for (double t : terms) {
        const double a = std::abs(t);
        if (!std::isfinite(a) || a == 0.0) continue;
        // Two significant digits: the first nonzero decimal and the one after it.
        places = std::max(places, int(std::floor(-std::log10(a))) + 2);
    }
    return std::min(places, 9);
}

QString plainDecimals(double v, int places) { return finish(QString::number(v, 'f', places)); }

QString chartReadout(double v) {
    if (v == 0.0) return QStringLiteral("0");
    const double a = std::abs(v);
    if (a >= 1e-3 && a < 1e4) return finish(QString::number(v, 'f', a >= 100 ? 1 : a >= 1 ? 4 : 5));
    return finish(QString::number(v, 'e', 3));
}

QString probability(double value) {
    const float p = static_cast<float>(value);
    if (p >= 0.001f) return finish(QString::number(double(p), 'f', 3));
    return finish(QString::number(double(p), 'g', 2));
}

QString duration(double seconds) {
    if (!(seconds >= 0.0) || !std::isfinite(seconds)) return QStringLiteral("–");
    if (seconds < 10.0) return tr("%1 s").arg(seconds, 0, 'f', 1);
    const int s = int(std::lround(seconds));
    if (s < 60) return tr("%1 s").arg(s);
    if (s < 3600) return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString byteSize(double b) {
    if (b >= 1024.0 * 1024 * 1024) return QStringLiteral("%1 GB").arg(b / (1024.0 * 1024 * 1024), 0, 'f', 1);
    if (b >= 1024.0 * 1024) return QStringLiteral("%1 MB").arg(b / (1024.0 * 1024), 0, 'f', 0);
    return QStringLiteral("%1 kB").arg(std::max(1.0, b / 1024.0), 0, 'f', 0);
}

QString abbreviatedCount(int64_t n) {
    if (n >= 1000000) return QStringLiteral("%1 M").arg(double(n) / 1e6, 0, 'f', 1);
    if (n >= 1000) return QStringLiteral("%1 k").arg(double(n) / 1e3, 0, 'f', 1);
    return QString::number(n);
}

QString learningRate(double lr) {
    // Short and exact for the usual values: 1e-3 -> "1e-3", 0.005 -> "5e-3", 0.1 -> "0.1".
    if (lr >= 0.01 || lr == 0.0) return QString::number(lr, 'g', 6);
    const int e = int(std::floor(std::log10(lr)));
    const double m = lr / std::pow(10.0, e);
    QString ms = QString::number(m, 'g', 6);
    return ms + QStringLiteral("e-") + QString::number(-e);
}

}  // namespace numfmt
