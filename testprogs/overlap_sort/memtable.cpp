/*
 * overlap_sort (RocksDB-10161): memtable.cpp
 * The memtable (db/memtable.cc, memtable/inlineskiplist.h): entries encoded
 * as varint key length, internal key, varint value length, value, kept in a
 * skip list whose nodes live in an arena.
 */
#include "overlap_sort.h"

namespace rocksdb {

static const int kMaxHeight = 12;

struct MemTable::Node {
	const char *entry;
	Node *next[1];	/* height entries */
};

MemTable::MemTable(const InternalKeyComparator *cmp) : cmp_(cmp)
{
	head_ = NewNode(nullptr, 0, kMaxHeight);
	for (int i = 0; i < kMaxHeight; i++)
		head_->next[i] = nullptr;
}

MemTable::~MemTable() {}

MemTable::Node *MemTable::NewNode(const char *entry, size_t len, int height)
{
	size_t node_size = sizeof(Node) + sizeof(Node *) * (height - 1);
	std::unique_ptr<char[]> mem(new char[node_size + len]);
	Node *n = reinterpret_cast<Node *>(mem.get());
	char *e = mem.get() + node_size;
	if (entry)
		memcpy(e, entry, len);
	n->entry = e;
	memory_usage_ += node_size + len;
	arena_.push_back(std::move(mem));
	return n;
}

int MemTable::RandomHeight()
{
	int height = 1;
	while (height < kMaxHeight) {
		rnd_ = rnd_ * 1103515245 + 12345;
		if ((rnd_ >> 16) % 4 != 0)
			break;
		height++;
	}
	return height;
}

static inline const char *DecodeKey(const char *entry, uint32_t *len)
{
	return GetVarint32(entry, entry + 5, len);
}

int MemTable::KeyCompare(const char *a, const char *b) const
{
	uint32_t alen, blen;
	const char *ak = DecodeKey(a, &alen), *bk = DecodeKey(b, &blen);
	int r = cmp_->CompareUserKey(ak, alen - 8, bk, blen - 8);
	if (r == 0) {
		uint64_t an = DecodeFixed64(ak + alen - 8), bn = DecodeFixed64(bk + blen - 8);
		r = an > bn ? -1 : an < bn ? 1 : 0;
	}
	return r;
}

void MemTable::Add(SequenceNumber seq, ValueType type, const std::string &key, const std::string &value)
{
	std::string buf;
	PutVarint32(&buf, (uint32_t)key.size() + 8);
	buf += key;
	PutFixed64(&buf, (seq << 8) | type);
	PutVarint32(&buf, (uint32_t)value.size());
	buf += value;

	Node *prev[kMaxHeight];
	Node *x = head_;
	int level = max_height_ - 1;
	for (;;) {
		Node *next = x->next[level];
		if (next && KeyCompare(next->entry, buf.data()) < 0) {
			x = next;
		} else {
			prev[level] = x;
			if (level == 0)
				break;
			level--;
		}
	}
	int height = RandomHeight();
	if (height > max_height_) {
		for (int i = max_height_; i < height; i++)
			prev[i] = head_;
		max_height_ = height;
	}
	Node *n = NewNode(buf.data(), buf.size(), height);
	for (int i = 0; i < height; i++) {
		n->next[i] = prev[i]->next[i];
		prev[i]->next[i] = n;
	}
	num_entries_++;
}

/* the memtable does not track the time of its oldest key */
bool MemTable::GetOldestKeyTime(uint64_t *) const
{
	return false;
}

MemTable::Node *MemTable::First() const { return head_->next[0]; }
MemTable::Node *MemTable::Next(Node *n) { return n->next[0]; }

const char *MemTable::Key(Node *n, size_t *len)
{
	uint32_t l;
	const char *k = DecodeKey(n->entry, &l);
	*len = l;
	return k;
}

const char *MemTable::Value(Node *n, size_t *len)
{
	uint32_t klen, vlen;
	const char *k = DecodeKey(n->entry, &klen);
	const char *v = GetVarint32(k + klen, k + klen + 5, &vlen);
	*len = vlen;
	return v;
}

}  // namespace rocksdb
