// fixmate_erase (BirolLab/abyss#44; see main.cpp)
// The hash map abyss-fixmate used (Common/HashMap.h: std::tr1::unordered_map with
// GCC 4.x), reduced to what the program calls: separate chaining, one singly-linked
// chain per bucket, rehashed on insert, never shrunk; erase(iterator) returns the
// iterator to the next element, as the standard asks, found by walking the buckets.
#ifndef FIXMATE_HASHMAP_H
#define FIXMATE_HASHMAP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

template <class Key, class T, class Hash>
class hash_map {
public:
	typedef std::pair<const Key, T> value_type;

private:
	struct Node {
		value_type value;
		Node* next;
		Node(const value_type& v, Node* n) : value(v), next(n) {}
	};

public:
	class iterator {
	public:
		iterator() : m_cur_node(0), m_cur_bucket(0) {}
		iterator(Node* n, Node** b) : m_cur_node(n), m_cur_bucket(b) {}
		value_type& operator*() const { return m_cur_node->value; }
		value_type* operator->() const { return &m_cur_node->value; }
		bool operator==(const iterator& o) const { return m_cur_node == o.m_cur_node; }
		bool operator!=(const iterator& o) const { return m_cur_node != o.m_cur_node; }
		iterator& operator++()
		{
			m_cur_node = m_cur_node->next;
			if (!m_cur_node)
				incr_bucket();
			return *this;
		}
		// The walk to the next non-empty bucket (the last bucket is a non-null
		// sentinel, as in libstdc++'s tr1 hashtable).
		void incr_bucket()
		{
			++m_cur_bucket;
			while (!*m_cur_bucket)
				++m_cur_bucket;
			m_cur_node = *m_cur_bucket;
		}
		Node* m_cur_node;
		Node** m_cur_bucket;
	};

	explicit hash_map(size_t n = 1) : m_element_count(0), m_begin_bucket_index(0)
	{
		allocate_buckets(n < 1 ? 1 : n);
	}
	~hash_map()
	{
		clear();
		delete[] m_buckets;
	}

	size_t size() const { return m_element_count; }
	size_t bucket_count() const { return m_bucket_count; }
	iterator begin() { return iterator(m_buckets[m_begin_bucket_index], m_buckets + m_begin_bucket_index); }
	iterator end() { return iterator(m_buckets[m_bucket_count], m_buckets + m_bucket_count); }

	std::pair<iterator, bool> insert(const value_type& v)
	{
		size_t h = m_hash(v.first);
		size_t b = h % m_bucket_count;
		for (Node* p = m_buckets[b]; p; p = p->next)
			if (p->value.first == v.first)
				return std::make_pair(iterator(p, m_buckets + b), false);
		if (m_element_count + 1 > m_bucket_count) {
			rehash(m_bucket_count * 2 + 1);
			b = h % m_bucket_count;
		}
		Node* n = new Node(v, m_buckets[b]);
		m_buckets[b] = n;
		++m_element_count;
		if (b < m_begin_bucket_index)
			m_begin_bucket_index = b;
		return std::make_pair(iterator(n, m_buckets + b), true);
	}

	iterator erase(iterator it)
	{
		iterator result = it;
		// The iterator erase returns is found by walking the buckets after the
		// erased node's: in a table left sparse by a peak (bucket_count never
		// shrinks), each erase walks about bucket_count / size empty buckets
		// (abyss#44; fixed by an erase that returns nothing, boost's quick_erase,
		// and in libstdc++ by the GCC 4.7 hashtable: GCC bug 41975). ROOT CAUSE:
		++result;

		Node** slot = it.m_cur_bucket;
		while (*slot != it.m_cur_node)
			slot = &(*slot)->next;
		*slot = it.m_cur_node->next;
		delete it.m_cur_node;
		--m_element_count;
		// begin() stays O(1): the first non-empty bucket follows the erasures.
		if (!m_buckets[m_begin_bucket_index])
			m_begin_bucket_index = result.m_cur_bucket - m_buckets;
		return result;
	}

	void clear()
	{
		for (size_t b = 0; b < m_bucket_count; b++) {
			for (Node* p = m_buckets[b]; p;) {
				Node* n = p->next;
				delete p;
				p = n;
			}
			m_buckets[b] = 0;
		}
		m_element_count = 0;
		m_begin_bucket_index = m_bucket_count;
	}

private:
	void allocate_buckets(size_t n)
	{
		m_bucket_count = n;
		m_buckets = new Node*[n + 1]();
		m_buckets[n] = reinterpret_cast<Node*>(0x1000);	// the end sentinel
		m_begin_bucket_index = n;
	}

	void rehash(size_t n)
	{
		Node** old = m_buckets;
		size_t old_count = m_bucket_count;
		allocate_buckets(n);
		for (size_t b = 0; b < old_count; b++) {
			while (Node* p = old[b]) {
				old[b] = p->next;
				size_t nb = m_hash(p->value.first) % n;
				p->next = m_buckets[nb];
				m_buckets[nb] = p;
				if (nb < m_begin_bucket_index)
					m_begin_bucket_index = nb;
			}
		}
		delete[] old;
	}

	Node** m_buckets;
	size_t m_bucket_count;
	size_t m_element_count;
	size_t m_begin_bucket_index;
	Hash m_hash;
};

#endif
