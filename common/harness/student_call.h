// The student's function called from the harness: an exception it throws (an ordinary .at() out
// of range, say) is the student's failure, reported on the case that made the call, not the
// harness's own error, which labgrade takes for a fault of the kit ("not graded", retried).
// Wrap only the student's call: whatever the kit's own code throws stays the kit's.
#pragma once

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

template <class Call>
decltype(auto) call_student(Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    throw StudentException(std::string("your function threw an exception (") + e.what() + ")");
  } catch (...) {
    throw StudentException("your function threw an exception of a type not derived from "
                           "std::exception");
  }
}

}  // namespace labkit
