// The student's function called from the harness: an exception it throws (an ordinary .at() out
// of range, say) is the student's failure, reported on the case that made the call, not the
// harness's own error, which labgrade takes for a fault of the kit ("not graded", retried).
// Wrap only the student's call: whatever the kit's own code throws stays the kit's.
#pragma once

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace labkit {

struct StudentException : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The student's function called what its exercise refuses (lab 04's occupancy API where the answer
// is to be worked out by hand): the case reports it as `refused_call`, with this message, instead
// of values, which would only be the API's own answers.
struct RefusedCall : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The most of an exception's own words that is passed on. The text is the student's: hundreds of
// megabytes of it would be copied into every plan and response line (filling the grader's disk,
// and making the line too long for labgrade to read, which then reported a crash with exit status
// 0 on another case).
constexpr std::size_t kMaxStudentTextBytes = 800;  // the message within a plan's 1000 (replay_plan.cpp)

inline std::string StudentText(const char* what) {
  std::string text = what != nullptr ? what : "";
  if (text.size() <= kMaxStudentTextBytes) return text;
  const std::size_t total = text.size();
  text.resize(kMaxStudentTextBytes);
  return text + "... (" + std::to_string(total) + " bytes in all)";
}

template <class Call>
decltype(auto) call_student(Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    throw StudentException("your function threw an exception (" + StudentText(e.what()) + ")");
  } catch (...) {
    throw StudentException("your function threw an exception of a type not derived from "
                           "std::exception");
  }
}

}  // namespace labkit
