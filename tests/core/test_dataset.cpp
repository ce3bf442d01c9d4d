// dec_output_for: the decoder's expected output from its input, the rule the dataset, the
// dataset editor and the step-through's loss share. Checked against the tutorial's pairs and
// against what the PyTorch fixtures were made with (their "out" rows, trailing pads included).
#include <gtest/gtest.h>

#include "fixture_util.h"
#include "stepformer/dataset.h"

using namespace stepformer;

TEST(DecOutput, TheTutorialsSentences) {
    const Config c = Config::tutorial();
    for (const Example& e : builtin_examples()) EXPECT_EQ(dec_output_for(e.dec_input, c), e.dec_output);
    EXPECT_EQ(dec_output_for("S i want a beer .", c), "i want a beer . E");
}

TEST(DecOutput, TrailingPadsStayAfterTheEnd) {
    const Config c = Config::tutorial();
    EXPECT_EQ(dec_output_for("S i want a coke P", c), "i want a coke E P");
    EXPECT_EQ(dec_output_for("S i want P P P", c), "i want E P P P");
    EXPECT_EQ(dec_output_for("S P P", c), "E P P");
    EXPECT_EQ(dec_output_for("S", c), "E");
    // Same length as the input, and the same ids as the unpadded form: the pads stay ignored targets.
    const std::string in = "S i want a coke P", out = dec_output_for(in, c);
    EXPECT_EQ(split_words(out).size(), split_words(in).size());
    const Batch padded = make_batch(c, {"ich mochte ein cola P"}, {in}, {out});
    const Batch bare = make_batch(c, {"ich mochte ein cola P"}, {in}, {"i want a coke E"});
    EXPECT_EQ(padded.out, bare.out);
    EXPECT_EQ(padded.out, (std::vector<int>{1, 2, 3, 5, 7, 0}));
}

TEST(DecOutput, OnlyTrailingPadsMove) {
    const Config c = Config::tutorial();
    EXPECT_EQ(dec_output_for("S i P want P", c), "i P want E P");
    EXPECT_EQ(dec_output_for("  S   i want  ", c), "i want E");  // whitespace as split_words sees it
}

TEST(DecOutput, NoStartTokenNoOutput) {
    const Config c = Config::tutorial();
    EXPECT_EQ(dec_output_for("i want a beer .", c), "");
    EXPECT_EQ(dec_output_for("", c), "");
    EXPECT_EQ(dec_output_for("P S i", c), "");
}

TEST(DecOutput, AgreesWithThePyTorchFixtures) {
    const Config c = Config::tutorial();
    for (const char* name : {"tiny", "small", "sgd", "recipe", "tutorial_state_dict"}) {
        const auto in = fixtures::inputs(name);
        ASSERT_EQ(in.tgt.size(), in.out.size()) << name;
        for (size_t i = 0; i < in.tgt.size(); ++i) EXPECT_EQ(dec_output_for(in.tgt[i], c), in.out[i]) << name << " row " << i;
    }
}

TEST(DecOutput, TwoColumnTsvUsesTheSameRule) {
    const auto ex = parse_tsv("ich mochte cola P P\ti want P P P\n", Config::tutorial(), "data.tsv");
    ASSERT_EQ(ex.size(), 1u);
    EXPECT_EQ(ex[0].dec_input, "S i want P P P");
    EXPECT_EQ(ex[0].dec_output, "i want E P P P");
}
