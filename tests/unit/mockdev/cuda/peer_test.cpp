// The simulated driver's peer topology and peer access (Note [Peer access] in
// mockdev/src/cuda/driver_peer.cpp) and the machine file's `topology:` section.

#include <string>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockPeers = MockTest;

int can_access(CUdevice a, CUdevice b) {
  int value = -1;
  EXPECT_EQ(cuda().cuDeviceCanAccessPeer(&value, a, b), CUDA_SUCCESS) << a << "," << b;
  return value;
}

int p2p(CUdevice_P2PAttribute attrib, CUdevice a, CUdevice b) {
  int value = -1;
  EXPECT_EQ(cuda().cuDeviceGetP2PAttribute(&value, attrib, a, b), CUDA_SUCCESS)
      << attrib << ": " << a << "," << b;
  return value;
}

CUcontext retain(CUdevice dev) {
  CUcontext ctx = nullptr;
  EXPECT_EQ(cuda().cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  return ctx;
}

// 4xh100: NVLink pairs 0-1 and 2-3, PCIe between the pairs.
TEST_F(MockPeers, CanAccessPeerFollowsTheTopologyAndNeverTheDeviceItself) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) EXPECT_EQ(can_access(a, b), a == b ? 0 : 1) << a << "," << b;
  }
  use_machine("mixed");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(can_access(0, 1), 0);
  EXPECT_EQ(can_access(1, 0), 0);
}

TEST_F(MockPeers, CanAccessPeerBadArguments) {
  int value = 0;
  EXPECT_EQ(cu().cuDeviceCanAccessPeer(&value, 0, 1), CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuDeviceCanAccessPeer(nullptr, 0, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceCanAccessPeer(&value, 4, 1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceCanAccessPeer(&value, 0, 4), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceCanAccessPeer(&value, -1, 0), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(MockPeers, P2PAttributesDescribeTheLink) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  // NVLink pair.
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1), 0);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 0), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 0, 1), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 0, 1), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED, 0, 1), 0);
  // PCIe between the pairs.
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 1, 2), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 2), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 3, 0), 0);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 3, 0), 0);
  // Not peers at all.
  use_machine("mixed");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1), 0);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1), 0);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 0, 1), 0);
}

TEST_F(MockPeers, P2PAttributeBadArguments) {
  int value = 0;
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(&value, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
            CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(nullptr, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(&value, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0),
            CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(&value, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 4),
            CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(&value, static_cast<CUdevice_P2PAttribute>(0), 0, 1),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(&value, static_cast<CUdevice_P2PAttribute>(6), 0, 1),
            CUDA_ERROR_INVALID_VALUE);
  // [inferred] the devices are checked before the attribute.
  EXPECT_EQ(cu().cuDeviceGetP2PAttribute(&value, static_cast<CUdevice_P2PAttribute>(6), 0, 0),
            CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(MockPeers, TopologyIsInPhysicalDevicesUnderAVisibleDeviceMapping) {
  setenv("CUDA_VISIBLE_DEVICES", "2,1,0", 1);  // ordinals 0,1,2 = physical 2,1,0
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  // Physical 1 and 0 are an NVLink pair: ordinals 1 and 2. Physical 2 and 1: PCIe.
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 1, 2), 0);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 2, 1), 1);
  EXPECT_EQ(p2p(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 0, 1), 0);
  int value = 0;
  EXPECT_EQ(cu().cuDeviceCanAccessPeer(&value, 0, 3), CUDA_ERROR_INVALID_DEVICE);  // hidden
}

TEST_F(MockPeers, CanAccessPeerAndEnableMapOrdinalsToPhysicalDevices) {
  use_yaml(R"(name: partial
devices:
  - {name: d, memory: 1GiB, compute_capability: "9.0", multiprocessors: 1, count: 3}
topology:
  default: none
  links:
    - {devices: [0, 1], link: nvlink}
)");
  setenv("CUDA_VISIBLE_DEVICES", "2,0,1", 1);  // ordinal 0 = physical 2, 1 = 0, 2 = 1
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(can_access(1, 2), 1);
  EXPECT_EQ(can_access(2, 1), 1);
  EXPECT_EQ(can_access(0, 1), 0);
  EXPECT_EQ(can_access(0, 2), 0);
  CUcontext ctx1 = init_and_make_current(1);
  CUcontext ctx2 = retain(2);
  CUcontext ctx0 = retain(0);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx2, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
}

TEST_F(MockPeers, EnableAndDisableFollowTheDriversCodes) {
  CUcontext ctx0 = init_and_make_current(0);
  CUcontext ctx1 = retain(1);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 1), CUDA_ERROR_INVALID_VALUE);  // flags
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);  // self
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(nullptr, 0), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(reinterpret_cast<CUcontext>(0x1234), 0),
            CUDA_ERROR_INVALID_CONTEXT);
  // Access is per direction: 1 -> 0 is not enabled by 0 -> 1.
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(nullptr), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(MockPeers, EnableBetweenDevicesThatAreNotPeersIsUnsupported) {
  use_machine("mixed");
  init_and_make_current(0);
  CUcontext ctx1 = retain(1);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}

TEST_F(MockPeers, NeedsACurrentLiveContext) {
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(nullptr, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(nullptr), CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUcontext ctx1 = retain(1);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_ERROR_INVALID_CONTEXT);  // none current
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext ctx0 = retain(0);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);  // current, but destroyed
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_ERROR_CONTEXT_IS_DESTROYED);
}

TEST_F(MockPeers, ReleasingAPrimaryContextDropsItsPeerAccessBothWays) {
  CUcontext ctx0 = init_and_make_current(0);
  CUcontext ctx1 = retain(1);
  CUcontext ctx2 = retain(2);
  ASSERT_EQ(cu().cuCtxEnablePeerAccess(ctx1, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxEnablePeerAccess(ctx2, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxEnablePeerAccess(ctx0, 0), CUDA_SUCCESS);
  // Device 1's context goes away: 0 -> 1 and 1 -> 0 are gone, 0 -> 2 stays.
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_ERROR_INVALID_CONTEXT);  // released peer
  CUcontext again = retain(1);
  EXPECT_EQ(again, ctx1);  // the same handle, a new activation
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  EXPECT_EQ(cu().cuCtxEnablePeerAccess(ctx2, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxDisablePeerAccess(ctx0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}

TEST_F(MockPeers, PresetTopologies) {
  MachineSpec m8 = load_machine("8xh100");
  EXPECT_EQ(m8.topology.default_link, PeerLink::kNvlink);
  EXPECT_EQ(m8.topology.between(7, 0).link, PeerLink::kNvlink);
  MachineSpec m4 = load_machine("4xh100");
  EXPECT_EQ(m4.topology.between(1, 0).link, PeerLink::kNvlink);
  EXPECT_EQ(m4.topology.between(2, 3).link, PeerLink::kNvlink);
  EXPECT_EQ(m4.topology.between(1, 2).link, PeerLink::kPcie);
  EXPECT_EQ(load_machine("2xa100").topology.between(0, 1).link, PeerLink::kPcie);
  EXPECT_EQ(load_machine("mixed").topology.between(0, 1).link, PeerLink::kNone);
  // The preset files describe the same topologies.
  for (const std::string& name : preset_names()) {
    MachineSpec preset = load_machine(name);
    MachineSpec file = load_machine(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/" + name + ".yaml");
    EXPECT_EQ(file.topology.default_link, preset.topology.default_link) << name;
    ASSERT_EQ(file.topology.links.size(), preset.topology.links.size()) << name;
    for (std::size_t i = 0; i < file.topology.links.size(); ++i) {
      EXPECT_EQ(file.topology.links[i].first, preset.topology.links[i].first) << name;
      EXPECT_EQ(file.topology.links[i].second, preset.topology.links[i].second) << name;
      EXPECT_EQ(file.topology.links[i].spec.link, preset.topology.links[i].spec.link) << name;
    }
  }
}

TEST(MockTopology, FileLinksOverrideTheDefaultAndTheirRankAndAtomics) {
  MachineSpec m = parse_machine(R"(name: t
devices:
  - {name: d, memory: 1GiB, compute_capability: "9.0", multiprocessors: 1, count: 3}
topology:
  default: none
  links:
    - {devices: [2, 0], link: pcie, performance_rank: 5, native_atomics: true}
    - {devices: [1, 2], link: nvlink}
)",
                                "t.yaml");
  EXPECT_EQ(m.topology.between(0, 1).link, PeerLink::kNone);
  PeerLinkSpec l = m.topology.between(0, 2);
  EXPECT_EQ(l.link, PeerLink::kPcie);
  EXPECT_EQ(l.performance_rank, 5);
  EXPECT_TRUE(l.native_atomics);
  EXPECT_EQ(m.topology.between(2, 1).link, PeerLink::kNvlink);
  // No topology section: every pair over PCIe.
  MachineSpec plain = parse_machine(
      "name: p\ndevices:\n  - {name: d, memory: 1GiB, compute_capability: \"9.0\", "
      "multiprocessors: 1, count: 2}\n",
      "p.yaml");
  EXPECT_EQ(plain.topology.between(0, 1).link, PeerLink::kPcie);
  EXPECT_EQ(plain.topology.between(0, 1).performance_rank, 1);
}

std::string topology_error(std::string_view topology) {
  try {
    parse_machine(
        "name: x\ndevices:\n  - {name: d, memory: 1GiB, compute_capability: \"9.0\", "
        "multiprocessors: 1, count: 3}\ntopology:\n" +
            std::string(topology),
        "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MockTopology, BadTopologiesNameTheFieldAndTheValue) {
  EXPECT_EQ(
      topology_error("  default: infiniband\n"),
      "m.yaml:5: topology.default: expected a link kind (none, pcie, nvlink), got 'infiniband'");
  EXPECT_EQ(topology_error("  colour: red\n"),
            "m.yaml:5: topology: expected one of the keys default, links, got 'colour'");
  EXPECT_EQ(topology_error("  links:\n    - {devices: [0, 3], link: pcie}\n"),
            "m.yaml:6: topology.links[0].devices[1]: expected an integer from 0 to 2, got '3'");
  EXPECT_EQ(
      topology_error("  links:\n    - {devices: [1, 1], link: pcie}\n"),
      "m.yaml:6: topology.links[0].devices[1]: expected a device other than devices[0], got '1'");
  EXPECT_EQ(
      topology_error("  links:\n    - {devices: [0], link: pcie}\n"),
      "m.yaml:6: topology.links[0].devices: expected a pair of device indices such as [0, 1], "
      "got '[...]'");
  EXPECT_EQ(
      topology_error("  links:\n    - {devices: [0, 1], link: pcie}\n"
                     "    - {devices: [1, 0], link: nvlink}\n"),
      "m.yaml:7: topology.links[1].devices: expected a pair no earlier link names, got '[0, 1]'");
  EXPECT_EQ(topology_error("  links:\n    - {devices: [0, 1], link: pcie, native_atomics: yes}\n"),
            "m.yaml:6: topology.links[0].native_atomics: expected true or false, got 'yes'");
  EXPECT_EQ(
      topology_error("  links:\n    - {devices: [0, 1]}\n"),
      "m.yaml:6: topology.links[0].link: expected a link kind (none, pcie, nvlink) (required), "
      "got ''");
  EXPECT_EQ(topology_error("  links:\n    - {devices: [0, 1], link: none, performance_rank: 2}\n"),
            "m.yaml:6: topology.links[0]: expected no performance_rank or native_atomics on a link "
            "of kind none, got '2'");
  EXPECT_EQ(topology_error("  links: 3\n"),
            "m.yaml:5: topology.links: expected a list of links, got '3'");
}

}  // namespace
}  // namespace mockdev::testing
