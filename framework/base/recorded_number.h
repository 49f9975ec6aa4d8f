// How many digits the files the CLI writes keep of a measured number.
#pragma once

namespace rkt {

/// Significant digits results files record of a measured number (what std::setprecision(6)
/// printed before the files were written through nlohmann/json).
inline constexpr int kRecordedSignificantDigits = 6;

/// `value` as a results file records it: rounded to kRecordedSignificantDigits significant
/// digits, so that a file carries no 17-digit noise and a program that reads it back (rkt merge)
/// writes the same file again. Non-finite values stay as they are: the JSON writer prints them
/// as null.
double as_recorded(double value);

}  // namespace rkt
