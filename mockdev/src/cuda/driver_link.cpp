// The JIT linker of the simulated driver (declared in driver_api.h): cuLinkCreate_v2,
// cuLinkAddData_v2, cuLinkAddFile_v2, cuLinkComplete, cuLinkDestroy.
//
// Note [Linking]
// A link state links for one architecture: CU_JIT_TARGET's (a CUjit_target is the
// architecture's number, 90 for compute_90), else the device of the context current at
// cuLinkCreate (CU_JIT_TARGET_FROM_CUCONTEXT, the default). Each input (PTX, a cubin, a
// fatbinary) is read when added (Note [Module images]) and the code it holds for that
// architecture chosen then, so a bad input fails its own cuLinkAddData_v2:
// CUDA_ERROR_INVALID_PTX for text that is not PTX, CUDA_ERROR_INVALID_IMAGE for a binary
// not understood, CUDA_ERROR_NO_BINARY_FOR_GPU for one without code for the architecture.
// Host objects and archives (CU_JIT_INPUT_OBJECT, _LIBRARY) and NVVM IR are
// CUDA_ERROR_NOT_SUPPORTED, with a message saying so. cuLinkComplete writes a fatbinary of
// the chosen codes, marked as linked (module_image.h), which every load call reads as one
// code with every input's kernels and variables: a real driver writes one cubin; a program
// treats the image as opaque bytes and loads them, which works the same. A kernel or
// variable defined by two inputs is CUDA_ERROR_INVALID_IMAGE at cuLinkComplete, as a
// duplicate definition fails nvlink [inferred]. The image lives until cuLinkDestroy. The
// log options of cuLinkCreate_v2 receive an empty info log and the error log of the last
// failure.

#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/modules.h"

struct accel::cuda_abi::CUlinkState_st {
  struct Input {
    std::vector<std::byte> bytes;
    mockdev::cuda::image::Image image;  // read from `bytes`
    const mockdev::cuda::image::Code* chosen = nullptr;
  };
  int arch = 0;
  std::vector<std::unique_ptr<Input>> inputs;
  std::vector<std::byte> output;
  char* error_log = nullptr;  // cuLinkCreate_v2's CU_JIT_ERROR_LOG_BUFFER
  std::size_t error_log_bytes = 0;
  char* info_log = nullptr;
  std::size_t info_log_bytes = 0;
};

namespace mockdev::cuda {
namespace {

using accel::cuda_abi::CUlinkState_st;

std::set<const CUlinkState_st*>& live_links() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static auto* links = new std::set<const CUlinkState_st*>();  // never deleted
  return *links;
}

void write_log(char* buffer, std::size_t bytes, const std::string& text) {
  if (buffer == nullptr || bytes == 0) return;
  const std::size_t n = std::min(text.size(), bytes - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

CUresult link_failed(CUlinkState_st* state, CUresult code, const std::string& why) {
  std::fprintf(stderr, "mockdev: cuLink: %s\n", why.c_str());
  write_log(state->error_log, state->error_log_bytes, why);
  return code;
}

CUresult check_options(unsigned num_options, CUjit_option* options, void** values) {
  if (num_options > 0 && (options == nullptr || values == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < num_options; ++i) {
    if (options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult add(CUlinkState_st* state, CUjitInputType type, std::vector<std::byte> bytes,
             const std::string& name) {
  if (type == CU_JIT_INPUT_OBJECT || type == CU_JIT_INPUT_LIBRARY || type == CU_JIT_INPUT_NVVM) {
    return link_failed(state, CUDA_ERROR_NOT_SUPPORTED,
                       name +
                           ": the simulation links PTX, cubins and fatbinaries, not host "
                           "objects, archives or NVVM IR");
  }
  auto input = std::make_unique<CUlinkState_st::Input>();
  input->bytes = std::move(bytes);
  image::ReadResult read = image::read_image(input->bytes.data(), input->bytes.size());
  if (!read.ok) {
    return link_failed(state,
                       type == CU_JIT_INPUT_PTX ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE,
                       name + ": cannot link " + read.error);
  }
  const bool matches = (type == CU_JIT_INPUT_PTX && read.image.format == "PTX") ||
                       (type == CU_JIT_INPUT_CUBIN && read.image.format == "cubin") ||
                       (type == CU_JIT_INPUT_FATBINARY && read.image.format == "fatbinary");
  if (!matches) {
    return link_failed(state, CUDA_ERROR_INVALID_IMAGE,
                       name + ": added as input type " + std::to_string(type) + ", but it is " +
                           read.image.format);
  }
  input->image = std::move(read.image);
  std::string why;
  input->chosen = image::select_code(input->image, state->arch / 10, state->arch % 10, &why);
  if (input->chosen == nullptr)
    return link_failed(state, CUDA_ERROR_NO_BINARY_FOR_GPU, name + ": " + why);
  state->inputs.push_back(std::move(input));
  return CUDA_SUCCESS;
}

}  // namespace

namespace impl {

CUresult cuLinkCreate_v2(unsigned int num_options, CUjit_option* options, void** option_values,
                         CUlinkState* state_out) {
  if (state_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_options(num_options, options, option_values); r != CUDA_SUCCESS) return r;
  auto* state = new CUlinkState_st();
  for (unsigned i = 0; i < num_options; ++i) {
    const auto value = reinterpret_cast<std::uintptr_t>(option_values[i]);
    switch (options[i]) {
      case CU_JIT_TARGET:
        state->arch = static_cast<int>(value);
        break;
      case CU_JIT_ERROR_LOG_BUFFER:
        state->error_log = static_cast<char*>(option_values[i]);
        break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        state->error_log_bytes = value;
        break;
      case CU_JIT_INFO_LOG_BUFFER:
        state->info_log = static_cast<char*>(option_values[i]);
        break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        state->info_log_bytes = value;
        break;
      default:
        break;
    }
  }
  if (state->arch == 0) {
    const WorkContext current = context_for_work();
    if (current.ctx == nullptr) {
      delete state;
      return current.error;
    }
    const DeviceSpec& d =
        core::engine().machine.devices.at(static_cast<std::size_t>(current.ctx->physical_device));
    state->arch = d.cc_major * 10 + d.cc_minor;
  }
  write_log(state->info_log, state->info_log_bytes, "");
  write_log(state->error_log, state->error_log_bytes, "");
  live_links().insert(state);
  *state_out = state;
  return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, std::size_t size,
                          const char* name, unsigned int num_options, CUjit_option* options,
                          void** option_values) {
  if (live_links().count(state) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (data == nullptr || size == 0 || type < 0 || type >= CU_JIT_NUM_INPUT_TYPES) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (CUresult r = check_options(num_options, options, option_values); r != CUDA_SUCCESS) return r;
  const auto* begin = static_cast<const std::byte*>(data);
  std::vector<std::byte> bytes(begin, begin + size);
  if (type == CU_JIT_INPUT_PTX) bytes.push_back(std::byte{0});  // text may come without its NUL
  return add(state, type, std::move(bytes), name != nullptr ? name : "(unnamed input)");
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path,
                          unsigned int num_options, CUjit_option* options, void** option_values) {
  if (live_links().count(state) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (path == nullptr || type < 0 || type >= CU_JIT_NUM_INPUT_TYPES)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_options(num_options, options, option_values); r != CUDA_SUCCESS) return r;
  std::vector<std::byte> bytes;
  if (!read_file(path, bytes)) {
    return link_failed(state, CUDA_ERROR_FILE_NOT_FOUND, std::string("cannot open ") + path);
  }
  return add(state, type, std::move(bytes), path);
}

CUresult cuLinkComplete(CUlinkState state, void** cubin_out, std::size_t* size_out) {
  if (live_links().count(state) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (cubin_out == nullptr || size_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (state->inputs.empty()) return link_failed(state, CUDA_ERROR_INVALID_VALUE, "nothing to link");
  std::set<std::string> defined;
  std::vector<const image::Code*> codes;
  for (const auto& input : state->inputs) {
    for (const image::Kernel& k : input->chosen->kernels) {
      if (!defined.insert(k.name).second) {
        return link_failed(state, CUDA_ERROR_INVALID_IMAGE,
                           "kernel " + k.name + " is defined twice");
      }
    }
    for (const image::Global& g : input->chosen->globals) {
      if (!defined.insert(g.name).second) {
        return link_failed(state, CUDA_ERROR_INVALID_IMAGE,
                           "variable " + g.name + " is defined twice");
      }
    }
    codes.push_back(input->chosen);
  }
  state->output = image::write_fatbinary(codes, state->arch);
  *cubin_out = state->output.data();
  *size_out = state->output.size();
  return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state) {
  if (live_links().erase(state) == 0) return CUDA_ERROR_INVALID_HANDLE;
  delete state;
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
