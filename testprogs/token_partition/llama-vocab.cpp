/*
 * token_partition - llama.cpp-12706 (ggml-org/llama.cpp#12706):
 * src/llama-vocab.cpp, the vocabulary and the tokenizer.
 * tokenizer_st_partition() holds the ROOT CAUSE.
 */
#include "token_partition.h"

static const char *special_tokens[] = {
	"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|fim_middle|>",
	"<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_call>",
	"</tool_call>", "<think>", "</think>",
};

void llama_vocab::load()
{
	for (const char *s : special_tokens) {
		llama_token id = (llama_token)id_to_token.size();
		id_to_token.push_back({s, true});
		token_to_id[s] = id;
		cache_special_tokens.push_back(id);
	}
}

llama_token llama_vocab::text_to_token(const std::string &word)
{
	auto it = token_to_id.find(word);
	if (it != token_to_id.end())
		return it->second;
	llama_token id = (llama_token)id_to_token.size();
	id_to_token.push_back({word, false});
	token_to_id.emplace(word, id);
	return id;
}

// Split the raw-text fragments of buffer at every occurrence of every
// special token, in the vocabulary's order of special tokens.
void llama_vocab::tokenizer_st_partition(std::forward_list<fragment_buffer_variant> &buffer) const
{
	for (const llama_token special_id : cache_special_tokens) {
		const auto &special_token = id_to_token[special_id].text;

		// for each text fragment
		auto prev = buffer.before_begin();
		auto it = buffer.begin();
		while (it != buffer.end()) {
			if (it->type != FRAGMENT_BUFFER_VARIANT_TYPE_RAW_TEXT) {
				prev = it++;
				continue;
			}
			const auto &raw_text = it->raw_text;
			const uint64_t fragment_end = it->offset + it->length;
			auto raw_text_base_offset = it->offset;
			auto last = it; // the pieces follow the fragment they replace
			bool split = false;

			// loop over the text
			while (true) {
				// The search starts at the fragment's offset but runs to
				// the end of the whole prompt, not of the fragment; a match
				// beyond the fragment is dropped below (the fix searches a
				// std::string_view of the fragment only). ROOT CAUSE
				auto match = raw_text.find(special_token, raw_text_base_offset);
				if (match == std::string::npos)
					break;
				// check if match is within bounds of offset <-> length
				if (match + special_token.length() > fragment_end)
					break;
				// some text to the left of it
				if (match > raw_text_base_offset)
					last = buffer.emplace_after(last, raw_text, raw_text_base_offset, match - raw_text_base_offset);
				// the special token
				last = buffer.emplace_after(last, special_id);
				split = true;
				raw_text_base_offset = match + special_token.length();
			}
			if (!split) {
				prev = it++;
				continue;
			}
			// the text right of the last match
			if (raw_text_base_offset < fragment_end)
				last = buffer.emplace_after(last, raw_text, raw_text_base_offset, fragment_end - raw_text_base_offset);
			buffer.erase_after(prev);
			prev = last;
			it = std::next(last);
		}
	}
}

// Tokenize the text of one raw fragment: words and the spaces before them
// (a word-level stand-in for the vocabulary's BPE).
void llama_vocab::tokenize_raw(const std::string &text, uint64_t offset, uint64_t length, std::vector<llama_token> &out)
{
	uint64_t end = offset + length, i = offset;
	while (i < end) {
		uint64_t j = i + 1;
		while (j < end && text[j] != ' ' && text[j] != '\n')
			j++;
		out.push_back(text_to_token(text.substr(i, j - i)));
		i = j;
	}
}

std::vector<llama_token> llama_vocab::tokenize(const std::string &text)
{
	std::forward_list<fragment_buffer_variant> buffer;
	buffer.emplace_front(text, 0, text.size());
	tokenizer_st_partition(buffer);
	std::vector<llama_token> out;
	for (const auto &f : buffer) {
		if (f.type == FRAGMENT_BUFFER_VARIANT_TYPE_TOKEN)
			out.push_back(f.token);
		else
			tokenize_raw(f.raw_text, f.offset, f.length, out);
	}
	return out;
}
