// What the sections of accel_cuda_rules_probe share: the driver's entry points, the
// `<section>.<rule> = <observed>` output, and the helpers that run a risky call in a child
// or hold a stream busy without a kernel. cuda_rules_probe.cpp holds the recorded and
// compared sections of the first recording, cuda_rules_probe_extended.cpp the `extended.`
// section.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "abi_loader.h"
#include "accel_abi/cuda_driver.h"

namespace accel::hardware {

// Every entry point of the ABI tables (tests/support/abi_loader.h). Only cuInit and
// cuDeviceGetCount are required; a section whose entry points a library lacks checks its
// slots first and prints `absent`.
extern test::CudaEntryPoints cu;

// "<code> <name>", or "<code> (unknown)" for a number cuda.h does not name.
std::string result_text(int rc);
// Prints `rule = value` and flushes, so a crash later loses nothing printed before it.
void line(const std::string& rule, const std::string& value);
void rc_line(const std::string& rule, int rc);

// Runs `body` in a child with a 60 s alarm; reports a crash or a hang as a line of its own
// (`crash_rule`, else `<section>.child`). True when the child exited 0.
bool in_child(const std::string& section, const std::function<void()>& body,
              const std::string& crash_rule = "");
// A call a driver may answer by crashing (null pointers, zero lengths): it runs alone in a
// fresh child that initialises (and, with `with_context`, makes device 0's primary context
// current) first, so a crash is recorded as `crash (signal N)` and the rest goes on.
void risky(const std::string& rule, bool with_context,
           const std::function<cuda_abi::CUresult()>& call);

// Puts a host function that sleeps 300 ms on `s`, so everything after it waits;
// cuLaunchHostFunc's answer.
cuda_abi::CUresult block(cuda_abi::CUstream s);
double ms_since(std::chrono::steady_clock::time_point t0);
// cuStreamIsCapturing's status as a number, or "is_capturing rc N".
std::string capture_status(cuda_abi::CUstream s);
// Ends the capture on `s`, printing the code, whether the graph came back NULL and the
// status after it; destroys a graph that came back.
void end_capture(const std::string& rule, cuda_abi::CUstream s);

// The `extended.` section (cuda_rules_probe_extended.cpp): each subsection in a child of
// its own, with device 0's primary context current.
void probe_extended();

}  // namespace accel::hardware
