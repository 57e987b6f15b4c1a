// mqtt_retained - Naragato/Mqttify#19: Socket/MqttifySocket.cpp, the TCP socket's
// read handler (it appends what a read returned to DataBuffer, then asks the base to
// parse) and the client's tick (see main.cpp).
#include "MqttifySocketBase.h"

#include <time.h>

namespace Mqttify
{
	int64_t NowNs()
	{
		struct timespec Ts;
		clock_gettime(CLOCK_MONOTONIC, &Ts);
		return Ts.tv_sec * 1000000000LL + Ts.tv_nsec;
	}

	size_t FKernelSocket::Recv(uint8_t* Out, size_t Max)
	{
		size_t N = Pending() < Max ? Pending() : Max;
		std::memcpy(Out, Queue.data() + Head, N);
		Head += N;
		BytesDelivered += N;
		if (Head == Queue.size())
		{
			Queue.clear();
			Head = 0;
		}
		return N;
	}

	void FKernelSocket::Write(const uint8_t* Data, size_t Len)
	{
		Queue.insert(Queue.end(), Data, Data + Len);
	}

	FMqttifySocket::FMqttifySocket(const FMqttifyConnectionSettings* InSettings, FKernelSocket* InKernel)
		: FMqttifySocketBase{InSettings}, Kernel{InKernel}
	{
		ReadBuffer.resize(InSettings->ReadBufferSize);
		DataBuffer.reserve(InSettings->MaxPacketSize + ReadBuffer.size());
	}

	// HandleRead: the received bytes go to the end of DataBuffer.
	size_t FMqttifySocket::AppendReceived()
	{
		const size_t N = Kernel->Recv(ReadBuffer.data(), ReadBuffer.size());
		DataBuffer.insert(DataBuffer.end(), ReadBuffer.data(), ReadBuffer.data() + N);
		LastReadNs = NowNs();
		Reads++;
		return N;
	}

	// Tick: io_context.poll() runs the handler of every read that completed: append
	// what it read, parse the packets it completed, read again.
	void FMqttifySocket::Tick()
	{
		while (bConnected && Kernel->Pending() > 0)
		{
			if (AppendReceived() == 0)
			{
				break;
			}
			ReadPacketsFromBuffer();
		}
	}
} // namespace Mqttify
