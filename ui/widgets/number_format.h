// How the UI prints numbers: one function per kind of number shown, so that a kind reads the same
// wherever it appears and its rules live in one place. Each says where it is used.
//
// Every kind reads alike: the typographic minus (ui_text::kMinus, "−0.42" lines up with "0.42"),
// a short exponent ("1.2e−5", not "1.2e-05"), "NaN" and "∞", and no sign on a number that rounds
// to zero. The one exception is learningRate(), which fills an editable field and so stays ASCII.
// tests/ui/test_number_format.cpp pins every function's output.
#pragma once

#include <cstdint>
#include <vector>

#include <QString>

namespace numfmt {

// ----- tensor values (float32: a double is printed as the float it rounds to)

// The shortest text that reads back as the value: "0.1", "−1e9", "2e−7", "+∞", "NaN".
// Tooltips and explanations.
QString exact(double v);
// exact() as an operand in a formula: a negative value in parentheses, "(−0.5)".
QString exactOperand(double v);
// A heatmap cell's text, about three digits: "0.42", "−12.3", "100", "1e4", "5e−3", "∞", "NaN".
QString cell(double v);
// cell() as an operand in a formula: a negative value in parentheses, "(−0.50)".
QString cellOperand(double v);
// A cell of a tensor of whole numbers (a mask, token ids): "1", "−3".
QString wholeCell(double v);

// ----- summaries of values

// A colour bar's tick: "0", "0.5", "−12.3", "1.23e3", "1e−5" (three significant digits).
QString colorBarTick(double v);
// Four significant digits, switching to "1.23e−5" under 1e-3 and from 1e4: the explain
// panel's value, min, max and mean of a tensor.
QString tensorStat(double v);
// tensorStat(), "—" when not finite: the gradients view's norms, gradients and optimizer
// hyperparameters.
QString gradientStat(double v);
// Four significant digits: "0.7071", "1.235e4", "NaN". Positional encodings, √d_k.
QString fourDigits(double v);
// `places` decimals, "−" for a negative and "—" for NaN: the loss view's table and sums.
QString decimals(double v, int places = 4);
// The decimals a sum's terms need so that each shows two significant digits (at least
// `atLeast`, at most 9): with them "a + b = c" reads true where 4 decimals printed
// "0.0000 + 0.0000 = 0.0001". The loss view's sum of −log p.
int decimalsForTerms(const std::vector<double>& terms, int atLeast = 4);
// `places` decimals ("−0.500", "NaN"): the explain panel's probabilities, the play speed.
QString plainDecimals(double v, int places);
// A training run's losses, as the loss chart's readouts (legend, hover), the run's summary and
// the attention replay say them: "2.3026", "0.00123", "123.5", "1.235e4".
QString chartReadout(double v);
// A probability (float): three decimals, two significant digits under 0.001: "0.123", "0.00012".
QString probability(double p);

// ----- training

// Time left or taken: "4.3 s", "42 s", "3:07", "1:02:05"; "–" when unknown.
QString duration(double seconds);
// Memory: "12 kB" (at least 1), "3 MB", "1.5 GB".
QString byteSize(double bytes);
// A parameter count: "950", "12.3 k", "44.1 M".
QString abbreviatedCount(int64_t n);
// A learning rate, short and exact for the usual values: "1e-3", "5e-3", "2.5e-4", "0.1".
QString learningRate(double lr);

}  // namespace numfmt
