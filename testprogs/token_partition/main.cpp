/*
 * token_partition - llama.cpp-12706: "Use string_view::find() to search for
 * tokenization to speed up" https://github.com/ggml-org/llama.cpp/pull/12706
 * (llama.cpp, April 2025).
 *
 * The real bug: before the vocabulary's tokenizer runs, the prompt is cut at
 * every special token (tokenizer_st_partition() in src/llama-vocab.cpp):
 * for each special token, for each text fragment not yet cut, it calls
 * raw_text.find(special_token, raw_text_base_offset). The offset starts
 * the search at the fragment, but the search runs to the end of the whole
 * prompt, and a match beyond the fragment is dropped afterwards. A long
 * prompt cut into many fragments searches the same tail again for every
 * fragment and every token: "a token is searched again and again in the
 * fragments ... So actually O(n^2) wasted", with std::string::find() the
 * hotspot of the reporter's profile. The PR bounds each search with a
 * std::string_view of the fragment.
 *
 * Here (C++: std::forward_list of fragments that refer to the prompt,
 * std::string::find, called out of line in libstdc++, whose loop is memchr
 * and memcmp): a completion server's loop (main.cpp) takes requests, builds
 * each prompt with a ChatML template (chat.cpp), tokenizes it
 * (llama-vocab.cpp) and decodes the tokens (llama-context.cpp). normal:
 * 12,000 requests, short chats of 4 turns; buggy: the same requests, plus 5
 * long conversations of 1,000 turns (about 230 KB each, 2,000 fragments).
 * The per-token work is the same; the input decides.
 *
 * Root cause: llama_vocab::tokenizer_st_partition() (llama-vocab.cpp), the
 * search to the end of the prompt (ROOT CAUSE; the fix is in that
 * function). Pattern: scalability (the search's walk, std::string::find's,
 * goes over more text). Key variables: raw_text_base_offset, it (the
 * fragment walk).
 *
 * Files, as in llama.cpp's src/ and tools/server: llama-vocab.cpp (the root
 * cause), llama-context.cpp (decoding), chat.cpp (the chat template),
 * token_partition.h (shared declarations); main.cpp (this driver: the
 * server's request loop).
 */
#include <cstdio>
#include <cstring>

#include "token_partition.h"

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A completion server's request loop (llama.cpp#12706). normal: 12,000 short\n"
		"  chats; buggy: the same, plus 5 conversations of 1,000 turns.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	int long_chats = 0;
	if (strcmp(argv[1], "buggy") == 0)
		long_chats = 5;
	else if (strcmp(argv[1], "normal") != 0)
		return usage(argv[0]);

	std::vector<server_task> queue;
	const int requests = 12000;
	int every = long_chats ? requests / long_chats : 0;
	for (int i = 0; i < requests; i++) {
		queue.push_back({(int)queue.size(), apply_chat_template(4, 7919u * (uint64_t)i + 1)});
		if (every && i % every == every / 2)
			queue.push_back({(int)queue.size(), apply_chat_template(1000, 104729u * (uint64_t)i + 3)});
	}

	llama_vocab vocab;
	vocab.load();
	llama_context ctx;
	uint64_t digest = 0, ntokens = 0;
	for (const server_task &task : queue) {
		std::vector<llama_token> tokens = vocab.tokenize(task.prompt);
		ntokens += tokens.size();
		digest = digest * 31 + ctx.decode(tokens);
	}
	printf("token_partition %s: requests=%zu tokens=%llu checksum=%016llx\n", argv[1], queue.size(),
	       (unsigned long long)ntokens, (unsigned long long)digest);
	return 0;
}
