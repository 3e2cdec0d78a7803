// backend_reports(): every compiled backend's report (accel/accelerator.h).
#include <exception>

#include "accel/accelerator.h"
#include "core/backend_registry.h"
#include "core/runtime.h"

namespace accel {

std::vector<BackendReport> backend_reports() noexcept {
  std::vector<BackendReport> reports;
  try {
    const std::vector<std::string> compiled = detail::compiled_backend_names();
    // The serving backend's report first: it creates the runtime state (and so decides
    // which backend serves) before the fresh instances below are asked anything.
    BackendReport serving = backend_report();
    bool serving_listed = false;
    for (const detail::BackendEntry& entry : detail::compiled_backends()) {
      if (serving.selected && serving.backend == entry.name) {
        reports.push_back(serving);
        serving_listed = true;
        continue;
      }
      // A second instance of a backend that does not serve: report() never initialises,
      // so this process still talks to one driver only.
      std::unique_ptr<detail::Backend> backend = entry.create();
      BackendReport report = backend != nullptr ? backend->report() : BackendReport{};
      report.backend = entry.name;
      report.compiled_backends = compiled;
      report.selected = false;
      reports.push_back(std::move(report));
    }
    if (serving.selected && !serving_listed) reports.push_back(std::move(serving));
  } catch (...) {
    reports.clear();
  }
  return reports;
}

}  // namespace accel
