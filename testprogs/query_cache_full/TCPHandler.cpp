/*
 * query_cache_full (ClickHouse-118473): TCPHandler.cpp
 * A client connection's handler thread (src/Server/TCPHandler.cpp): receive
 * a query packet, execute it, send the result block and, every 100 ms, a
 * progress packet.
 */
#include "query_cache_full.h"

namespace DB {

void TCPHandler::run()
{
	uint64_t query_id = 0;
	last_ms = nowMicroseconds() / 1000;
	while (!packets.empty()) {
		ClientPacket packet = std::move(packets.front());
		packets.pop_front();
		if (packet.end)
			break;
		QueryContext ctx{ user, nowMicroseconds(), 0, ++query_id };
		ChunkPtr block = executeQuery(packet.query, &ctx);
		/* sendData(): the result block, checksummed as the native format is */
		SipHash hash;
		for (size_t i = 0; i < block->keys.size(); i++) {
			hash.update(block->keys[i]);
			hash.update(block->counts[i]);
		}
		checksum += hash.get64();
		nqueries++;
		int64_t now_ms = nowMicroseconds() / 1000;
		if (now_ms - last_ms >= 100)	/* sendProgress() */
			last_ms = now_ms;
	}
}

}  // namespace DB
