#include "topo.h"

#include <fmt/format.h>

#include <algorithm>

#include "accel/accelerator.h"
#include "accel/device.h"
#include "accel/error.h"
#include "accel/peer_link.h"
#include "accel_common/printable.h"

namespace accel::tools {
namespace {

std::string label(std::size_t index) { return fmt::format("GPU{}", index); }

std::string cell(const TopoReport& report, std::size_t i, std::size_t j) {
  if (i == j) return "X";
  const std::optional<bool>& answer = report.peer[i][j];
  if (!answer) return "ERR";
  return *answer ? "OK" : "NS";
}

// "R<rank>" (or "OK" without a rank) for a link with access, "+A" after it for native
// atomics; "NS" without access.
std::string link_cell(const TopoReport& report, std::size_t i, std::size_t j) {
  if (i == j) return "X";
  const std::optional<PeerLinkInfo>& link = report.links[i][j];
  if (!link) return "ERR";
  if (!link->access_supported) return "NS";
  std::string text =
      link->performance_rank ? fmt::format("R{}", *link->performance_rank) : std::string("OK");
  if (link->native_atomics) text += "+A";
  return text;
}

using Cell = std::string (*)(const TopoReport&, std::size_t, std::size_t);

// One matrix: a header row of labels, then a row per device; every cell as wide as the
// widest label or cell plus two ("GPU10" and up widen them all).
void render_matrix(const TopoReport& report, Cell cell_of, std::ostream& out) {
  const std::size_t count = report.names.size();
  std::size_t width = std::max<std::size_t>(label(count - 1).size(), 3);
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t j = 0; j < count; ++j) width = std::max(width, cell_of(report, i, j).size());
  }
  width += 2;
  std::string line(width, ' ');
  for (std::size_t j = 0; j < count; ++j) line += fmt::format("{:<{}}", label(j), width);
  out << line.substr(0, line.find_last_not_of(' ') + 1) << '\n';
  for (std::size_t i = 0; i < count; ++i) {
    line = fmt::format("{:<{}}", label(i), width);
    for (std::size_t j = 0; j < count; ++j)
      line += fmt::format("{:<{}}", cell_of(report, i, j), width);
    out << line.substr(0, line.find_last_not_of(' ') + 1) << '\n';
  }
}

}  // namespace

TopoReport collect_topo() {
  TopoReport report;
  report.backend = backend_report().backend;
  const auto count = static_cast<std::size_t>(device_count());
  report.peer.assign(count, std::vector<std::optional<bool>>(count));
  report.links.assign(count, std::vector<std::optional<PeerLinkInfo>>(count));
  for (std::size_t i = 0; i < count; ++i) {
    try {
      report.names.push_back(get_device_properties(static_cast<int>(i)).name);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kConfig) throw;
      report.names.emplace_back("-");
      report.errors.push_back(fmt::format("{}: {}", label(i), e.what()));
    }
    for (std::size_t j = 0; j < count; ++j) {
      if (i == j) continue;
      try {
        report.peer[i][j] = can_device_access_peer(static_cast<int>(i), static_cast<int>(j));
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::kConfig) throw;
        report.errors.push_back(fmt::format("{} -> {}: {}", label(i), label(j), e.what()));
      }
      try {
        report.links[i][j] = peer_link_info(static_cast<int>(i), static_cast<int>(j));
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::kConfig) throw;
        report.errors.push_back(fmt::format("{} -> {} (link): {}", label(i), label(j), e.what()));
      }
    }
  }
  return report;
}

void render_topo(const TopoReport& report, std::ostream& out) {
  const std::size_t count = report.names.size();
  if (count == 0) {
    out << fmt::format("backend {}: no devices\n", report.backend);
    return;
  }
  render_matrix(report, cell, out);
  out << fmt::format(
      "\nLegend (backend {}: the driver's answer to \"can the row's device access the "
      "column's memory\"):\n"
      "  X   = self\n"
      "  OK  = peer access supported\n"
      "  NS  = not supported\n"
      "  ERR = the query failed (below)\n\n",
      report.backend);
  out << fmt::format("Links (backend {}: the driver's description of the link from the row's "
                     "device to the column's):\n",
                     report.backend);
  render_matrix(report, link_cell, out);
  out << "\nLegend:\n"
         "  X    = self\n"
         "  R<n> = peer access, performance rank n (CUDA's relative rank: lower is faster)\n"
         "  OK   = peer access (the API reports no rank: Level Zero)\n"
         "  +A   = native atomics over the link\n"
         "  NS   = no peer access\n"
         "  ERR  = the query failed (below)\n\n";
  for (std::size_t i = 0; i < count; ++i) {
    out << common::printable(fmt::format("{}: {}", label(i), report.names[i])) << '\n';
  }
  for (const std::string& error : report.errors) {
    out << common::printable("error: " + error) << '\n';
  }
}

}  // namespace accel::tools
