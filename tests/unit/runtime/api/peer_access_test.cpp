// accel::can_device_access_peer in the runtime core, on the GMock backend: the order of
// initialisation, resolution and range checks, and the SPI's default for a backend without
// the peers capability. (The driver's answers are the conformance suite's: Peers.*.)
#include <gtest/gtest.h>

#include "accel/accelerator.h"
#include "accel/lazy_init.h"
#include "accel/peer_link.h"
#include "backend_fixture.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;

using PeerAccessTest = BackendTest;

TEST_F(PeerAccessTest, ABackendWithoutPeersSaysSoAfterInitialising) {
  EXPECT_FALSE(is_initialized());
  const CaughtError caught = catch_error([] { can_device_access_peer(0, 1); });
  EXPECT_TRUE(is_error_containing(caught, ErrorKind::kUnsupported, "can_device_access_peer: the "));
  EXPECT_TRUE(
      is_error_containing(caught, ErrorKind::kUnsupported, " backend does not support peers"));
  EXPECT_TRUE(is_initialized()) << "initialises, as torch.cuda's _lazy_init() first";
}

TEST_F(PeerAccessTest, LinkInfoOfABackendWithoutPeersSaysSo) {
  const CaughtError caught = catch_error([] { peer_link_info(0, 1); });
  EXPECT_TRUE(is_error_containing(caught, ErrorKind::kUnsupported, "peer_link_info: the "));
  EXPECT_TRUE(
      is_error_containing(caught, ErrorKind::kUnsupported, " backend does not support peers"));
  // The diagonal is answered without the backend (which would say kUnsupported).
  EXPECT_EQ(peer_link_info(2, 2), PeerLinkInfo{});
  EXPECT_TRUE(is_error(catch_error([] { peer_link_info(0, 4); }), ErrorKind::kIndex,
                       "Invalid peer device id: 4 (device_count=4)"));
}

TEST_F(PeerAccessTest, OutOfRangeIndicesNameTheValueAndReachNoBackendCall) {
  EXPECT_CALL(backend(), set_device(_)).Times(0);
  EXPECT_CALL(backend(), maybe_set_device(_)).Times(0);
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(4, 0); }), ErrorKind::kIndex,
                       "Invalid device id: 4 (device_count=4)"));
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(-3, 0); }), ErrorKind::kIndex,
                       "Invalid device id: -3 (device_count=4)"));
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(3, 4); }), ErrorKind::kIndex,
                       "Invalid peer device id: 4 (device_count=4)"));
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(0, 200); }), ErrorKind::kIndex,
                       "Invalid peer device id: 200 (device_count=4)"));
  // The device is checked first, as PyTorch does.
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(9, 9); }), ErrorKind::kIndex,
                       "Invalid device id: 9 (device_count=4)"));
}

TEST_F(PeerAccessTest, AFailedInitialisationIsRaisedBeforeTheArguments) {
  EXPECT_CALL(backend(), initialize())
      .WillOnce(::testing::Return(detail::Status(ErrorKind::kDriver, "init failed")));
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(99, 0); }), ErrorKind::kDriver,
                       "init failed"));
}

using PeerAccessNoAcceleratorTest = NoAcceleratorTest;

TEST_F(PeerAccessNoAcceleratorTest, NoAcceleratorIsUnavailable) {
  EXPECT_TRUE(is_error(catch_error([] { can_device_access_peer(0, 1); }), ErrorKind::kUnavailable,
                       "Cannot access accelerator device when none is available."));
}

}  // namespace
}  // namespace accel::test
