// Conformance: the peer matrix (can_device_access_peer) and the links (peer_link_info), once
// per backend profile. On the
// simulated 4xh100 every distinct pair is a peer (NVLink pairs 0-1 and 2-3, PCIe between
// them); on real hardware the answers are checked for the rules that hold everywhere.
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
  ACCEL_REQUIRE_CUDA_DRIVER_CALLS();
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
      // The diagonal once; each ordered pair twice, and once more for the mock's answer.
      EXPECT_EQ(mockdev::control::call_count("cuDeviceCanAccessPeer"),
                static_cast<std::uint64_t>(count + 3 * count * (count - 1)));
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
  ACCEL_REQUIRE_CUDA_DRIVER_CALLS();
  ACCEL_REQUIRE_MOCK("the machine's topology");
  const BackendProfile& p = profile();
  run_isolated([&p] {
    // The engine read MOCKDEV_MACHINE in the parent; the child installs its own machine.
    mockdev::control::reset(mockdev::load_machine("mixed"));
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
        mockdev::control::reset(
            mockdev::load_machine(ACCEL_CONFORMANCE_DATA_DIR "/peers_3gpu.yaml"));
        require_physical_devices(p, 3);
        // Physical 0-1 linked, 2 alone; visible 2,0,1 -> ordinals 0=phys 2, 1=phys 0, 2=phys 1.
        EXPECT_FALSE(can_device_access_peer(0, 1));
        EXPECT_FALSE(can_device_access_peer(0, 2));
        EXPECT_TRUE(can_device_access_peer(1, 2));
        EXPECT_TRUE(can_device_access_peer(2, 1));
      },
      {{p.visibility_variable, "2,0,1"}});
}

TEST_P(Peers, ADriverFailureIsADriverErrorNamingTheDevice) {
  ACCEL_REQUIRE_CUDA_DRIVER_CALLS();
  ACCEL_REQUIRE_MOCK("a scripted driver fault");
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    init();
    mockdev::control::fail_call("cuDeviceCanAccessPeer", 1, 999);
    EXPECT_TRUE(is_error_containing(
        catch_error([] { can_device_access_peer(1, 0); }), ErrorKind::kDriver,
        "can_device_access_peer: cuDeviceCanAccessPeer: " + p.error_name + " error:"));
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

// The simulated topology's links as the CUDA driver describes them: NVLink rank 0 with
// native atomics, no link at all no access (machine file peers_3gpu, visible 2,0,1).
TEST_P(Peers, LinkInfoIsTheMachinesTopology) {
  ACCEL_REQUIRE_CUDA_DRIVER_CALLS();
  ACCEL_REQUIRE_MOCK("a machine file with a partial topology");
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        mockdev::control::reset(
            mockdev::load_machine(ACCEL_CONFORMANCE_DATA_DIR "/peers_3gpu.yaml"));
        require_physical_devices(p, 3);
        EXPECT_EQ(peer_link_info(1, 2), (PeerLinkInfo{true, true, 0}));
        const PeerLinkInfo none = peer_link_info(0, 1);
        EXPECT_FALSE(none.access_supported);
        EXPECT_FALSE(none.native_atomics);
        mockdev::control::fail_call("cuDeviceGetP2PAttribute", 2, 999);
        EXPECT_TRUE(is_error_containing(
            catch_error([] { peer_link_info(2, 1); }), ErrorKind::kDriver,
            "peer_link_info: cuDeviceGetP2PAttribute(NATIVE_ATOMIC_SUPPORTED, peer=1): "));
      },
      {{p.visibility_variable, "2,0,1"}});
}

ACCEL_INSTANTIATE_CONFORMANCE(Peers);

}  // namespace
}  // namespace accel::test
