// Compiled with -ffp-contract=off (ui/CMakeLists.txt): a fused multiply-add would round the
// products differently from the operations written here.
#include "compare/scaling_math.h"

#include "compare/engine_scores.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using stepformer::Role;
using stepformer::Trace;
using stepformer::TraceEntry;

namespace scaling {

namespace {

// A float's bits as an integer that orders like the float (negatives below positives, −0 = +0).
int64_t ordered(float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
}

std::string prefixOf(const std::string& name) {
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

}  // namespace

int64_t ulpDistance(float a, float b) {
    if (a == b) return 0;
    if (!std::isfinite(a) || !std::isfinite(b)) return std::numeric_limits<int64_t>::max();
    return std::llabs(ordered(a) - ordered(b));
}

std::vector<float> softmaxRows(const std::vector<float>& x, int rows, int cols) {
    std::vector<float> out(x.size());
    for (int r = 0; r < rows; ++r) {
        const float* in = x.data() + size_t(r) * cols;
        float* o = out.data() + size_t(r) * cols;
        float m = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < cols; ++c) m = std::max(m, in[c]);
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            o[c] = std::isinf(m) ? 0.0f : std::exp(in[c] - m);
            sum += o[c];
        }
        for (int c = 0; c < cols; ++c) o[c] = sum > 0.0f ? o[c] / sum : 0.0f;
    }
    return out;
}

Agreement agreement(const std::vector<float>& x, const std::vector<float>& y) {
    Agreement g;
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (x[i] == y[i]) continue;  // +0 and −0 count as the same number
        ++g.differing;
        g.maxUlp = std::max(g.maxUlp, ulpDistance(x[i], y[i]));
        g.maxAbs = std::max(g.maxAbs, std::abs(double(x[i]) - double(y[i])));
    }
    return g;
}

std::vector<std::string> attentionBlocks(const Trace& tr) {
    std::vector<std::string> out;
    for (const auto& b : tr.blocks()) {
        if (!b.is_attention()) continue;
        const TraceEntry* s = tr.find_role(b, Role::Scores);
        const TraceEntry* q = tr.find_role(b, Role::Q);
        const TraceEntry* k = tr.find_role(b, Role::K);
        if (!s || !q || !k || s->name.rfind("grad.", 0) == 0) continue;
        const std::string p = prefixOf(s->name);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    return out;
}

std::string blockOf(const Trace& tr, const std::string& entryName) {
    const TraceEntry* e = tr.find(entryName);
    if (!e || !e->block.is_attention()) return {};
    const TraceEntry* s = tr.find_role(e->block, Role::Scores);
    return s ? prefixOf(s->name) : std::string();
}

Comparison compare(const Trace& tr, const std::string& block, int sentence, int head) {
    Comparison c;
    c.block = block;
    c.sentence = sentence;
    c.head = head;
    const TraceEntry* Q = tr.find(block + ".Q");
    const TraceEntry* K = tr.find(block + ".K");
    const TraceEntry* S = tr.find(block + ".scores");
    if (!Q || !K || !S) {
        c.error = "no attention block " + block + " in this trace";
        return c;
    }
    const auto& q = Q->value;
    const auto& k = K->value;
    const auto& s = S->value;
    if (q.rank() != 4 || k.rank() != 4 || s.rank() != 4) {
        c.error = "P.Q, P.K and P.scores are not [batch, head, len, ·]";
        return c;
    }
    c.naming = S->block.naming;
    const int B = int(q.dim(0)), H = int(q.dim(1));
    c.rows = int(q.dim(2));
    c.cols = int(k.dim(2));
    c.dk = int(q.dim(3));
    if (sentence < 0 || sentence >= B || head < 0 || head >= H) {
        c.error = "no such sentence or head";
        return c;
    }
    // torch rounds the Python float d_k ** 0.5 (and NumPy's np.sqrt(d_k)) to float32 before dividing.
    c.sqrtDk = static_cast<float>(std::sqrt(double(c.dk)));
    int e = 0;
    c.sqrtIsPowerOfTwo = std::frexp(double(c.sqrtDk), &e) == 0.5 && double(c.sqrtDk) * c.sqrtDk == double(c.dk);

    const float* qh = q.ptr() + (int64_t(sentence) * H + head) * c.rows * c.dk;
    const float* kh = k.ptr() + (int64_t(sentence) * H + head) * c.cols * c.dk;
    const float* sh = s.ptr() + (int64_t(sentence) * H + head) * c.rows * c.cols;
    const size_t n = size_t(c.rows) * c.cols;
    c.a.resize(n);
    c.b.resize(n);
    c.traced.assign(sh, sh + n);
    c.ulps.resize(n);
    c.diff.resize(n);
    // One loop for both: the same products summed in the same order (i = 0 … d_k − 1); A's
    // products are of the scaled query, B's sum is divided at the end.
    for (int r = 0; r < c.rows; ++r) {
        for (int col = 0; col < c.cols; ++col) {
            float sumA = 0.0f, sumB = 0.0f;
            for (int i = 0; i < c.dk; ++i) {
                const float qi = qh[r * c.dk + i], ki = kh[col * c.dk + i];
                sumA += (qi / c.sqrtDk) * ki;
                sumB += qi * ki;
            }
            const size_t at = size_t(r) * c.cols + col;
            c.a[at] = sumA;
            c.b[at] = sumB / c.sqrtDk;
            c.ulps[at] = ulpDistance(c.a[at], c.b[at]);
            c.diff[at] = static_cast<float>(double(c.a[at]) - double(c.b[at]));
        }
    }
    c.aVsB = agreement(c.a, c.b);
    c.traceVsA = agreement(c.traced, c.a);
    c.traceVsB = agreement(c.traced, c.b);
    c.engineB = engineProductScaled(qh, kh, c.rows, c.cols, c.dk);
    c.engineA = engineQueryScaled(qh, kh, c.rows, c.cols, c.dk);
    c.traceVsEngineA = agreement(c.traced, c.engineA);
    c.traceVsEngineB = agreement(c.traced, c.engineB);

    // The softmax that follows, on the masked scores: a cell the block masks (its masked score is
    // not its score) takes the masked value (−1e9 or −∞) in both.
    std::vector<float> ma = c.a, mb = c.b;
    if (const TraceEntry* M = tr.find(block + ".masked_scores"); M && M->value.data.size() == s.data.size()) {
        const float* mh = M->value.ptr() + (int64_t(sentence) * H + head) * c.rows * c.cols;
        for (size_t i = 0; i < n; ++i)
            if (mh[i] != sh[i] && (std::isinf(mh[i]) || mh[i] <= -1e8f)) ma[i] = mb[i] = mh[i];
    }
    const auto pa = softmaxRows(ma, c.rows, c.cols), pb = softmaxRows(mb, c.rows, c.cols);
    for (size_t i = 0; i < n; ++i) c.softmaxMaxAbs = std::max(c.softmaxMaxAbs, std::abs(double(pa[i]) - double(pb[i])));

    // Token labels: the query's and key's axes say which sentence each comes from.
    auto labels = [&](const stepformer::Axis& ax, int len) {
        const auto& toks = ax.kind == stepformer::AxisKind::SrcToken ? tr.src_tokens : tr.tgt_tokens;
        std::vector<std::string> out;
        for (int i = 0; i < len; ++i)
            out.push_back(size_t(sentence) < toks.size() && size_t(i) < toks[size_t(sentence)].size()
                              ? toks[size_t(sentence)][size_t(i)]
                              : std::to_string(i));
        return out;
    };
    if (S->axes.size() == 4) {
        c.rowTokens = labels(S->axes[2], c.rows);
        c.colTokens = labels(S->axes[3], c.cols);
    }
    return c;
}

}  // namespace scaling
