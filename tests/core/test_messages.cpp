// The core's messages as values (message.h): the English they render, the registry's templates,
// and real errors carrying their codes and arguments, the nested parts structured too.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "stepformer/config.h"
#include "stepformer/dataset.h"
#include "stepformer/message.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

// The placeholder numbers of a template, as substitute_placeholders reads them.
std::multiset<int> placeholders(std::string_view t) {
    std::multiset<int> out;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (t[i] != '%' || t[i + 1] < '0' || t[i + 1] > '9') continue;
        int n = t[i + 1] - '0';
        if (i + 2 < t.size() && t[i + 2] >= '0' && t[i + 2] <= '9') n = n * 10 + (t[i + 2] - '0');
        out.insert(n);
    }
    return out;
}

// The message `fn` throws as an `E`, which must carry one.
template <typename E, typename F>
Message message_of(F&& fn) {
    try {
        fn();
    } catch (const E& e) {
        const Message* m = carried_message(e);
        if (!m) ADD_FAILURE() << "no message carried: " << e.what();
        else EXPECT_EQ(m->text(), e.what());  // what() is the English of the message
        return m ? *m : Message();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw the wrong exception type: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected an exception, nothing was thrown";
    return {};
}

nlohmann::json tutorial_json() { return config_to_json(Config::small()); }

}  // namespace

TEST(Messages, RenderPlaceholdersInOnePass) {
    EXPECT_EQ(substitute_placeholders("%1 and %2", {"a", "b"}), "a and b");
    EXPECT_EQ(substitute_placeholders("%2 before %1", {"a", "b"}), "b before a");
    // An argument's own text is never substituted again.
    EXPECT_EQ(substitute_placeholders("%1 and %2", {"%2", "b"}), "%2 and b");
    // %10 is the tenth argument, not %1 followed by 0.
    const std::vector<std::string> ten{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "TEN"};
    EXPECT_EQ(substitute_placeholders("%1|%10|%9", ten), "one|TEN|nine");
    // A number without an argument, and a lone %, stay as they are.
    EXPECT_EQ(substitute_placeholders("%3 of 100% (%1)", {"x"}), "%3 of 100% (x)");
    EXPECT_EQ(substitute_placeholders("%", {}), "%");
    EXPECT_EQ(substitute_placeholders("%0 %1", {"x"}), "%0 x");
}

TEST(Messages, NestedMessagesRenderTheirEnglish) {
    const Message inner(Msg::sentence_unknown_token, {Message(Msg::sentence_source), "bier", "ich bier", "P ich"});
    EXPECT_EQ(inner.text(), "unknown source token 'bier' in 'ich bier'; the vocabulary is: P ich");
    const Message outer(Msg::data_example, {3, Message(Msg::data_in_dataset, {inner})});
    EXPECT_EQ(outer.text(), "example 3: unknown source token 'bier' in 'ich bier'; the vocabulary is: P ich (in the dataset)");
    EXPECT_EQ(outer.code(), "data.example");
    ASSERT_EQ(outer.args().size(), 2u);
    EXPECT_FALSE(outer.args()[0].is_message());
    EXPECT_EQ(outer.args()[0].plain(), "3");
    ASSERT_TRUE(outer.args()[1].is_message());
    EXPECT_EQ(outer.args()[1].message().code(), "data.in_dataset");
    // An argument that looks like a placeholder stays as it is, at every level.
    EXPECT_EQ(Message(Msg::context, {"%2", Message(Msg::config_missing_key, {"%1"})}).text(), "%2: missing key '%1'");
    // Plain text: no code, the text itself.
    const Message plain = Message::plain("made outside the core: 50%");
    EXPECT_TRUE(plain.is_plain());
    EXPECT_EQ(plain.code(), "");
    EXPECT_EQ(plain.text(), "made outside the core: 50%");
}

TEST(Messages, RegistryTemplatesAreNumberedFromOneAndUnique) {
    std::set<std::string> codes, templates;
    int index = 0;
    for (const MessageInfo& m : message_registry()) {
        SCOPED_TRACE(m.code);
        EXPECT_EQ(static_cast<int>(m.id), index++);
        EXPECT_TRUE(codes.insert(m.code).second) << "duplicate code";
        EXPECT_TRUE(templates.insert(m.english).second) << "duplicate template (one translation would serve both)";
        EXPECT_EQ(find_message(m.code), &m);
        EXPECT_EQ(&message_info(m.id), &m);
        // %1 .. %k, each at least once, nothing above k; at most nine.
        const std::multiset<int> used = placeholders(m.english);
        const std::set<int> distinct(used.begin(), used.end());
        const int k = distinct.empty() ? 0 : *distinct.rbegin();
        EXPECT_LE(k, 9);
        EXPECT_EQ(static_cast<int>(distinct.size()), k) << m.english;
        if (!distinct.empty()) {
            EXPECT_EQ(*distinct.begin(), 1) << m.english;
        }
        // A code is lower-case words joined by dots and underscores.
        for (char c : std::string(m.code)) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '.' || c == '_') << m.code;
    }
    EXPECT_GT(index, 100);
    EXPECT_EQ(find_message("no.such_code"), nullptr);
}

TEST(Messages, AConfigMissingAKeyCarriesItsCode) {
    nlohmann::json j = tutorial_json();
    j.erase("d_model");
    Message m = message_of<ConfigError>([&] { config_from_json(j); });
    EXPECT_EQ(m.text(), "config: missing key 'd_model'");
    EXPECT_EQ(m.code(), "config.problem");
    ASSERT_EQ(m.args().size(), 1u);
    const Message& problem = m.args()[0].message();
    EXPECT_EQ(problem.code(), "config.missing_key");
    ASSERT_EQ(problem.args().size(), 1u);
    EXPECT_EQ(problem.args()[0].plain(), "d_model");

    // Read from a named source, that source takes the place of "config", the problem the same.
    m = message_of<ConfigError>([&] { config_from_json_text(j.dump(), "my.json"); });
    EXPECT_EQ(m.text(), "my.json: missing key 'd_model'");
    EXPECT_EQ(m.code(), "context");
    ASSERT_EQ(m.args().size(), 2u);
    EXPECT_EQ(m.args()[0].plain(), "my.json");
    EXPECT_EQ(m.args()[1].message().code(), "config.missing_key");
    // The default source is a word the UI translates.
    m = message_of<ConfigError>([&] { config_from_json_text(j.dump()); });
    EXPECT_EQ(m.text(), "config: missing key 'd_model'");
    EXPECT_EQ(m.args()[0].message().code(), "config.word");
}

TEST(Messages, AnUnknownTokenInADatasetLineNestsUnderTheExample) {
    const Config c = Config::small();
    // parse_tsv: "<what> line <n>: <problem>"
    Message m = message_of<DataError>([&] { parse_tsv("ich mochte ein bier\ti want a beer .\nich xyz\ti want\n", c, "data.tsv"); });
    EXPECT_EQ(m.code(), "data.line");
    ASSERT_EQ(m.args().size(), 3u);
    EXPECT_EQ(m.args()[0].plain(), "data.tsv");
    EXPECT_EQ(m.args()[1].plain(), "2");
    const Message& token = m.args()[2].message();
    EXPECT_EQ(token.code(), "sentence.unknown_token");
    ASSERT_EQ(token.args().size(), 4u);
    EXPECT_EQ(token.args()[0].message().code(), "sentence.source");
    EXPECT_EQ(token.args()[1].plain(), "xyz");
    EXPECT_EQ(m.text().rfind("data.tsv line 2: unknown source token 'xyz' in 'ich xyz'", 0), 0u) << m.text();

    // The trainer names the example: "example N: <problem> (in the dataset)".
    Transformer model(c, init_params(c, 1));
    std::vector<Example> data = builtin_examples();
    data.push_back({"ich mochte ein xyz", "S i want a beer .", "i want a beer . E"});
    m = message_of<DataError>([&] { Trainer(model, data, TrainOptions{}); });
    EXPECT_EQ(m.code(), "data.example");
    ASSERT_EQ(m.args().size(), 2u);
    EXPECT_EQ(m.args()[0].plain(), "3");
    const Message& in_dataset = m.args()[1].message();
    EXPECT_EQ(in_dataset.code(), "data.in_dataset");
    EXPECT_EQ(in_dataset.args()[0].message().code(), "sentence.unknown_token");
    EXPECT_EQ(m.text().rfind("example 3: unknown source token 'xyz'", 0), 0u) << m.text();
    EXPECT_NE(m.text().find(" (in the dataset)"), std::string::npos);
}

TEST(Messages, OptionErrorsStayInvalidArgumentsWithCodes) {
    TrainOptions to;
    to.epochs = 0;
    const Message m = message_of<std::invalid_argument>([&] { to.validate(); });
    EXPECT_EQ(m.code(), "train.epochs");
    EXPECT_EQ(m.text(), "epochs must be between 1 and 1000000, got 0");
    EXPECT_EQ(message_of<std::invalid_argument>([] { optimizer_from_name("rmsprop"); }).code(), "optimizer.unknown_kind");
}

TEST(Messages, FileErrorsKeepTheirCodeInsideTheReadersErrors) {
    const Message m = message_of<SafetensorsError>([] { read_safetensors("/nonexistent/stepformer/w.safetensors"); });
    EXPECT_EQ(m.code(), "file.cannot_open");
    EXPECT_EQ(m.args()[0].plain(), "/nonexistent/stepformer/w.safetensors");
    const Message bad = message_of<SafetensorsError>([] { parse_safetensors({1, 2, 3}, "w.safetensors"); });
    EXPECT_EQ(bad.code(), "context");
    EXPECT_EQ(bad.args()[1].message().code(), "safetensors.too_short");
}

TEST(Messages, ExceptionsWithoutAMessageArePlainText) {
    const std::runtime_error e("not from the core");
    EXPECT_EQ(carried_message(e), nullptr);
    EXPECT_TRUE(as_message(e).is_plain());
    EXPECT_EQ(as_message(e).text(), "not from the core");
    const ConfigError made_outside(std::string("--src: give a sentence"));
    ASSERT_NE(carried_message(made_outside), nullptr);
    EXPECT_TRUE(carried_message(made_outside)->is_plain());
    EXPECT_STREQ(made_outside.what(), "--src: give a sentence");
}
