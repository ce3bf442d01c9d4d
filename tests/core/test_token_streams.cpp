// The batch's token streams: each model's registry line says which it reads, and its graph's
// steps read exactly those; the batch names them; a pass given a batch without one says which.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "model_cases.h"
#include "stepformer/graph.h"
#include "stepformer/model.h"
#include "stepformer/model_registry.h"
#include "stepformer/params.h"

namespace {

using namespace stepformer;
using stepformer::testing::model_config;
using stepformer::testing::sentence_batch;

class TokenStreams : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenStreams, TheGraphReadsTheStreamsTheRegistrySays) {
    const Config c = model_config(GetParam());
    const Transformer model(c, init_params(c, 1));
    const Batch batch = sentence_batch(c);
    Trace t;
    model.forward(batch, t);
    std::set<TokenStream> read;
    for (const Step& s : t.graph->steps())
        // (a subsequence mask reads the lengths alone: stream -1)
        if ((s.node.op == Op::Embedding || s.node.op == Op::TokenMask) && s.node.attrs.stream >= 0)
            read.insert(TokenStream(s.node.attrs.stream));
    std::set<TokenStream> declared;
    for (TokenStream s : model_streams(c))
        if (s != TokenStream::Out) declared.insert(s);
    EXPECT_EQ(read, declared);
    // The loss reads the targets: a model that trains declares them.
    const auto streams = model_streams(c);
    EXPECT_NE(std::find(streams.begin(), streams.end(), TokenStream::Out), streams.end());
}

// The registry's naming of a model is the one its trace's layer blocks carry.
TEST_P(TokenStreams, TheRegistrySaysWhichNamesItsTracesTake) {
    const Config c = model_config(GetParam());
    const Transformer model(c, init_params(c, 1));
    Trace t;
    model.forward(sentence_batch(c), t);
    size_t layered = 0;
    for (const Block& b : t.blocks())
        if (b.layer >= 0) {
            EXPECT_EQ(b.naming, model_naming(c));
            ++layered;
        }
    EXPECT_GT(layered, 0u);
}

TEST_P(TokenStreams, ABatchWithoutAStreamTheModelReadsIsRefusedByName) {
    const Config c = model_config(GetParam());
    const Transformer model(c, init_params(c, 1));
    for (TokenStream s : model_streams(c)) {
        if (s == TokenStream::Out) continue;
        Batch batch = sentence_batch(c);
        (s == TokenStream::Src ? batch.src : batch.tgt).clear();
        Trace t;
        try {
            model.forward(batch, t);
            ADD_FAILURE() << "a batch without its " << token_stream_name(s) << " stream was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("its ") + token_stream_name(s) + " stream"),
                      std::string::npos)
                << e.what();
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Models, TokenStreams, ::testing::Values("tutorial", "torch", "aiayn"));

TEST(TokenStreams, TheBatchNamesItsStreams) {
    const Config c = Config::small();
    const Batch b = sentence_batch(c);
    EXPECT_EQ(&b.tokens(TokenStream::Src), &b.src);
    EXPECT_EQ(&b.tokens(TokenStream::Tgt), &b.tgt);
    EXPECT_EQ(&b.tokens(TokenStream::Out), &b.out);
    EXPECT_EQ(b.length(TokenStream::Src), c.src_len);
    EXPECT_EQ(b.length(TokenStream::Tgt), c.tgt_len);
    EXPECT_STREQ(token_stream_name(TokenStream::Src), "src");
    EXPECT_STREQ(token_stream_name(TokenStream::Tgt), "tgt");
    EXPECT_STREQ(token_stream_name(TokenStream::Out), "out");
    EXPECT_TRUE(model_streams(Config::seed004()).empty()) << "the layer lab reads tensors";
    EXPECT_EQ(model_naming(Config::seed004()), Naming::TorchLayers);
}

}  // namespace
