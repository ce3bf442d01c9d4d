#include "lab/module_repr.h"

#include <cmath>
#include <cstdio>

#include <QStringList>

namespace torchprint {

namespace {

constexpr int kPrecision = 4;
constexpr int kLineWidth = 80;

// Python's '{:.4f}' / '{:.4e}' / '{:.0f}' of the float's double, with Python's words for the
// non-finite values. printf rounds the exact binary value as Python does.
QString printf1(const char* fmt, double v) {
    if (std::isnan(v)) return QStringLiteral("nan");
    if (std::isinf(v)) return v < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return QString::fromLatin1(buf);
}

const char* fixedFmt() { return "%.4f"; }
const char* sciFmt() { return "%.4e"; }

}  // namespace

Formatter::Formatter(const std::vector<float>& values) {
    std::vector<float> nz;  // nonzero finite values: the only ones that choose the notation
    for (float v : values)
        if (std::isfinite(v) && v != 0.0f) nz.push_back(v);
    if (nz.empty()) return;  // all zero / non-finite: whole-number mode, width 1 ("0.", "nan")
    double lo = std::abs(double(nz[0])), hi = lo;
    for (float v : nz) {
        lo = std::min(lo, std::abs(double(v)));
        hi = std::max(hi, std::abs(double(v)));
        if (v != std::ceil(v)) int_ = false;
    }
    if (int_) {
        sci_ = hi / lo > 1000.0 || hi > 1e8;
        for (float v : nz) width_ = std::max<int>(width_, sci_ ? printf1(sciFmt(), v).size() : printf1("%.0f", v).size() + 1);
    } else {
        sci_ = hi / lo > 1000.0 || hi > 1e8 || lo < 1e-4;
        for (float v : nz) width_ = std::max<int>(width_, printf1(sci_ ? sciFmt() : fixedFmt(), v).size());
    }
    static_assert(kPrecision == 4, "the formats above say 4");
}

QString Formatter::raw(float v) const {
    if (sci_) return printf1(sciFmt(), v);
    if (int_) {
        QString s = printf1("%.0f", v);
        if (std::isfinite(v)) s += QLatin1Char('.');  // a float tensor: "0.", "-1."
        return s;
    }
    return printf1(fixedFmt(), v);
}

QString Formatter::format(float v) const {
    const QString s = raw(v);
    return s.size() >= width_ ? s : QString(width_ - s.size(), QLatin1Char(' ')) + s;
}

namespace {

// _tensor_str_with_formatter: the values of one slice [offset, offset + numel(shape[dim:])).
QString slice(const std::vector<float>& v, const stepformer::Shape& shape, size_t dim, int64_t offset, int indent,
              const Formatter& f) {
    const int64_t n = shape[dim];
    if (dim + 1 == shape.size()) {  // _vector_str
        const int perLine = std::max(1, (kLineWidth - indent) / (f.width() + 2));
        QStringList lines;
        QStringList line;
        for (int64_t i = 0; i < n; ++i) {
            line << f.format(v[size_t(offset + i)]);
            if (line.size() == perLine) {
                lines << line.join(QStringLiteral(", "));
                line.clear();
            }
        }
        if (!line.isEmpty()) lines << line.join(QStringLiteral(", "));
        return QLatin1Char('[') + lines.join(QStringLiteral(",\n") + QString(indent + 1, QLatin1Char(' '))) +
               QLatin1Char(']');
    }
    int64_t inner = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
    QStringList parts;
    for (int64_t i = 0; i < n; ++i) parts << slice(v, shape, dim + 1, offset + i * inner, indent + 1, f);
    const int rank = int(shape.size() - dim);
    const QString sep = QLatin1Char(',') + QString(rank - 1, QLatin1Char('\n')) + QString(indent + 1, QLatin1Char(' '));
    return QLatin1Char('[') + parts.join(sep) + QLatin1Char(']');
}

}  // namespace

QString repr(const std::vector<float>& values, const stepformer::Shape& shape) {
    const QString prefix = QStringLiteral("tensor(");
    if (values.empty() || shape.empty()) {
        if (values.size() == 1) return prefix + Formatter(values).format(values[0]).trimmed() + QLatin1Char(')');
        return prefix + QStringLiteral("[])");
    }
    const Formatter f(values);
    return prefix + slice(values, shape, 0, 0, int(prefix.size()), f) + QLatin1Char(')');
}

QString repr(const stepformer::Tensor& t) { return repr(t.data, t.shape); }

QString sizeText(const stepformer::Shape& shape) {
    QStringList dims;
    for (int64_t d : shape) dims << QString::number(d);
    return QStringLiteral("torch.Size([%1])").arg(dims.join(QStringLiteral(", ")));
}

}  // namespace torchprint
