// Which builds grading makes of a submission: the default one always, the one without fused
// multiply-add unless it would be the same program, ThreadSanitizer's on request (grade.cpp).
#pragma once

#include "backend.h"
#include "submission_build.h"

namespace labkit {

// Whether the build without fused multiply-add (Flavour::kNoFma) is compiled and run, given the
// default build. Not when the default build failed: its failure is every exercise's verdict, and
// a compile that ran out of time would only do so again. Nor where the backend's fused
// multiply-adds are instructions of the object labgrade reads (BackendTraits::fma_seen_in_object)
// and the default build holds none: -ffp-contract=off would compile the same code, so the default
// build's runs are that build's runs, judged by its rule (bit for bit against the sequential float
// sum where the lab asks it). A student who enables FMA (`__attribute__((target("fma")))`) gets
// the build made and graded as before.
bool NoFmaBuildNeeded(Backend backend, const BuildOutcome& default_build);

// What stands for the nofma build where it is not made: the default build's outcome, marked as
// such (BuildOutcome::reuses_default).
BuildOutcome NoFmaFromDefault(const BuildOutcome& default_build);

}  // namespace labkit
