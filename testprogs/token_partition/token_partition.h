/*
 * token_partition - llama.cpp-12706 (ggml-org/llama.cpp#12706): shared
 * declarations (llama-vocab.h, llama-context.h and the server's slot, in
 * one file).
 */
#pragma once

#include <cstdint>
#include <forward_list>
#include <string>
#include <unordered_map>
#include <vector>

using llama_token = int32_t;

enum fragment_buffer_variant_type {
	FRAGMENT_BUFFER_VARIANT_TYPE_TOKEN,
	FRAGMENT_BUFFER_VARIANT_TYPE_RAW_TEXT,
};

// A piece of the prompt: a special token already found, or a range
// [offset, offset + length) of the prompt's text still to be tokenized.
struct fragment_buffer_variant {
	fragment_buffer_variant(llama_token t)
	    : type(FRAGMENT_BUFFER_VARIANT_TYPE_TOKEN), token(t), raw_text(_dummy), offset(0), length(0) {}
	fragment_buffer_variant(const std::string &text, int64_t off, int64_t len)
	    : type(FRAGMENT_BUFFER_VARIANT_TYPE_RAW_TEXT), token(-1), raw_text(text), offset(off), length(len) {}

	const fragment_buffer_variant_type type;
	const llama_token token;
	const std::string _dummy;
	const std::string &raw_text;
	const uint64_t offset;
	const uint64_t length;
};

struct llama_vocab {
	struct token_data {
		std::string text;
		bool special;
	};
	std::vector<token_data> id_to_token;
	std::unordered_map<std::string, llama_token> token_to_id;
	std::vector<llama_token> cache_special_tokens;

	void load();
	llama_token text_to_token(const std::string &word);
	std::vector<llama_token> tokenize(const std::string &text) ;
	void tokenizer_st_partition(std::forward_list<fragment_buffer_variant> &buffer) const;
	void tokenize_raw(const std::string &text, uint64_t offset, uint64_t length, std::vector<llama_token> &out);
};

struct llama_context {
	std::vector<float> kv;
	uint64_t n_past = 0;
	uint64_t decode(const std::vector<llama_token> &tokens);
};

// server.cpp: one request of the completion endpoint.
struct server_task {
	int id;
	std::string prompt;
};

std::string apply_chat_template(int turns, uint64_t seed);
