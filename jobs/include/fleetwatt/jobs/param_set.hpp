// The declared parameters of pluggable components live in core (fleetwatt/core/param_set.hpp), beside the
// one registry shape that uses them; jobs, whose specs and sources read them, names them as its own.
#pragma once

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"

namespace fleetwatt::jobs {

// The located error types live in core too; jobs names them as its own (this is the one place it
// does).
using core::ConfigError;
using core::InputError;
using core::SourceLocation;
using core::TraceFormatError;

using core::ParamDefault;
using core::ParamSet;
using core::ParamSpec;
using core::ParamSpecs;
using core::ParamType;
using core::ParamValue;
using core::to_string;
using core::WarningSink;

}  // namespace fleetwatt::jobs
