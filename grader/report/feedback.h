// A student's feedback, to be sent as it is: the terminal report in plain text, and the same in
// HTML (scores table, each exercise's verdict and message with its first mismatches and the map of
// C's wrong tiles from the diagnosis, the speed against the given kernel and the reference).
#pragma once

#include <string>

#include "report.h"

namespace labkit {

std::string FeedbackText(const GradeResult& result);
std::string FeedbackHtml(const GradeResult& result);

}  // namespace labkit
