// The helpers every section of accel_cuda_rules_probe shares (cuda_probe.h).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "cuda_probe.h"

namespace accel::hardware {

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUgraph;
using cuda_abi::CUresult;
using cuda_abi::CUstream;
using cuda_abi::CUstreamCaptureStatus;

test::CudaEntryPoints cu;

std::string result_text(int rc) {
  const char* name = cuda_abi::result_name(rc);
  return std::to_string(rc) + (name != nullptr ? std::string(" ") + name : " (unknown)");
}

void line(const std::string& rule, const std::string& value) {
  std::printf("%s = %s\n", rule.c_str(), value.c_str());
  std::fflush(stdout);
}

void rc_line(const std::string& rule, int rc) { line(rule, result_text(rc)); }

bool in_child(const std::string& section, const std::function<void()>& body,
              const std::string& crash_rule) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    body();
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  const std::string what = WIFSIGNALED(status)
                               ? "crash (signal " + std::to_string(WTERMSIG(status)) + ")"
                               : "exit " + std::to_string(WEXITSTATUS(status));
  line(crash_rule.empty() ? section + ".child" : crash_rule, what);
  return false;
}

void risky(const std::string& rule, bool with_context, const std::function<CUresult()>& call) {
  in_child(
      rule,
      [&] {
        cu.cuInit(0);
        if (with_context) {
          CUcontext primary = nullptr;
          cu.cuDevicePrimaryCtxRetain(&primary, 0);
          cu.cuCtxSetCurrent(primary);
        }
        rc_line(rule, call());
      },
      rule);
}

namespace {
void sleep_host_fn(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}
int g_block_ms = 300;
}  // namespace

CUresult block(CUstream s) { return cu.cuLaunchHostFunc(s, sleep_host_fn, &g_block_ms); }

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string capture_status(CUstream s) {
  auto status = static_cast<CUstreamCaptureStatus>(-1);
  const CUresult rc = cu.cuStreamIsCapturing(s, &status);
  return rc != CUDA_SUCCESS ? "is_capturing rc " + std::to_string(rc)
                            : std::to_string(static_cast<int>(status));
}

void end_capture(const std::string& rule, CUstream s) {
  CUgraph graph = reinterpret_cast<CUgraph>(0x1);
  rc_line(rule + ".end", cu.cuStreamEndCapture(s, &graph));
  line(rule + ".end.graph_is_null", graph == nullptr ? "yes" : "no");
  line(rule + ".status_after_end", capture_status(s));
  if (graph != nullptr && graph != reinterpret_cast<CUgraph>(0x1)) cu.cuGraphDestroy(graph);
}

}  // namespace accel::hardware
