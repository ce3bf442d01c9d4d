// The core's messages in the user's language: an error from the core carries its message as a
// value (stepformer/message.h: a code, an English template, arguments that are text or nested
// messages); here each level's template goes through the translator (context "CoreMessage",
// the templates listed for lupdate in core_messages.cpp) and its arguments are filled in. The
// CLI prints the same errors' English what().
#pragma once

#include <exception>
#include <span>

#include <QString>

#include "stepformer/message.h"

// The message in the current language: every level's template translated, then its %N filled in
// one pass (an argument's own text is never substituted again); plain arguments as they are.
QString coreText(const stepformer::Message& message);
// An exception's text for the user: its message translated when it carries one (the core's
// errors), else its what() (UTF-8).
QString coreText(const std::exception& e);

// The templates lupdate reads (core_messages.cpp, generated from the core's registry
// messages.def by scripts/core_messages.py), in the registry's order: a test compares them with
// stepformer::message_registry().
std::span<const char* const> coreMessageTemplates();
