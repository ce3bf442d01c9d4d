// Messages the core shows to users as values: a stable code, its English template with Qt-style
// placeholders %1 .. %9, and the arguments, each plain text or a nested message. The CLI prints
// the English (text(), an error's what()); the app translates the template of every level and
// fills in the arguments (ui/app/core_text.h). The codes and templates: messages.def, the one
// registry; docs/contracts.md, "Error codes".
#pragma once

#include <concepts>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stepformer {

enum class Msg : int {
#define STEPFORMER_MESSAGE(id, code, english) id,
#include "stepformer/messages.def"
#undef STEPFORMER_MESSAGE
};

struct MessageInfo {
    Msg id;
    const char* code;     // stable, e.g. "config.missing_key"
    const char* english;  // the template, e.g. "missing key '%1'"
};

// Every message, in the order of messages.def.
std::span<const MessageInfo> message_registry();
const MessageInfo& message_info(Msg id);
const MessageInfo* find_message(std::string_view code);  // nullptr for an unknown code

class Message;

// An argument of a message: plain text (a name, a path, a number, a shape: shown as it is) or a
// nested message (translated in its turn).
class MessageArg {
public:
    MessageArg(std::string text);  // NOLINT(google-explicit-constructor): arguments read as values
    MessageArg(const char* text);  // NOLINT(google-explicit-constructor)
    template <std::integral T>
        requires(!std::same_as<T, bool> && !std::same_as<T, char>)
    MessageArg(T n) : text_(std::to_string(n)) {}  // NOLINT(google-explicit-constructor)
    MessageArg(Message message);  // NOLINT(google-explicit-constructor)

    bool is_message() const { return message_ != nullptr; }
    const std::string& plain() const { return text_; }  // a plain argument's text ("" for a message)
    const Message& message() const;                      // a nested argument's message
    std::string text() const;                            // the English

private:
    std::string text_;
    std::shared_ptr<const Message> message_;
};

class Message {
public:
    Message() = default;  // plain, empty
    explicit Message(Msg id, std::vector<MessageArg> args = {});
    // Text that is no registered message (from outside the core, or an internal error): never
    // translated. Its template is "%1", its one argument the text.
    static Message plain(std::string text);

    bool is_plain() const { return id_ < 0; }
    Msg id() const { return static_cast<Msg>(id_); }  // only when !is_plain()
    std::string_view code() const;                     // "" when plain
    const char* english() const;                       // the template; "%1" when plain
    const std::vector<MessageArg>& args() const { return args_; }
    std::string text() const;  // the English, every level filled in

private:
    int id_ = -1;
    std::vector<MessageArg> args_;
};

// `tmpl` with %N replaced by args[N - 1], in one pass: a placeholder is '%' and one or two digits
// (%10 is the tenth argument, never %1 then '0'); a number with no argument, and any text an
// argument brings in, stay as they are.
std::string substitute_placeholders(std::string_view tmpl, const std::vector<std::string>& args);

// What an error carries besides what(): its message. Shared, so that copying the exception never
// throws.
class MessageCarrier {
public:
    const Message& message() const noexcept { return *message_; }
    virtual ~MessageCarrier() = default;

protected:
    explicit MessageCarrier(Message m) : message_(std::make_shared<const Message>(std::move(m))) {}
    MessageCarrier(const MessageCarrier&) = default;
    MessageCarrier& operator=(const MessageCarrier&) = default;

private:
    std::shared_ptr<const Message> message_;
};

// The base of the core's errors (ConfigError, DataError, WeightsError, SafetensorsError, NpyError,
// BackendUnavailable, DeviceLost, and the file and optimizer-state errors): what() is the English.
// From a string: a plain message (not translated), for errors made outside the core.
class Error : public std::runtime_error, public MessageCarrier {
public:
    explicit Error(Message m) : Error(m, 0) {}
    explicit Error(const std::string& english) : Error(Message::plain(english)) {}
    explicit Error(const char* english) : Error(Message::plain(english)) {}

private:
    Error(Message& m, int) : std::runtime_error(m.text()), MessageCarrier(std::move(m)) {}
};

// A bad option value (training options, an unknown optimizer or backend name): a
// std::invalid_argument, as before, that carries its message too.
class InvalidArgument : public std::invalid_argument, public MessageCarrier {
public:
    explicit InvalidArgument(Message m) : InvalidArgument(m, 0) {}
    explicit InvalidArgument(const std::string& english) : InvalidArgument(Message::plain(english)) {}

private:
    InvalidArgument(Message& m, int) : std::invalid_argument(m.text()), MessageCarrier(std::move(m)) {}
};

// The message an exception carries, or nullptr.
const Message* carried_message(const std::exception& e) noexcept;
// The message an exception carries, or its what() as a plain message: for wrapping an error in
// context with the inner part still structured (e.g. Message(Msg::data_example, {i, as_message(e)})).
Message as_message(const std::exception& e);

}  // namespace stepformer
