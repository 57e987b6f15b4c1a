// fixmate_erase (BirolLab/abyss#44; see main.cpp): Common/SAM.h, an alignment
// record, and the fixmate class (ParseAligns/abyss-fixmate.cc) around the hash map.
#ifndef FIXMATE_SAM_H
#define FIXMATE_SAM_H

#include <cstdint>
#include <string>
#include <vector>

#include "HashMap.h"

struct SAMAlignment {
	int tid;	// reference sequence (RNAME)
	int pos;
	int mtid;	// the mate's (RNEXT)
	int mpos;
	uint16_t flag;
	uint8_t mapq;
	char cigar[14];
};

struct SAMRecord : SAMAlignment {
	std::string qname;
};

struct StringHash {
	size_t operator()(const std::string& s) const
	{
		size_t h = 14695981039346656037ull;
		for (unsigned char c : s)
			h = (h ^ c) * 1099511628211ull;
		return h;
	}
};

typedef hash_map<std::string, SAMAlignment, StringHash> Alignments;

struct FixMateStats {
	uint64_t alignments = 0;
	uint64_t numFR = 0, numRF = 0, numFF = 0, numDifferent = 0;
	uint64_t fragSum = 0;
	uint64_t histogram[64] = {};
};

// abyss-fixmate's file-level state (the map, the stats, the histogram) as a class.
class FixMate {
public:
	explicit FixMate(int verbose) : m_alignments(1), m_verbose(verbose) {}
	void handleAlignment(const SAMRecord& sam);
	size_t mateless() const { return m_alignments.size(); }
	size_t buckets() const { return m_alignments.bucket_count(); }
	FixMateStats stats;

private:
	void handlePair(const SAMAlignment& a0, const SAMRecord& a1);
	void printProgress();
	Alignments m_alignments;
	int m_verbose;
	size_t m_prevBuckets = 0;
};

#endif
