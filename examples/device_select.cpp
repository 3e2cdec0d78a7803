// Device selection with a CPU fallback: the C++ form of the "How to select a device"
// how-to (torch.accelerator.current_accelerator(check_available=True) or CPU).
//
//   accelerator = accel::current_accelerator(true);   // nullopt when unusable
//   device      = accelerator or cpu
//   model       = Linear(3, 2) placed on device
//   inputs      = ones(4, 3) placed on device
//   outputs     = model(inputs)
//   check that model, inputs and outputs share one device type, then report them.
//
// accel has no tensor library, so the data of this example lives in host memory and the
// arithmetic runs on the host. What is real: the device
// choice, the runtime initialisation it implies, and the device each value is *placed*
// on: placing a value on the accelerator selects that device with a DeviceIndexGuard
// (initialising the runtime, creating its context) and books the bytes to it in a small
// ledger; --verbose prints the ledger. The alignment check is the point of the how-to:
// `--input-device cpu` deliberately puts the inputs elsewhere, and the check must fail.
//
// The CPU fallback is only for a machine with nothing installed (or no device): a
// misconfiguration -- an ACCEL_CUDA_DRIVER naming a missing file, an unknown ACCEL_BACKEND,
// a driver that fails to initialise, fewer devices than ACCEL_REQUIRE_DEVICES -- makes
// current_accelerator(true) throw, and the program stops instead of running on the CPU.
//
// Usage: device_select [--input-device DEVICE] [--verbose]
// Exit status: 0 aligned, 1 a device mismatch or a runtime error, 2 a usage error or a
// misconfiguration: anything but "nothing installed" that keeps current_accelerator(true)
// from answering (accel::Error of kind kConfig, or kDriver for a driver that is there and
// fails).
#include <accel/accel.h>

#include <algorithm>
#include <cstddef>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Bytes booked to each accelerator device by Tensor::place().
std::map<int, std::size_t>& device_ledger() {
  static std::map<int, std::size_t> ledger;
  return ledger;
}

// A row-major float matrix that records the device it was placed on.
struct Tensor {
  accel::Device device{accel::DeviceType::kCPU};
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<float> data;

  static Tensor filled(std::size_t rows, std::size_t cols, float value,
                       const accel::Device& device) {
    Tensor t;
    t.rows = rows;
    t.cols = cols;
    t.data.assign(rows * cols, value);
    t.place(device);
    return t;
  }

  std::size_t bytes() const { return data.size() * sizeof(float); }

  // Puts this tensor on `target`. An accelerator device without an index means the
  // current device, as torch.device("cuda") does; the guard makes the device current
  // while its bytes are booked, and restores the previous one afterwards.
  void place(const accel::Device& target) {
    if (target.type() == accel::DeviceType::kCPU) {
      device = accel::Device(accel::DeviceType::kCPU);
      return;
    }
    const int index = target.index().value_or(accel::current_device_index());
    accel::DeviceIndexGuard guard(index);
    device_ledger()[index] += bytes();
    device = accel::Device(target.type(), index);
  }
};

// torch.nn.Linear(in_features, out_features): y = x W^T + b, with fixed weights so the
// output is reproducible.
struct Linear {
  Tensor weight;  // out x in
  Tensor bias;    // 1 x out

  Linear(std::size_t in_features, std::size_t out_features, const accel::Device& device) {
    weight = Tensor::filled(out_features, in_features, 0.0F, device);
    for (std::size_t i = 0; i < weight.data.size(); ++i) {
      weight.data[i] = 0.1F * static_cast<float>(i + 1);
    }
    bias = Tensor::filled(1, out_features, 0.5F, device);
  }

  const accel::Device& device() const { return weight.device; }

  // Computes on the host (see the file comment); the output lives with the parameters.
  Tensor forward(const Tensor& x) const {
    if (x.cols != weight.cols) {
      throw std::invalid_argument(
          "Linear: shape mismatch (in_features=" + std::to_string(weight.cols) +
          ", input_cols=" + std::to_string(x.cols) + ")");
    }
    Tensor y = Tensor::filled(x.rows, weight.rows, 0.0F, accel::Device(accel::DeviceType::kCPU));
    for (std::size_t r = 0; r < x.rows; ++r) {
      for (std::size_t o = 0; o < weight.rows; ++o) {
        float sum = bias.data[o];
        for (std::size_t k = 0; k < x.cols; ++k) {
          sum += x.data[r * x.cols + k] * weight.data[o * weight.cols + k];
        }
        y.data[r * y.cols + o] = sum;
      }
    }
    y.place(device());
    return y;
  }
};

// Python's repr of a sorted list of strings: ['cpu', 'cuda'].
std::string python_list(const std::set<std::string>& items) {
  std::string text = "[";
  bool first = true;
  for (const std::string& item : items) {
    if (!first) text += ", ";
    text += "'" + item + "'";
    first = false;
  }
  return text + "]";
}

// The how-to's alignment guard: every value must be on the selected device type.
void check_alignment(const accel::Device& selected, const Linear& model, const Tensor& inputs,
                     const Tensor& outputs) {
  const std::set<std::string> types = {
      std::string(accel::to_string(model.device().type())),
      std::string(accel::to_string(inputs.device.type())),
      std::string(accel::to_string(outputs.device.type())),
  };
  if (types != std::set<std::string>{std::string(accel::to_string(selected.type()))}) {
    throw std::runtime_error("Device mismatch: " + python_list(types));
  }
}

struct Options {
  std::optional<std::string> input_device;
  bool verbose = false;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--input-device" && i + 1 < argc) {
      options.input_device = argv[++i];
    } else if (arg == "--verbose") {
      options.verbose = true;
    } else {
      throw std::invalid_argument("unknown argument '" + std::string(arg) + "'");
    }
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::cerr << "device_select: " << e.what()
              << "\nusage: device_select [--input-device DEVICE] [--verbose]\n";
    return 2;
  }

  std::optional<accel::Device> accelerator;
  try {
    accelerator = accel::current_accelerator(true);
  } catch (const accel::Error& e) {
    const bool misconfigured =
        e.kind() == accel::ErrorKind::kConfig || e.kind() == accel::ErrorKind::kDriver;
    std::cerr << (misconfigured ? "device_select: configuration error: " : "RuntimeError: ")
              << e.what() << '\n';
    return misconfigured ? 2 : 1;
  }

  try {
    const accel::Device device = accelerator.value_or(accel::Device(accel::DeviceType::kCPU));

    const Linear model(3, 2, device);
    const accel::Device input_device =
        options.input_device ? accel::Device::parse(*options.input_device) : device;
    const Tensor inputs = Tensor::filled(4, 3, 1.0F, input_device);
    const Tensor outputs = model.forward(inputs);

    check_alignment(device, model, inputs, outputs);

    std::cout << "selected_device=" << accel::to_string(device.type()) << '\n'
              << "model_device=" << accel::to_string(model.device().type()) << '\n'
              << "input_device=" << accel::to_string(inputs.device.type()) << '\n'
              << "output_device=" << accel::to_string(outputs.device.type()) << '\n';
    if (options.verbose) {
      std::cout << "output[0]=" << outputs.data[0] << "," << outputs.data[1] << '\n';
      for (const auto& [index, bytes] : device_ledger()) {
        std::cout << "placed_bytes[" << accel::to_string(device.type()) << ":" << index
                  << "]=" << bytes << '\n';
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "RuntimeError: " << e.what() << '\n';
    return 1;
  }
}
