// numfmt (widgets/number_format.h): every number the UI prints, pinned, including the conventions
// all of them share (typographic minus, short exponent, "NaN", "∞", no sign on a zero).
#include <cstdint>
#include <limits>

#include <QtTest>

#include "widgets/number_format.h"

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Case {
    double v;
    const char16_t* text;
};

template <typename F>
void check(const char* name, F format, std::initializer_list<Case> cases) {
    QStringList wrong;  // every mismatch at once, not only the first
    for (const Case& c : cases) {
        const QString got = format(c.v), want = QString::fromUtf16(c.text);
        if (got != want)
            wrong << QStringLiteral("%1(%2) = \"%3\", expected \"%4\"").arg(QLatin1String(name)).arg(c.v, 0, 'g', 17).arg(got, want);
    }
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
}

}  // namespace

class TestNumberFormat : public QObject {
    Q_OBJECT
private slots:
    void exact();
    void exactOperand();
    void cell();
    void cellOperand();
    void wholeCell();
    void colorBarTick();
    void tensorStat();
    void gradientStat();
    void fourDigits();
    void decimals();
    void decimalsSix();
    void decimalsForTerms();
    void plainDecimals();
    void plainDecimalsOne();
    void chartReadout();
    void probability();
    void duration();
    void byteSize();
    void abbreviatedCount();
    void learningRate();
};

void TestNumberFormat::exact() {
    check("exact", numfmt::exact, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"\u22121"}, {0.1, u"0.1"}, {-0.5, u"\u22120.5"},
        {0.4213, u"0.4213"}, {-12.34, u"\u221212.34"}, {3.14159265, u"3.1415927"}, {99.99, u"99.99"}, {100.0, u"100"},
        {12345.678, u"12345.678"}, {-12345.678, u"\u221212345.678"}, {1e-7, u"1e\u22127"},
        {-1e-7, u"\u22121e\u22127"}, {2e-7, u"2e\u22127"}, {0.001, u"0.001"}, {0.0009, u"9e\u22124"},
        {0.005, u"0.005"}, {0.00499, u"0.00499"}, {0.01, u"0.01"}, {9999.5, u"9999.5"}, {1e4, u"10000"},
        {99999.0, u"99999"}, {1e5, u"1e5"}, {-1e9, u"\u22121e9"}, {1e-20, u"1e\u221220"}, {1e30, u"1e30"},
        {kNaN, u"NaN"}, {kInf, u"+\u221e"}, {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::exactOperand() {
    check("exactOperand", numfmt::exactOperand, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"(\u22121)"}, {0.1, u"0.1"}, {-0.5, u"(\u22120.5)"},
        {0.4213, u"0.4213"}, {-12.34, u"(\u221212.34)"}, {3.14159265, u"3.1415927"}, {99.99, u"99.99"},
        {100.0, u"100"}, {12345.678, u"12345.678"}, {-12345.678, u"(\u221212345.678)"}, {1e-7, u"1e\u22127"},
        {-1e-7, u"(\u22121e\u22127)"}, {2e-7, u"2e\u22127"}, {0.001, u"0.001"}, {0.0009, u"9e\u22124"},
        {0.005, u"0.005"}, {0.00499, u"0.00499"}, {0.01, u"0.01"}, {9999.5, u"9999.5"}, {1e4, u"10000"},
        {99999.0, u"99999"}, {1e5, u"1e5"}, {-1e9, u"(\u22121e9)"}, {1e-20, u"1e\u221220"}, {1e30, u"1e30"},
        {kNaN, u"NaN"}, {kInf, u"+\u221e"}, {-kInf, u"(\u2212\u221e)"}, {-1e-50, u"(0)"},
    });
}

void TestNumberFormat::cell() {
    check("cell", numfmt::cell, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1.00"}, {-1.0, u"\u22121.00"}, {0.1, u"0.10"}, {-0.5, u"\u22120.50"},
        {0.4213, u"0.42"}, {-12.34, u"\u221212.3"}, {3.14159265, u"3.14"}, {99.99, u"100.0"}, {100.0, u"100"},
        {12345.678, u"1e4"}, {-12345.678, u"\u22121e4"}, {1e-7, u"1e\u22127"}, {-1e-7, u"\u22121e\u22127"},
        {2e-7, u"2e\u22127"}, {0.001, u"1e\u22123"}, {0.0009, u"9e\u22124"}, {0.005, u"0.00"},
        {0.00499, u"5e\u22123"}, {0.01, u"0.01"}, {9999.5, u"10000"}, {1e4, u"1e4"}, {99999.0, u"1e5"}, {1e5, u"1e5"},
        {-1e9, u"\u22121e9"}, {1e-20, u"1e\u221220"}, {1e30, u"1e30"}, {kNaN, u"NaN"}, {kInf, u"\u221e"},
        {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::cellOperand() {
    check("cellOperand", numfmt::cellOperand, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1.00"}, {-1.0, u"(\u22121.00)"}, {0.1, u"0.10"}, {-0.5, u"(\u22120.50)"},
        {0.4213, u"0.42"}, {-12.34, u"(\u221212.3)"}, {3.14159265, u"3.14"}, {99.99, u"100.0"}, {100.0, u"100"},
        {12345.678, u"1e4"}, {-12345.678, u"(\u22121e4)"}, {1e-7, u"1e\u22127"}, {-1e-7, u"(\u22121e\u22127)"},
        {2e-7, u"2e\u22127"}, {0.001, u"1e\u22123"}, {0.0009, u"9e\u22124"}, {0.005, u"0.00"},
        {0.00499, u"5e\u22123"}, {0.01, u"0.01"}, {9999.5, u"10000"}, {1e4, u"1e4"}, {99999.0, u"1e5"}, {1e5, u"1e5"},
        {-1e9, u"(\u22121e9)"}, {1e-20, u"1e\u221220"}, {1e30, u"1e30"}, {kNaN, u"NaN"}, {kInf, u"\u221e"},
        {-kInf, u"(\u2212\u221e)"}, {-1e-50, u"(0)"},
    });
}

void TestNumberFormat::wholeCell() {
    check("wholeCell", numfmt::wholeCell, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"\u22121"}, {3.0, u"3"}, {-7.0, u"\u22127"},
        {1234567.0, u"1234567"}, {-50000000.0, u"\u221250000000"},
    });
}

void TestNumberFormat::colorBarTick() {
    check("colorBarTick", numfmt::colorBarTick, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"\u22121"}, {0.1, u"0.1"}, {-0.5, u"\u22120.5"},
        {0.4213, u"0.421"}, {-12.34, u"\u221212.3"}, {3.14159265, u"3.14"}, {99.99, u"100"}, {100.0, u"100"},
        {12345.678, u"1.23e4"}, {-12345.678, u"\u22121.23e4"}, {1e-7, u"1e\u22127"}, {-1e-7, u"\u22121e\u22127"},
        {2e-7, u"2e\u22127"}, {0.001, u"1e\u22123"}, {0.0009, u"9e\u22124"}, {0.005, u"5e\u22123"},
        {0.00499, u"4.99e\u22123"}, {0.01, u"0.01"}, {9999.5, u"1e4"}, {1e4, u"1e4"}, {99999.0, u"1e5"},
        {1e5, u"1e5"}, {-1e9, u"\u22121e9"}, {1e-20, u"1e\u221220"}, {1e30, u"1e30"}, {kNaN, u"NaN"}, {kInf, u"\u221e"},
        {-kInf, u"\u2212\u221e"}, {0.5, u"0.5"}, {1234.5, u"1.23e3"}, {-1e-5, u"\u22121e\u22125"}, {0.0123, u"0.0123"},
    });
}

void TestNumberFormat::tensorStat() {
    check("tensorStat", numfmt::tensorStat, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"\u22121"}, {0.1, u"0.1"}, {-0.5, u"\u22120.5"}, {0.4213, u"0.4213"},
        {-12.34, u"\u221212.34"}, {3.14159265, u"3.142"}, {99.99, u"99.99"}, {100.0, u"100"}, {12345.678, u"1.23e4"},
        {-12345.678, u"\u22121.23e4"}, {1e-7, u"1.00e\u22127"}, {-1e-7, u"\u22121.00e\u22127"}, {2e-7, u"2.00e\u22127"},
        {0.001, u"0.001"}, {0.0009, u"9.00e\u22124"}, {0.005, u"0.005"}, {0.00499, u"0.00499"}, {0.01, u"0.01"},
        {9999.5, u"1e4"}, {1e4, u"1.00e4"}, {99999.0, u"1.00e5"}, {1e5, u"1.00e5"}, {-1e9, u"\u22121.00e9"},
        {1e-20, u"1.00e\u221220"}, {1e30, u"1.00e30"}, {kNaN, u"NaN"}, {kInf, u"\u221e"}, {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::gradientStat() {
    check("gradientStat", numfmt::gradientStat, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"\u22121"}, {0.1, u"0.1"}, {-0.5, u"\u22120.5"},
        {0.4213, u"0.4213"}, {-12.34, u"\u221212.34"}, {3.14159265, u"3.142"}, {99.99, u"99.99"}, {100.0, u"100"},
        {12345.678, u"1.23e4"}, {-12345.678, u"\u22121.23e4"}, {1e-7, u"1.00e\u22127"}, {-1e-7, u"\u22121.00e\u22127"},
        {2e-7, u"2.00e\u22127"}, {0.001, u"0.001"}, {0.0009, u"9.00e\u22124"}, {0.005, u"0.005"}, {0.00499, u"0.00499"},
        {0.01, u"0.01"}, {9999.5, u"1e4"}, {1e4, u"1.00e4"}, {99999.0, u"1.00e5"}, {1e5, u"1.00e5"},
        {-1e9, u"\u22121.00e9"}, {1e-20, u"1.00e\u221220"}, {1e30, u"1.00e30"}, {kNaN, u"\u2014"}, {kInf, u"\u2014"},
        {-kInf, u"\u2014"}, {0.9, u"0.9"}, {0.999, u"0.999"},
    });
}

void TestNumberFormat::fourDigits() {
    check("fourDigits", numfmt::fourDigits, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1"}, {-1.0, u"\u22121"}, {0.1, u"0.1"}, {-0.5, u"\u22120.5"}, {0.4213, u"0.4213"},
        {-12.34, u"\u221212.34"}, {3.14159265, u"3.142"}, {99.99, u"99.99"}, {100.0, u"100"}, {12345.678, u"1.235e4"},
        {-12345.678, u"\u22121.235e4"}, {1e-7, u"1e\u22127"}, {-1e-7, u"\u22121e\u22127"}, {2e-7, u"2e\u22127"}, {0.001, u"0.001"},
        {0.0009, u"0.0009"}, {0.005, u"0.005"}, {0.00499, u"0.00499"}, {0.01, u"0.01"}, {9999.5, u"1e4"},
        {1e4, u"1e4"}, {99999.0, u"1e5"}, {1e5, u"1e5"}, {-1e9, u"\u22121e9"}, {1e-20, u"1e\u221220"}, {1e30, u"1e30"},
        {kNaN, u"NaN"}, {kInf, u"\u221e"}, {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::decimals() {
    check("decimals", [](double v) { return numfmt::decimals(v); }, {
        {0.0, u"0.0000"}, {-0.0, u"0.0000"}, {1.0, u"1.0000"}, {-1.0, u"\u22121.0000"}, {0.1, u"0.1000"},
        {-0.5, u"\u22120.5000"}, {0.4213, u"0.4213"}, {-12.34, u"\u221212.3400"}, {3.14159265, u"3.1416"},
        {99.99, u"99.9900"}, {100.0, u"100.0000"}, {12345.678, u"12345.6780"}, {-12345.678, u"\u221212345.6780"},
        {1e-7, u"0.0000"}, {-1e-7, u"0.0000"}, {2e-7, u"0.0000"}, {0.001, u"0.0010"}, {0.0009, u"0.0009"},
        {0.005, u"0.0050"}, {0.00499, u"0.0050"}, {0.01, u"0.0100"}, {9999.5, u"9999.5000"}, {1e4, u"10000.0000"},
        {99999.0, u"99999.0000"}, {1e5, u"100000.0000"}, {-1e9, u"\u22121000000000.0000"}, {1e-20, u"0.0000"},
        {1e30, u"1000000000000000019884624838656.0000"}, {kNaN, u"\u2014"}, {kInf, u"\u221e"}, {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::decimalsSix() {
    check("decimalsSix", [](double v) { return numfmt::decimals(v, 6); }, {
        {0.0, u"0.000000"}, {-0.0, u"0.000000"}, {1.0, u"1.000000"}, {-1.0, u"\u22121.000000"}, {0.1, u"0.100000"},
        {-0.5, u"\u22120.500000"}, {0.4213, u"0.421300"}, {-12.34, u"\u221212.340000"}, {3.14159265, u"3.141593"},
        {99.99, u"99.990000"}, {100.0, u"100.000000"}, {12345.678, u"12345.678000"},
        {-12345.678, u"\u221212345.678000"}, {1e-7, u"0.000000"}, {-1e-7, u"0.000000"}, {2e-7, u"0.000000"},
        {0.001, u"0.001000"}, {0.0009, u"0.000900"}, {0.005, u"0.005000"}, {0.00499, u"0.004990"},
        {0.01, u"0.010000"}, {9999.5, u"9999.500000"}, {1e4, u"10000.000000"}, {99999.0, u"99999.000000"},
        {1e5, u"100000.000000"}, {-1e9, u"\u22121000000000.000000"}, {1e-20, u"0.000000"},
        {1e30, u"1000000000000000019884624838656.000000"}, {kNaN, u"\u2014"}, {kInf, u"\u221e"}, {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::decimalsForTerms() {
    QCOMPARE(numfmt::decimalsForTerms({}), 4);
    QCOMPARE(numfmt::decimalsForTerms({1.8308, 0.0918, 0.0005}), 5);  // 0.00050: two digits
    QCOMPARE(numfmt::decimalsForTerms({2.3e-5, 0.5}), 6);               // 0.000023
    QCOMPARE(numfmt::decimalsForTerms({0.0, 1.0}), 4);                 // a 0 needs no digits
    QCOMPARE(numfmt::decimalsForTerms({1e-20}), 9);                    // at most 9
    QCOMPARE(numfmt::decimalsForTerms({0.5}, 6), 6);
    // The loss of a well-trained model: six terms of about 1e-5 and their sum read true.
    const std::vector<double> terms(6, 1.7e-5);
    const int places = numfmt::decimalsForTerms(terms);
    QCOMPARE(numfmt::decimals(terms[0], places), QStringLiteral("0.000017"));
    QCOMPARE(numfmt::decimals(6 * terms[0], places), QStringLiteral("0.000102"));
}

void TestNumberFormat::plainDecimals() {
    check("plainDecimals", [](double v) { return numfmt::plainDecimals(v, 3); }, {
        {0.0, u"0.000"}, {-0.0, u"0.000"}, {1.0, u"1.000"}, {-1.0, u"\u22121.000"}, {0.1, u"0.100"}, {-0.5, u"\u22120.500"},
        {0.4213, u"0.421"}, {-12.34, u"\u221212.340"}, {3.14159265, u"3.142"}, {99.99, u"99.990"}, {100.0, u"100.000"},
        {12345.678, u"12345.678"}, {-12345.678, u"\u221212345.678"}, {1e-7, u"0.000"}, {-1e-7, u"0.000"},
        {2e-7, u"0.000"}, {0.001, u"0.001"}, {0.0009, u"0.001"}, {0.005, u"0.005"}, {0.00499, u"0.005"},
        {0.01, u"0.010"}, {9999.5, u"9999.500"}, {1e4, u"10000.000"}, {99999.0, u"99999.000"}, {1e5, u"100000.000"},
        {-1e9, u"\u22121000000000.000"}, {1e-20, u"0.000"}, {1e30, u"1000000000000000019884624838656.000"}, {kNaN, u"NaN"},
        {kInf, u"\u221e"}, {-kInf, u"\u2212\u221e"},
    });
}

void TestNumberFormat::plainDecimalsOne() {
    check("plainDecimalsOne", [](double v) { return numfmt::plainDecimals(v, 1); }, {
        {0.0, u"0.0"}, {-0.0, u"0.0"}, {1.0, u"1.0"}, {-1.0, u"\u22121.0"}, {0.1, u"0.1"}, {-0.5, u"\u22120.5"},
        {0.4213, u"0.4"}, {-12.34, u"\u221212.3"}, {3.14159265, u"3.1"}, {99.99, u"100.0"}, {100.0, u"100.0"},
        {12345.678, u"12345.7"}, {-12345.678, u"\u221212345.7"}, {1e-7, u"0.0"}, {-1e-7, u"0.0"}, {2e-7, u"0.0"},
        {0.001, u"0.0"}, {0.0009, u"0.0"}, {0.005, u"0.0"}, {0.00499, u"0.0"}, {0.01, u"0.0"}, {9999.5, u"9999.5"},
        {1e4, u"10000.0"}, {99999.0, u"99999.0"}, {1e5, u"100000.0"}, {-1e9, u"\u22121000000000.0"}, {1e-20, u"0.0"},
        {1e30, u"1000000000000000019884624838656.0"}, {kNaN, u"NaN"}, {kInf, u"\u221e"}, {-kInf, u"\u2212\u221e"}, {0.5, u"0.5"},
        {2.0, u"2.0"}, {0.25, u"0.3"},
    });
}

void TestNumberFormat::chartReadout() {
    check("chartReadout", numfmt::chartReadout, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1.0000"}, {-1.0, u"\u22121.0000"}, {0.1, u"0.10000"}, {-0.5, u"\u22120.50000"},
        {0.4213, u"0.42130"}, {-12.34, u"\u221212.3400"}, {3.14159265, u"3.1416"}, {99.99, u"99.9900"}, {100.0, u"100.0"},
        {12345.678, u"1.235e4"}, {-12345.678, u"\u22121.235e4"}, {1e-7, u"1.000e\u22127"}, {-1e-7, u"\u22121.000e\u22127"},
        {2e-7, u"2.000e\u22127"}, {0.001, u"0.00100"}, {0.0009, u"9.000e\u22124"}, {0.005, u"0.00500"}, {0.00499, u"0.00499"},
        {0.01, u"0.01000"}, {9999.5, u"9999.5"}, {1e4, u"1.000e4"}, {99999.0, u"1.000e5"}, {1e5, u"1.000e5"},
        {-1e9, u"\u22121.000e9"}, {1e-20, u"1.000e\u221220"}, {1e30, u"1.000e30"}, {kNaN, u"NaN"}, {kInf, u"\u221e"},
        {-kInf, u"\u2212\u221e"}, {2.302585093, u"2.3026"}, {0.00123, u"0.00123"}, {123.45, u"123.5"},
    });
}

void TestNumberFormat::probability() {
    check("probability", numfmt::probability, {
        {0.0, u"0"}, {-0.0, u"0"}, {1.0, u"1.000"}, {-1.0, u"\u22121"}, {0.1, u"0.100"}, {-0.5, u"\u22120.5"},
        {0.4213, u"0.421"}, {-12.34, u"\u221212"}, {3.14159265, u"3.142"}, {99.99, u"99.990"}, {100.0, u"100.000"},
        {12345.678, u"12345.678"}, {-12345.678, u"\u22121.2e4"}, {1e-7, u"1e\u22127"}, {-1e-7, u"\u22121e\u22127"}, {2e-7, u"2e\u22127"},
        {0.001, u"0.001"}, {0.0009, u"0.0009"}, {0.005, u"0.005"}, {0.00499, u"0.005"}, {0.01, u"0.010"},
        {9999.5, u"9999.500"}, {1e4, u"10000.000"}, {99999.0, u"99999.000"}, {1e5, u"100000.000"}, {-1e9, u"\u22121e9"},
        {1e-20, u"1e\u221220"}, {1e30, u"1000000015047466219876688855040.000"}, {kNaN, u"NaN"}, {kInf, u"\u221e"},
        {-kInf, u"\u2212\u221e"}, {0.999999, u"1.000"}, {0.0123456, u"0.012"},
    });
}

void TestNumberFormat::duration() {
    check("duration", numfmt::duration, {
        {-1.0, u"\u2013"}, {0.0, u"0.0 s"}, {4.25, u"4.3 s"}, {9.96, u"10.0 s"}, {10.0, u"10 s"}, {59.4, u"59 s"},
        {59.6, u"1:00"}, {61.0, u"1:01"}, {3599.6, u"1:00:00"}, {3600.0, u"1:00:00"}, {3725.0, u"1:02:05"},
        {90061.0, u"25:01:01"}, {kNaN, u"\u2013"}, {kInf, u"\u2013"},
    });
}

void TestNumberFormat::byteSize() {
    check("byteSize", numfmt::byteSize, {
        {0.0, u"1 kB"}, {500.0, u"1 kB"}, {1024.0, u"1 kB"}, {2048.6, u"2 kB"}, {1048575.0, u"1024 kB"},
        {3670016.0, u"4 MB"}, {1610612736.0, u"1.5 GB"}, {1e12, u"931.3 GB"},
    });
}

void TestNumberFormat::abbreviatedCount() {
    check("abbreviatedCount", [](double v) { return numfmt::abbreviatedCount(int64_t(v)); }, {
        {0.0, u"0"}, {7.0, u"7"}, {999.0, u"999"}, {1000.0, u"1.0 k"}, {12345.0, u"12.3 k"}, {999999.0, u"1000.0 k"},
        {1000000.0, u"1.0 M"}, {12345678.0, u"12.3 M"}, {44140000.0, u"44.1 M"},
    });
}

void TestNumberFormat::learningRate() {
    check("learningRate", numfmt::learningRate, {
        {0.0, u"0"}, {1e-3, u"1e-3"}, {5e-3, u"5e-3"}, {0.01, u"0.01"}, {0.1, u"0.1"}, {3e-4, u"3e-4"},
        {2.5e-4, u"2.5e-4"}, {1.23456789e-5, u"1.23457e-5"}, {1.0, u"1"}, {1e-4, u"1e-4"}, {0.0099, u"9.9e-3"},
    });
}

QTEST_GUILESS_MAIN(TestNumberFormat)
#include "test_number_format.moc"
