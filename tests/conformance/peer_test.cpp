// Conformance: the peer matrix (can_device_access_peer) and the links (peer_link_info), once
// per backend profile. On the simulated 4xh100 and 2xmax1550 every distinct pair is a peer
// (4xh100: NVLink pairs 0-1 and 2-3, PCIe between them; 2xmax1550: tiles of a card, and PCIe
// between the cards); machine files with a partial topology and the backend's own names are
// the profile's `peers` (backend_profile.h). On real hardware the answers are checked for
// the rules that hold everywhere.
#include <gtest/gtest.h>

#include <string>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "live_object_listener.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"

namespace accel::test {
namespace {

using Peers = ConformanceTest;

TEST_P(Peers, ADeviceIsNeverItsOwnPeerAndTheMatrixIsTheDrivers) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("peer queries create no context"));
    const int count = require_physical_devices(p, 1);
    for (int a = 0; a < count; ++a) {
      EXPECT_FALSE(can_device_access_peer(a, a)) << a;
      for (int b = 0; b < count; ++b) {
        if (a == b) continue;
        // Peer access is symmetric on every machine the driver has shipped on.
        EXPECT_EQ(can_device_access_peer(a, b), can_device_access_peer(b, a)) << a << "," << b;
        if (p.on_mock) {
          EXPECT_TRUE(can_device_access_peer(a, b)) << a << "," << b;
        }
      }
    }
    EXPECT_TRUE(is_initialized()) << "can_device_access_peer initialises";
    if (p.on_mock) {
      // The diagonal once where the backend asks the driver; each ordered pair twice, and
      // once more for the mock's answer.
      const int diagonal = p.peers.diagonal_asks_driver ? count : 0;
      EXPECT_EQ(mockdev::control::call_count(p.peers.query_entry_point),
                static_cast<std::uint64_t>(diagonal + 3 * count * (count - 1)));
    }
  });
}

TEST_P(Peers, DeviceArgumentsResolveLikeEveryDeviceCall) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    EXPECT_EQ(can_device_access_peer(p.device_type_name + ":1", Device(p.device_type, 0)),
              can_device_access_peer(1, 0));
    set_device_index(1);
    EXPECT_FALSE(can_device_access_peer({}, 1)) << "empty device: the current one (1)";
    EXPECT_EQ(can_device_access_peer({}, 0), can_device_access_peer(1, 0));
    EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(0, {}); }), ErrorKind::kValue,
                         "Expected an accel::Device with a specified index or an integer, but "
                         "got:None"));
    EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer("cpu", 0); }), ErrorKind::kValue,
                         "cpu doesn't match the current accelerator " + p.device_type_name + "."));
  });
}

TEST_P(Peers, IndicesOutsideTheDeviceCountNameTheValue) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    const std::string tail = " (device_count=" + std::to_string(count) + ")";
    EXPECT_TRUE(is_error(catch_error([count] { can_device_access_peer(count, 0); }),
                         ErrorKind::kIndex, "Invalid device id: " + std::to_string(count) + tail));
    EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(-1, 0); }), ErrorKind::kIndex,
                         "Invalid device id: -1" + tail));
    EXPECT_TRUE(is_error(catch_error([count] { can_device_access_peer(0, count); }),
                         ErrorKind::kIndex,
                         "Invalid peer device id: " + std::to_string(count) + tail));
    EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(0, 1000); }), ErrorKind::kIndex,
                         "Invalid peer device id: 1000" + tail));
  });
}

TEST_P(Peers, MachinesWithoutPeersAnswerFalseEverywhere) {
  ACCEL_REQUIRE_MOCK("the machine's topology");
  const BackendProfile& p = profile();
  run_isolated([&p] {
    // The engine read MOCKDEV_MACHINE in the parent; the child installs its own machine.
    mockdev::control::reset(mockdev::load_machine(p.peers.no_peer_machine));
    require_physical_devices(p, 2);
    EXPECT_FALSE(can_device_access_peer(0, 1));
    EXPECT_FALSE(can_device_access_peer(1, 0));
  });
}

TEST_P(Peers, TheVisibleDeviceMappingApplies) {
  ACCEL_REQUIRE_MOCK("a machine file with a partial topology");
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        mockdev::control::reset(mockdev::load_machine(p.peers.topology_machine));
        require_physical_devices(p, 3);
        for (const PeerRows::Pair& pair : p.peers.topology_matrix) {
          EXPECT_EQ(can_device_access_peer(pair.device, pair.peer), pair.peers)
              << pair.device << "," << pair.peer;
        }
      },
      {{p.visibility_variable, p.peers.topology_visibility}});
}

TEST_P(Peers, ADriverFailureIsADriverErrorNamingTheDevice) {
  ACCEL_REQUIRE_MOCK("a scripted driver fault");
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    init();
    mockdev::control::fail_call(p.peers.query_entry_point, 1, p.peers.fault_code);
    const CaughtError caught = catch_error([] { can_device_access_peer(1, 0); });
    EXPECT_TRUE(is_error_containing(caught, ErrorKind::kDriver, p.peers.query_error))
        << caught.describe();
    EXPECT_TRUE(can_device_access_peer(1, 0)) << "the fault fired once";
  });
}

// peer_link_info (accel/peer_link.h): rules that hold on every driver -- access as
// can_device_access_peer says, symmetric, atomics only over a link with access, a rank
// exactly where the API has one (CUDA), and nothing on the diagonal.
TEST_P(Peers, LinkInfoAgreesWithThePeerMatrix) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("link queries create no context"));
    const int count = require_physical_devices(p, 1);
    for (int a = 0; a < count; ++a) {
      EXPECT_EQ(peer_link_info(a, a), PeerLinkInfo{}) << a;
      for (int b = 0; b < count; ++b) {
        if (a == b) continue;
        const PeerLinkInfo link = peer_link_info(a, b);
        EXPECT_EQ(link.access_supported, can_device_access_peer(a, b)) << a << "," << b;
        EXPECT_EQ(link, peer_link_info(b, a)) << a << "," << b;
        if (!link.access_supported) {
          EXPECT_FALSE(link.native_atomics) << a << "," << b;
        }
        EXPECT_EQ(link.performance_rank.has_value(), p.backend == "cuda") << a << "," << b;
      }
    }
    const std::string tail = " (device_count=" + std::to_string(count) + ")";
    EXPECT_TRUE(is_error(catch_error([count] { peer_link_info(0, count); }), ErrorKind::kIndex,
                         "Invalid peer device id: " + std::to_string(count) + tail));
  });
}

// The simulated topology's links as each driver describes them (CUDA: NVLink rank 0 with
// native atomics; Level Zero: access, no rank), no link at all no access, and a failing link
// query named by its call (the profile's machine file and visibility value).
TEST_P(Peers, LinkInfoIsTheMachinesTopology) {
  ACCEL_REQUIRE_MOCK("a machine file with a partial topology");
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        const PeerRows& rows = p.peers;
        mockdev::control::reset(mockdev::load_machine(rows.topology_machine));
        require_physical_devices(p, 3);
        EXPECT_EQ(peer_link_info(rows.linked_device, rows.linked_peer), rows.linked_info);
        for (const PeerRows::Pair& pair : rows.topology_matrix) {
          if (pair.peers) continue;
          const PeerLinkInfo none = peer_link_info(pair.device, pair.peer);
          EXPECT_FALSE(none.access_supported) << pair.device << "," << pair.peer;
          EXPECT_FALSE(none.native_atomics) << pair.device << "," << pair.peer;
        }
        mockdev::control::fail_call(rows.link_fault_entry_point, rows.link_fault_nth,
                                    p.peers.fault_code);
        const CaughtError caught =
            catch_error([&rows] { peer_link_info(rows.linked_peer, rows.linked_device); });
        EXPECT_TRUE(is_error_containing(caught, ErrorKind::kDriver, rows.link_fault_error))
            << caught.describe();
      },
      {{p.visibility_variable, p.peers.topology_visibility}});
}

ACCEL_INSTANTIATE_CONFORMANCE(Peers);

}  // namespace
}  // namespace accel::test
