#include "stepformer/message.h"

#include <iterator>

namespace stepformer {

namespace {

constexpr MessageInfo kMessages[] = {
#define STEPFORMER_MESSAGE(id, code, english) {Msg::id, code, english},
#include "stepformer/messages.def"
#undef STEPFORMER_MESSAGE
};

}  // namespace

std::span<const MessageInfo> message_registry() { return kMessages; }

const MessageInfo& message_info(Msg id) { return kMessages[static_cast<size_t>(id)]; }

const MessageInfo* find_message(std::string_view code) {
    for (const MessageInfo& m : kMessages)
        if (code == m.code) return &m;
    return nullptr;
}

MessageArg::MessageArg(std::string text) : text_(std::move(text)) {}
MessageArg::MessageArg(const char* text) : text_(text ? text : "") {}
MessageArg::MessageArg(Message message) : message_(std::make_shared<const Message>(std::move(message))) {}

const Message& MessageArg::message() const {
    static const Message none;
    return message_ ? *message_ : none;
}

std::string MessageArg::text() const { return message_ ? message_->text() : text_; }

Message::Message(Msg id, std::vector<MessageArg> args) : id_(static_cast<int>(id)), args_(std::move(args)) {}

Message Message::plain(std::string text) {
    Message m;
    m.args_.emplace_back(std::move(text));
    return m;
}

std::string_view Message::code() const { return is_plain() ? std::string_view() : message_info(id()).code; }

const char* Message::english() const { return is_plain() ? "%1" : message_info(id()).english; }

std::string Message::text() const {
    if (is_plain()) return args_.empty() ? std::string() : args_.front().text();
    std::vector<std::string> texts;
    texts.reserve(args_.size());
    for (const MessageArg& a : args_) texts.push_back(a.text());
    return substitute_placeholders(english(), texts);
}

std::string substitute_placeholders(std::string_view tmpl, const std::vector<std::string>& args) {
    std::string out;
    out.reserve(tmpl.size());
    const auto digit = [&](size_t i) { return i < tmpl.size() && tmpl[i] >= '0' && tmpl[i] <= '9'; };
    for (size_t i = 0; i < tmpl.size();) {
        if (tmpl[i] == '%' && digit(i + 1)) {
            size_t end = i + 1;
            size_t n = 0;
            while (end < tmpl.size() && end < i + 3 && digit(end)) n = n * 10 + size_t(tmpl[end++] - '0');
            if (n >= 1 && n <= args.size()) {
                out += args[n - 1];
                i = end;
                continue;
            }
            out.append(tmpl.substr(i, end - i));
            i = end;
            continue;
        }
        out += tmpl[i++];
    }
    return out;
}

const Message* carried_message(const std::exception& e) noexcept {
    const auto* c = dynamic_cast<const MessageCarrier*>(&e);
    return c ? &c->message() : nullptr;
}

Message as_message(const std::exception& e) {
    if (const Message* m = carried_message(e)) return *m;
    return Message::plain(e.what());
}

}  // namespace stepformer
