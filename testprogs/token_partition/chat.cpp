/*
 * token_partition - llama.cpp-12706 (ggml-org/llama.cpp#12706):
 * src/llama-chat.cpp, a ChatML template: each turn is
 * "<|im_start|>role\n" text "<|im_end|>\n".
 */
#include "token_partition.h"

static const char *words[] = {
	"the", "model", "answer", "question", "token", "prompt", "context", "value",
	"function", "return", "string", "buffer", "search", "offset", "length", "result",
	"please", "explain", "why", "how", "code", "example", "file", "line",
};

std::string apply_chat_template(int turns, uint64_t seed)
{
	std::string s = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n";
	for (int t = 0; t < turns; t++) {
		s += t % 2 ? "<|im_start|>assistant\n" : "<|im_start|>user\n";
		int n = 20 + (int)(seed % 30);
		for (int w = 0; w < n; w++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			s += words[(seed >> 33) % (sizeof(words) / sizeof(words[0]))];
			s += ' ';
		}
		s += "<|im_end|>\n";
	}
	s += "<|im_start|>assistant\n";
	return s;
}
