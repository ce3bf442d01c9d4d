#include "architecture/diagram_layout.h"

#include <map>
#include <stdexcept>

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace architecture {

namespace {

// The paper's colours, by the name a layout gives them.
QRgb fillNamed(const QString& name) {
    static const QHash<QString, QRgb> fills{{QStringLiteral("embedding"), 0xf8cfd4}, {QStringLiteral("attention"), 0xfddcaa},
                                            {QStringLiteral("norm"), 0xf2f3bf},      {QStringLiteral("ffn"), 0xc5e4f3},
                                            {QStringLiteral("linear"), 0xd9d3f1},    {QStringLiteral("softmax"), 0xcfebc7},
                                            {QStringLiteral("white"), 0xffffff}};
    const auto it = fills.find(name);
    if (it == fills.end()) throw std::runtime_error("unknown fill \"" + name.toStdString() + "\"");
    return *it;
}

class Reader {
public:
    explicit Reader(QString file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const QString& what) const {
        throw std::runtime_error(QStringLiteral("%1: %2").arg(file_, what).toStdString());
    }
    QJsonValue need(const QJsonObject& o, const char* key) const {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) fail(QStringLiteral("missing \"%1\"").arg(QLatin1String(key)));
        return v;
    }
    QList<qreal> numbers(const QJsonValue& v, int n, const char* key) const {
        const QJsonArray a = v.toArray();
        if (a.size() != n) fail(QStringLiteral("\"%1\" needs %2 numbers").arg(QLatin1String(key)).arg(n));
        QList<qreal> out;
        for (const QJsonValue& x : a) {
            if (!x.isDouble()) fail(QStringLiteral("\"%1\" holds a non-number").arg(QLatin1String(key)));
            out << x.toDouble();
        }
        return out;
    }
    QRectF rect(const QJsonValue& v, const char* key) const {
        const QList<qreal> r = numbers(v, 4, key);
        return QRectF(QPointF(r[0], r[1]), QPointF(r[2], r[3]));
    }
    QPolygonF points(const QJsonValue& v, const char* key) const {
        QPolygonF poly;
        for (const QJsonValue& p : v.toArray()) {
            const QList<qreal> xy = numbers(p, 2, key);
            poly << QPointF(xy[0], xy[1]);
        }
        if (poly.size() < 2) fail(QStringLiteral("\"%1\" needs two points or more").arg(QLatin1String(key)));
        return poly;
    }

    DiagramBlock block(const QJsonObject& o) const {
        DiagramBlock b;
        b.id = need(o, "id").toString();
        b.label = need(o, "label").toString();
        for (const QJsonValue& t : o.value(QStringLiteral("badges")).toArray()) b.badges << t.toString();
        if (o.contains(QStringLiteral("box"))) {
            b.logical = rect(o.value(QStringLiteral("box")), "box");
            try {
                b.fill = fillNamed(need(o, "fill").toString());
            } catch (const std::runtime_error& e) {
                fail(QString::fromUtf8(e.what()));
            }
            return b;
        }
        const bool sum = o.contains(QStringLiteral("sum"));
        if (!sum && !o.contains(QStringLiteral("pe"))) fail(QStringLiteral("block \"%1\" has no box, sum or pe").arg(b.id));
        const QList<qreal> c = numbers(o.value(sum ? QStringLiteral("sum") : QStringLiteral("pe")), 3, sum ? "sum" : "pe");
        b.shape = sum ? Shape::Circle : Shape::PeIcon;
        b.logical = QRectF(c[0] - c[2], c[1] - c[2], 2 * c[2], 2 * c[2]);
        return b;
    }

    DiagramLayout read(const QString& name) const {
        QFile f(file_);
        if (!f.open(QIODevice::ReadOnly)) fail(QStringLiteral("cannot be read"));
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
        if (!doc.isObject()) fail(QStringLiteral("not a JSON object (%1)").arg(err.errorString()));
        const QJsonObject o = doc.object();
        DiagramLayout d;
        d.name = name;
        d.height = need(o, "height").toDouble();
        const QJsonObject frames = need(o, "frames").toObject();
        // No "encoder": a decoder-only model's single stack (DiagramLayout::hasEncoder).
        if (frames.contains(QStringLiteral("encoder")))
            d.encoderFrame = rect(frames.value(QStringLiteral("encoder")), "frames.encoder");
        d.decoderFrame = rect(need(frames, "decoder"), "frames.decoder");
        d.separateAdds = o.value(QStringLiteral("separate_adds")).toBool();
        const QJsonObject t = need(o, "texts").toObject();
        d.inputs = need(t, "inputs").toString();
        d.outputs = need(t, "outputs").toString();
        d.inputsY = need(t, "inputs_y").toDouble();
        d.positional = need(t, "positional").toString();
        d.positionalY = need(t, "positional_y").toDouble();
        d.positionalRight = t.value(QStringLiteral("positional_right")).toDouble(kW);
        d.encoderTitleBottom = need(t, "encoder_title_bottom").toDouble();
        d.hint = need(t, "hint").toString();
        d.hintBottom = need(t, "hint_bottom").toDouble();
        for (const QJsonValue& b : need(o, "blocks").toArray()) d.blocks << block(b.toObject());
        for (const QJsonValue& a : need(o, "arrows").toArray()) {
            const QJsonObject ao = a.toObject();
            d.arrows << DiagramArrow{points(need(ao, "points"), "points"), ao.value(QStringLiteral("head")).toBool(true)};
        }
        for (const QJsonValue& l : o.value(QStringLiteral("shared_links")).toArray()) {
            const QJsonObject lo = l.toObject();
            SharedLink s;
            s.when = lo.value(QStringLiteral("when")).toString();  // "": always drawn
            s.points = points(need(lo, "points"), "points");
            s.label = rect(need(lo, "label"), "label");
            s.labelAtBottomLeft = lo.value(QStringLiteral("label_align")).toString() == QLatin1String("bottom_left");
            s.labelIfFits = lo.value(QStringLiteral("label_if_fits")).toBool();
            d.sharedLinks << s;
        }
        return d;
    }

private:
    QString file_;
};

}  // namespace

bool DiagramLayout::hasBadges() const {
    for (const DiagramBlock& b : blocks)
        if (!b.badges.isEmpty()) return true;
    return false;
}

const DiagramLayout& diagramLayout(const QString& name) {
    // Read once; the GUI thread is the only reader.
    static std::map<QString, DiagramLayout> cache;
    auto it = cache.find(name);
    if (it == cache.end())
        it = cache.emplace(name, Reader(QStringLiteral(":/diagrams/%1.json").arg(name)).read(name)).first;
    return it->second;
}

}  // namespace architecture
