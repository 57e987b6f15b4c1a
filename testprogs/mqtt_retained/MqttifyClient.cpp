// mqtt_retained - Naragato/Mqttify#19: Mqtt/MqttifyClient.cpp, the client's handling
// of a received PUBLISH (see main.cpp).
#include "MqttifySocketBase.h"

namespace Mqttify
{
	void FMqttifyClient::OnReceivePacket(const FArrayReaderPtr& Packet)
	{
		const std::vector<uint8_t>& B = Packet->Bytes;
		if (B.size() < 4 || (B[0] >> 4) != 3)
		{
			return;	// not a PUBLISH
		}
		size_t I = 1;
		while (B[I] & 128)
		{
			I++;
		}
		I++;
		const size_t TopicLen = (size_t(B[I]) << 8) | B[I + 1];
		I += 2;
		std::string Topic(reinterpret_cast<const char*>(&B[I]), TopicLen);
		I += TopicLen;
		FTopicState& State = Topics[Topic];
		uint64_t H = 1469598103934665603ull;
		for (; I < B.size(); I++)
		{
			H = (H ^ B[I]) * 1099511628211ull;
		}
		State.Messages++;
		State.Checksum += H ^ (B[0] & 1);
		State.LastNs = Packet->ReceivedAtNs;
		Publishes++;
	}

	uint64_t FMqttifyClient::Checksum() const
	{
		uint64_t Sum = 0;
		for (const auto& [Topic, State] : Topics)
		{
			Sum += State.Checksum * 31 + State.Messages + Topic.size();
		}
		return Sum;
	}
} // namespace Mqttify
