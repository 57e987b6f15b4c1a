/*
 * mqtt_retained - Naragato/Mqttify#19: "perf(socket): parse with sliding offset to
 * avoid O(n) front erases" (https://github.com/Naragato/Mqttify/pull/19, merged
 * October 2025; Mqttify is an MQTT client plugin for Unreal Engine).
 *
 * The real bug: the socket's read handler appends what each read returned to the
 * member DataBuffer and calls FMqttifySocketBase::ReadPacketsFromBuffer()
 * (Source/Mqttify/Private/Socket/Interface/MqttifySocketBase.cpp), whose loop cuts
 * each complete packet off the front with DataBuffer.RemoveAt(0, TotalPacketSize),
 * moving the rest of the buffer for every packet: quadratic in the packets one read
 * brings. The PR: "Stop doing RemoveAt(0, ...) on every packet; keep a read offset
 * and memcpy from Base + offset ... Compact the buffer only when thresholds are met
 * (min bytes and %), not per packet". The fix is in the parser, the function that
 * erases; the appending read handler is unchanged. When many packets arrive at
 * once is told by the same bug in another MQTT client, shamblett/mqtt_client#648
 * ("MqttByteBuffer.shrink() is O(n^2) under sustained load"): "a broker replaying
 * thousands of retained topics on a LAN ... Victron Venus OS dbus-flashmq replays
 * ~11 000 retained messages after every keepalive".
 *
 * Here (C++: classes with this-> fields, std::vector member buffers,
 * std::shared_ptr packets, std::unordered_map of topic states, std::function
 * delegate, clock_gettime timestamps): a game's frame loop ticks the MQTT client;
 * the broker (simulated, writing into the connection's kernel queue) publishes
 * 36 telemetry messages every frame and, every 1,200 frames (a 20 s keepalive at
 * 60 frames a second), replays its retained messages (about 150 bytes each). The
 * read handler reads at most 256 KB per read. The slow run is the same binary
 * against a different broker: normal: 40 retained topics (6 KB per replay); buggy:
 * 11,000 retained topics (1.6 MB per replay, as in mqtt_client#648): each 256 KB
 * read brings about 1,700 packets and every one of them moves the rest of the
 * buffer. Both runs play the same frames and telemetry.
 *
 * Root cause: Mqttify::FMqttifySocketBase::ReadPacketsFromBuffer()
 * (MqttifySocketBase.cpp), the front erase per packet (ROOT CAUSE); the time goes
 * to libc's memmove under it. Its sibling FMqttifySocket::AppendReceived, called
 * just before it by the same caller (Tick), fills DataBuffer. Key variables:
 * TotalPacketSize, RemainingLength (ReadPacketsFromBuffer), this->DataBuffer.
 * Pattern: scalability (each erase moves more bytes the more packets a read brings).
 *
 * Files, as in Mqttify's Source/Mqttify/Private: MqttifySocketBase.cpp (the root
 * cause), MqttifySocket.cpp (the read handler and tick), MqttifyClient.cpp (the
 * PUBLISH handler), MqttifySocketBase.h; main.cpp (this driver: the broker and the
 * game's frame loop).
 */
#include "MqttifySocketBase.h"

using namespace Mqttify;

static constexpr int kFrames = 144000;
static constexpr int kTelemetryPerFrame = 36;
static constexpr int kKeepaliveFrames = 1200;
static constexpr int kNormalRetained = 40;
static constexpr int kBuggyRetained = 11000;

static uint64_t Rng = 0x9E3779B97F4A7C15ull;
static uint32_t Rnd(uint32_t N)
{
	Rng ^= Rng << 13;
	Rng ^= Rng >> 7;
	Rng ^= Rng << 17;
	return uint32_t(Rng % N);
}

// One PUBLISH packet: fixed header, remaining length, topic, payload.
static void WritePublish(FKernelSocket& Kernel, const std::string& Topic, const char* Payload,
	size_t PayloadLen, bool bRetain)
{
	uint8_t Buf[512];
	size_t Remaining = 2 + Topic.size() + PayloadLen;
	size_t O = 0;
	Buf[O++] = uint8_t(0x30 | (bRetain ? 1 : 0));
	do
	{
		uint8_t Byte = Remaining & 127;
		Remaining >>= 7;
		Buf[O++] = uint8_t(Byte | (Remaining ? 128 : 0));
	} while (Remaining);
	Buf[O++] = uint8_t(Topic.size() >> 8);
	Buf[O++] = uint8_t(Topic.size());
	std::memcpy(Buf + O, Topic.data(), Topic.size());
	O += Topic.size();
	std::memcpy(Buf + O, Payload, PayloadLen);
	O += PayloadLen;
	Kernel.Write(Buf, O);
}

static int Usage(const char* Argv0)
{
	std::fprintf(stderr,
		"usage: %s normal|buggy\n"
		"  An MQTT client ticked by a frame loop (Naragato/Mqttify#19).\n"
		"  normal: the broker keeps %d retained topics; buggy: %d, replayed at every\n"
		"  keepalive (every %d frames).\n",
		Argv0, kNormalRetained, kBuggyRetained, kKeepaliveFrames);
	return 2;
}

int main(int argc, char** argv)
{
	if (argc != 2)
	{
		return Usage(argv[0]);
	}
	bool bBuggy;
	if (std::strcmp(argv[1], "normal") == 0)
	{
		bBuggy = false;
	}
	else if (std::strcmp(argv[1], "buggy") == 0)
	{
		bBuggy = true;
	}
	else
	{
		return Usage(argv[0]);
	}

	const FMqttifyConnectionSettings Settings{"venus.local", 1883, 256 * 1024, 256 * 1024};
	FKernelSocket Kernel;
	FMqttifySocket Socket{&Settings, &Kernel};
	FMqttifyClient Client;
	Socket.OnDataReceived = [&Client](const FArrayReaderPtr& Packet) { Client.OnReceivePacket(Packet); };

	// The broker's retained store: one topic per D-Bus value of the installation.
	const int NRetained = bBuggy ? kBuggyRetained : kNormalRetained;
	std::vector<std::string> Retained;
	for (int I = 0; I < NRetained; I++)
	{
		Retained.push_back("N/c0619ab1d2e3/system/" + std::to_string(I / 64) + "/Dc/" +
			std::to_string(I % 64) + "/Power");
	}
	std::vector<std::string> Live;
	for (int I = 0; I < kTelemetryPerFrame; I++)
	{
		Live.push_back("game/vehicle/" + std::to_string(I) + "/state");
	}
	char Payload[128];
	for (size_t I = 0; I < sizeof Payload; I++)
	{
		Payload[I] = char('a' + I % 26);
	}

	int64_t FrameStart = NowNs(), LongestFrame = 0;
	for (int Frame = 0; Frame < kFrames; Frame++)
	{
		if (Frame % kKeepaliveFrames == 0)
		{
			for (const std::string& Topic : Retained)
			{
				Payload[0] = char('0' + Rnd(10));
				WritePublish(Kernel, Topic, Payload, 80 + Rnd(40), true);
			}
		}
		for (const std::string& Topic : Live)
		{
			Payload[1] = char('0' + Rnd(10));
			WritePublish(Kernel, Topic, Payload, 40 + Rnd(80), false);
		}
		Socket.Tick();
		const int64_t Now = NowNs();
		if (Now - FrameStart > LongestFrame)
		{
			LongestFrame = Now - FrameStart;
		}
		FrameStart = Now;
	}
	std::printf("mqtt_retained %s: frames=%d publishes=%llu reads=%llu checksum=%016llx\n", argv[1],
		kFrames, (unsigned long long)Client.Publishes, (unsigned long long)Socket.Reads,
		(unsigned long long)Client.Checksum());
	return 0;
}
