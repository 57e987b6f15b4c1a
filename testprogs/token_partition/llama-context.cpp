/*
 * token_partition - llama.cpp-12706 (ggml-org/llama.cpp#12706):
 * src/llama-context.cpp, decoding: here a fixed amount of arithmetic per
 * token over a small KV cache (the model's work, the same per token in
 * both kinds of runs).
 */
#include "token_partition.h"

uint64_t llama_context::decode(const std::vector<llama_token> &tokens)
{
	if (kv.empty())
		kv.assign(4096, 0.0f);
	uint64_t h = 1469598103934665603ull;
	for (llama_token t : tokens) {
		float x = (float)(t % 997) * 0.001f;
		for (int l = 0; l < 48; l++) {
			float &c = kv[(n_past * 48 + (uint64_t)l) % kv.size()];
			c = c * 0.9f + x;
			x = x * 0.5f + c * 0.25f;
		}
		n_past++;
		h = (h ^ (uint64_t)(x * 1000.0f)) * 1099511628211ull;
	}
	return h;
}
