// Headers a submission may not include. A library call the labs forbid is refused by name in the
// object (symbol_policy.h), but a header of inline functions leaves no name there: NVIDIA's
// cuda_occupancy.h is the very calculator the runtime answers cudaOccupancy* with, so including it
// answers lab 04's occupancy worked out by hand without calling the API that the harness watches
// for. The compiler lists the headers a source included (-MD); that list is checked here.
#pragma once

#include <string>
#include <vector>

#include "result.h"

namespace labkit {

struct HeaderRefusal {
  std::string header;  // as the compiler's list names it (a path)
  std::string why;
};

// The refused headers among the dependencies in `make_rule`, the compiler's -MD output for one
// source ("object.o: source.cu /usr/include/a.h \<newline> ..."), by file name.
std::vector<HeaderRefusal> RefusedHeaders(const std::string& make_rule);

// "occupancy.cu includes cuda_occupancy.h (line 12), which no submission may: ...", one
// paragraph per refusal. `source_text` is the student's file, searched only to name the line.
std::string HeaderRefusalMessage(const std::string& file, const std::string& source_text,
                                 const std::vector<HeaderRefusal>& refused);

// What the build says of the headers `file` (whose text is `source_text`) included, from the
// compiler's list at `dependency_list`: HeaderRefusalMessage's words, "" where none is refused,
// an error where the list cannot be read whole (the compiler writes it with every object).
Result<std::string> IncludedHeadersRefusal(const std::string& dependency_list,
                                           const std::string& file, const std::string& source_text);

}  // namespace labkit
