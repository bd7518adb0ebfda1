// SPDX-License-Identifier: Apache-2.0

package traffic

// What the capture tests (package traffic_test, which can link
// traffic/pcapread) use of the package's insides.
var (
	UDPFrame     = udpFrame
	UDPPayload   = udpPayload
	BuildIPFrame = buildIPFrame
	MacA, MacB   = macA, macB
)

// Constants of the same.
const (
	EthHdrLen  = ethHdrLen
	LinkSLL2   = linkSLL2
	IPProtoUDP = protoUDP
)
