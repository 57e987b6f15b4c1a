// Shared declarations of mqtt_retained (Naragato/Mqttify#19; see main.cpp).
#ifndef MQTT_RETAINED_H
#define MQTT_RETAINED_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace Mqttify
{
	// The kernel's receive queue of a TCP connection (the broker writes, the client reads).
	struct FKernelSocket
	{
		std::vector<uint8_t> Queue;
		size_t Head = 0;
		uint64_t BytesDelivered = 0;

		size_t Pending() const { return Queue.size() - Head; }
		size_t Recv(uint8_t* Out, size_t Max);
		void Write(const uint8_t* Data, size_t Len);
	};

	struct FArrayReader
	{
		std::vector<uint8_t> Bytes;
		int64_t ReceivedAtNs = 0;
	};
	using FArrayReaderPtr = std::shared_ptr<FArrayReader>;

	struct FMqttifyConnectionSettings
	{
		std::string Host;
		int Port;
		uint32_t MaxPacketSize;
		uint32_t ReadBufferSize;
	};

	// Socket/Interface/MqttifySocketBase: the buffer of received bytes, parsed into packets.
	class FMqttifySocketBase
	{
	public:
		explicit FMqttifySocketBase(const FMqttifyConnectionSettings* InSettings)
			: ConnectionSettings{InSettings} {}
		virtual ~FMqttifySocketBase() = default;

		std::function<void(const FArrayReaderPtr&)> OnDataReceived;
		void ReadPacketsFromBuffer();
		void Disconnect() { bConnected = false; DataBuffer.clear(); }

		uint64_t PacketsParsed = 0;

	protected:
		const FMqttifyConnectionSettings* ConnectionSettings;
		std::vector<uint8_t> DataBuffer;
		bool bConnected = true;
		int64_t LastReadNs = 0;
	};

	// Socket/MqttifySocket: the TCP socket, its reads, the client's tick.
	class FMqttifySocket : public FMqttifySocketBase
	{
	public:
		FMqttifySocket(const FMqttifyConnectionSettings* InSettings, FKernelSocket* InKernel);
		void Tick();
		uint64_t Reads = 0;

	private:
		size_t AppendReceived();
		FKernelSocket* Kernel;
		std::vector<uint8_t> ReadBuffer;
	};

	// Mqtt/MqttifyClient: the client's handling of a PUBLISH.
	struct FTopicState
	{
		uint64_t Messages = 0;
		uint64_t Checksum = 0;
		int64_t LastNs = 0;
	};

	class FMqttifyClient
	{
	public:
		void OnReceivePacket(const FArrayReaderPtr& Packet);
		uint64_t Checksum() const;
		uint64_t Publishes = 0;

	private:
		std::unordered_map<std::string, FTopicState> Topics;
	};

	int64_t NowNs();
} // namespace Mqttify

#endif
