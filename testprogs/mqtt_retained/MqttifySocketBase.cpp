// mqtt_retained - Naragato/Mqttify#19: Socket/Interface/MqttifySocketBase.cpp, the
// packet parser over the received bytes (the root cause; see main.cpp).
#include "MqttifySocketBase.h"

namespace Mqttify
{
	void FMqttifySocketBase::ReadPacketsFromBuffer()
	{
		while (DataBuffer.size() > 1)
		{
			uint32_t RemainingLength = 0;
			uint32_t Multiplier = 1;
			size_t Index = 1;
			bool bHaveRemainingLength = false;

			for (; Index < 5; ++Index)
			{
				if (Index >= DataBuffer.size())
				{
					return;
				}
				const uint8_t EncodedByte = DataBuffer[Index];
				RemainingLength += (EncodedByte & 127) * Multiplier;
				Multiplier *= 128;
				if ((EncodedByte & 128) == 0)
				{
					bHaveRemainingLength = true;
					++Index;
					break;
				}
			}
			if (!bHaveRemainingLength)
			{
				return;
			}
			if (RemainingLength > ConnectionSettings->MaxPacketSize)
			{
				std::fprintf(stderr, "Packet too large: %u, Max: %u\n", RemainingLength,
					ConnectionSettings->MaxPacketSize);
				Disconnect();
				return;
			}
			const size_t TotalPacketSize = Index + RemainingLength;
			if (DataBuffer.size() < TotalPacketSize)
			{
				return;	// we don't have the full packet yet
			}

			FArrayReaderPtr Packet = std::make_shared<FArrayReader>();
			Packet->Bytes.assign(DataBuffer.begin(), DataBuffer.begin() + TotalPacketSize);
			Packet->ReceivedAtNs = LastReadNs;
			// ROOT CAUSE: each packet is removed from the front of the buffer, moving
			// every byte behind it (Mqttify#19: parse with a sliding read offset and
			// compact only past thresholds, once per batch).
			DataBuffer.erase(DataBuffer.begin(), DataBuffer.begin() + TotalPacketSize);
			PacketsParsed++;
			if (OnDataReceived)
			{
				OnDataReceived(Packet);
			}
			else
			{
				break;
			}
		}
	}
} // namespace Mqttify
